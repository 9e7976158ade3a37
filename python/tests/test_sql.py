"""A chessgraph database from Python: `connect` gives `sqlite3` (and through it pandas and
Polars) every view as `chessgraph sql` reads it; `read` gives every table as Arrow."""

from __future__ import annotations

import sqlite3

import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import chessgraph

QUERY = (
    "SELECT p.id, p.fen, p.eval_cp, f.mobility, f.white_attacks, f.black_attacks, s.part "
    "FROM positions p JOIN features f ON f.position_id = p.id "
    "JOIN splits s ON s.position_id = p.id ORDER BY p.id"
)


def test_a_plain_connection_cannot_read_the_views_and_connect_can(fixtures_db):
    plain = sqlite3.connect(fixtures_db.db)
    with pytest.raises(sqlite3.OperationalError, match="no such function: board_fen"):
        plain.execute("SELECT fen FROM positions LIMIT 1").fetchall()
    conn = chessgraph.connect(fixtures_db.db)
    names = {r[0] for r in conn.execute("SELECT name FROM pragma_function_list")}
    assert set(chessgraph.SQL_FUNCTIONS) <= names


@pytest.mark.parametrize("db", ["fixtures_db", "sample_db"])
def test_pandas_and_polars_read_the_views_as_the_executable(db, request):
    cli = request.getfixturevalue(db)
    theirs = cli.sql(QUERY).to_pandas()
    conn = chessgraph.connect(cli.db)
    ours = pd.read_sql(QUERY, conn)
    assert len(ours) == len(theirs) > 1000
    pd.testing.assert_frame_equal(ours, theirs, check_dtype=False)
    polars = pl.read_database(QUERY, conn)
    assert polars["fen"].to_list() == theirs["fen"].to_list()
    assert polars["white_attacks"].to_list() == theirs["white_attacks"].to_list()


def test_the_functions_compose_in_sql(fixtures_db):
    conn = chessgraph.connect(fixtures_db.db)
    row = conn.execute(
        "SELECT id FROM position_rows WHERE key = board_key(pack_fen(?1)) AND board = pack_fen(?1)",
        ("r1bqkbnr/pppn1ppp/4p3/8/2Q5/6P1/PP1PPPBP/RNB1K1NR b KQkq - 0 5",),
    ).fetchall()
    theirs = fixtures_db.sql(
        "SELECT id FROM positions WHERE fen = 'r1bqkbnr/pppn1ppp/4p3/8/2Q5/6P1/PP1PPPBP/RNB1K1NR b KQkq -'"
    )
    assert len(row) == 1
    assert [r[0] for r in row] == theirs.column("id").to_pylist()
    with pytest.raises(sqlite3.OperationalError):
        conn.execute("SELECT pack_fen('not a fen')").fetchall()


@pytest.mark.parametrize("table", chessgraph.TABLES)
def test_read_gives_every_table_as_the_executable(fixtures_db, table):
    ours = chessgraph.read(fixtures_db.db, table)
    order = {
        "positions": "id",
        "features": "position_id",
        "edges": "position_id, to_sq, from_sq",
        "labels": "position_id, labeller",
        "splits": "position_id",
    }[table]
    theirs = fixtures_db.sql(f"SELECT * FROM {table} ORDER BY {order}")
    assert ours.column_names == theirs.column_names
    assert ours.num_rows == theirs.num_rows > 0
    for name in ours.column_names:
        a, b = ours.column(name), theirs.column(name)
        if pa.types.is_timestamp(b.type):
            # pyarrow's JSON reader reads ISO 8601 text as a timestamp: back to the text.
            b = pc.strftime(b, format="%Y-%m-%dT%H:%M:%SZ")
        assert a.to_pylist() == b.cast(a.type).to_pylist(), name


def test_read_refuses_what_it_does_not_know(fixtures_db, tmp_path):
    with pytest.raises(ValueError, match="positions, features, edges, labels, splits"):
        chessgraph.read(fixtures_db.db, "games")
    with pytest.raises(ValueError, match="no database at"):
        chessgraph.read(tmp_path / "none.db", "positions")
