"""chessgraph in DuckDB SQL (chessgraph.duckdb): features and evaluations computed in a
query over the Lichess-format JSON lines and over the Parquet export equal the
executable's answers for the same positions."""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pytest

import chessgraph
import chessgraph.duckdb
from conftest import FIXTURES

LICHESS = str(FIXTURES / "lichess-evals.jsonl")
FEATURES = ", ".join(f"f.{c}" for c in chessgraph.FEATURE_COLUMNS)


@pytest.fixture(scope="module")
def lichess_db(tmp_path_factory):
    from conftest import Cli

    cli = Cli(tmp_path_factory.mktemp("lichess") / "l.db")
    cli.run("import", "-q", "--analyze", LICHESS)
    return cli


def test_features_over_the_lichess_file_are_the_imported_ones(lichess_db):
    con = chessgraph.duckdb.register(duckdb.connect())
    ours = con.sql(
        f"""
        WITH r AS (
            SELECT chessgraph_fen(chessgraph_pack(fen)) AS fen, chessgraph_features(fen) AS f
            FROM read_json('{LICHESS}', ignore_errors = true, columns = {{fen: 'VARCHAR'}})
        )
        SELECT DISTINCT fen, {FEATURES} FROM r WHERE fen IS NOT NULL ORDER BY fen
        """
    )
    ours = pa.table(ours)
    theirs = lichess_db.sql(
        f"SELECT p.fen, {FEATURES} FROM positions p JOIN features f ON f.position_id = p.id ORDER BY p.fen"
    )
    assert ours.num_rows == theirs.num_rows > 250
    assert ours.column("fen").to_pylist() == theirs.column("fen").to_pylist()
    for c in chessgraph.FEATURE_COLUMNS:
        assert ours.column(c).to_pylist() == theirs.column(c).to_pylist(), c


def test_an_evaluator_over_the_parquet_export_is_the_executables(fixtures_db, tmp_path):
    out = tmp_path / "export"
    fixtures_db.run("export", "data", "--format", "parquet", "--out", str(out), "-q")
    theirs = fixtures_db.csv(
        "rate", "evaluator", "-q", "--part", "all", "--evaluator", "nnue", "--output", "-"
    )
    con = chessgraph.duckdb.register(duckdb.connect())
    con.register("rated", theirs)
    # The executable writes six-field FENs; the export, the normalized four fields.
    con.execute("CREATE TABLE theirs AS SELECT chessgraph_fen(chessgraph_pack(fen)) AS fen, static FROM rated")
    bad = con.sql(
        f"""
        SELECT p.fen, chessgraph_evaluate(p.fen, 'nnue') AS ours, t.static
        FROM '{out}/positions-*.parquet' p JOIN theirs t ON t.fen = p.fen
        WHERE ours IS DISTINCT FROM t.static
        """
    ).fetchall()
    assert bad == []
    compared = con.execute(f"SELECT count(*) FROM '{out}/positions-*.parquet' p JOIN theirs t ON t.fen = p.fen")
    assert compared.fetchone()[0] == theirs.num_rows > 1000
    # Features computed in the query equal the exported features table.
    differ = con.execute(
        f"""
        SELECT count(*) FROM '{out}/positions-*.parquet' p
        JOIN '{out}/features-*.parquet' f ON f.position_id = p.id
        WHERE chessgraph_features(p.fen) IS DISTINCT FROM struct_pack({FEATURES})
        """
    ).fetchone()[0]
    assert differ == 0


def test_bad_values_are_null_or_raise():
    con = chessgraph.duckdb.register(duckdb.connect())
    row = con.execute("SELECT chessgraph_features('nonsense'), chessgraph_evaluate(NULL, 'material')").fetchone()
    assert row == (None, None)
    strict = chessgraph.duckdb.register(duckdb.connect(), errors="raise")
    with pytest.raises(duckdb.Error, match="row 0: invalid FEN"):
        strict.sql("SELECT chessgraph_features('nonsense')").fetchall()
