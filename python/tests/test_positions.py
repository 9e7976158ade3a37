"""Features, graphs and packed boards from the package equal what the `chessgraph`
executable stores for the same positions (`import`, `analyze`, read back with
`chessgraph sql`): on the fixtures and on the 200k sample."""

from __future__ import annotations

import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import chessgraph

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def assert_columns_equal(ours: pa.Table, theirs: pa.Table, columns) -> None:
    assert ours.num_rows == theirs.num_rows
    for name in columns:
        a = ours.column(name).cast(pa.int64())
        b = theirs.column(name).cast(pa.int64())
        differ = pc.invert(pc.equal(a, b))
        bad = pc.indices_nonzero(pc.fill_null(differ, True))
        assert len(bad) == 0, f"{name}: row {bad[0]}: {a[bad[0].as_py()]} != {b[bad[0].as_py()]}"


def stored_features(cli) -> pa.Table:
    return cli.sql(
        "SELECT p.fen_input AS fen, f.* FROM positions p JOIN features f ON f.position_id = p.id "
        "ORDER BY p.id"
    )


@pytest.mark.parametrize("db", ["fixtures_db", "sample_db"])
def test_features_are_the_stored_features(db, request):
    cli = request.getfixturevalue(db)
    stored = stored_features(cli)
    assert stored.num_rows > (1000 if db == "fixtures_db" else 170_000)
    ours = chessgraph.features(stored.column("fen"))
    assert ours.column_names == chessgraph.FEATURE_COLUMNS
    assert_columns_equal(ours, stored, chessgraph.FEATURE_COLUMNS)


def test_edges_are_the_stored_edges(fixtures_db):
    stored = fixtures_db.sql(
        "SELECT position_id, from_sq, to_sq, attacker, target, kind FROM edges "
        "ORDER BY position_id, to_sq, from_sq"
    )
    positions = fixtures_db.sql("SELECT id, fen_input AS fen FROM positions ORDER BY id")
    ours = chessgraph.edges(positions.column("fen"))
    ids = pc.take(positions.column("id"), ours.column("row"))
    assert stored.num_rows > 10_000
    assert ours.num_rows == stored.num_rows
    assert pc.all(pc.equal(ids, stored.column("position_id").cast(pa.int64()))).as_py()
    assert_columns_equal(ours, stored, ["from_sq", "to_sq"])
    for name in ("attacker", "target", "kind"):
        assert ours.column(name).to_pylist() == stored.column(name).to_pylist(), name


@pytest.mark.parametrize("db", ["fixtures_db", "sample_db"])
def test_pack_fen_and_key_are_the_stored_ones(db, request):
    cli = request.getfixturevalue(db)
    stored = cli.sql(
        "SELECT p.fen_input, p.fen, r.key, hex(r.board) AS board FROM positions p "
        "JOIN position_rows r ON r.id = p.id ORDER BY p.id"
    )
    boards = chessgraph.pack(stored.column("fen_input"))
    assert [b.hex().upper() for b in boards.to_pylist()] == stored.column("board").to_pylist()
    assert chessgraph.fen(boards).to_pylist() == stored.column("fen").to_pylist()
    assert chessgraph.key(boards).to_pylist() == stored.column("key").to_pylist()


def test_every_kind_of_column_gives_the_same_answer():
    fens = [START, None, "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]
    expected = chessgraph.features(fens)
    for column in (
        pd.Series(fens),
        pl.Series(fens),
        pa.array(fens, pa.large_string()),
        pa.array(fens, pa.string_view()),
        pa.chunked_array([fens[:1], fens[1:]]),
        tuple(fens),
    ):
        assert chessgraph.features(column).equals(expected), type(column)
    assert expected.column("material").to_pylist() == [0, None, 1]
    assert chessgraph.features([]).num_rows == 0


def test_bad_input_raises_naming_the_row():
    with pytest.raises(ValueError, match=r'^row 2: invalid FEN: the board has 3 ranks, not 8: "8/8/8 w - -"$'):
        chessgraph.features([START, START, "8/8/8 w - -"])
    with pytest.raises(ValueError, match=r"^row 1: illegal position"):
        chessgraph.edges([START, "k7/8/8/8/8/8/8/K6Q w - - 0 1"])
    with pytest.raises(ValueError, match="row 0: packed position of 3 bytes"):
        chessgraph.fen([b"abc"])
    with pytest.raises((TypeError, pa.ArrowInvalid, pa.ArrowTypeError)):
        chessgraph.features([1, 2])
    with pytest.raises(TypeError, match="not a single one"):
        chessgraph.features(START)
