"""The Spark job (chessgraph.spark) in local mode with 2 workers: features and
evaluations of the Lichess-format file and of the Parquet export equal the executable's."""

from __future__ import annotations

import os
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

import chessgraph
from conftest import FIXTURES

LICHESS = str(FIXTURES / "lichess-evals.jsonl")


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("chessgraph-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    yield session
    session.stop()


def test_the_lichess_file_analyzed_on_spark_is_what_import_stores(spark, tmp_path_factory):
    from chessgraph.spark import analyze, read_positions
    from conftest import Cli

    cli = Cli(tmp_path_factory.mktemp("spark-lichess") / "l.db")
    cli.run("import", "-q", "--analyze", LICHESS)
    rows = analyze(read_positions(spark, LICHESS).repartition(2), evaluators=["material", "nnue"]).collect()
    assert len(rows) > 300
    ours = {}
    for r in rows:
        if r["material"] is not None:
            ours[chessgraph.fen(chessgraph.pack([r["fen"]]))[0].as_py()] = r
    theirs = cli.sql(
        "SELECT p.fen, f.* FROM positions p JOIN features f ON f.position_id = p.id"
    ).to_pylist()
    assert len(ours) == len(theirs) > 250
    for t in theirs:
        o = ours[t["fen"]]
        assert [o[c] for c in chessgraph.FEATURE_COLUMNS] == [t[c] for c in chessgraph.FEATURE_COLUMNS], t["fen"]
    static = cli.csv("rate", "evaluator", "-q", "--input", LICHESS, "--evaluator", "nnue", "--output", "-")
    by_fen = {fen: r["eval_nnue"] for fen, r in ours.items()}
    normalized = chessgraph.fen(chessgraph.pack(static.column("fen"))).to_pylist()
    assert len(normalized) > 250
    for fen, score in zip(normalized, static.column("static").to_pylist()):
        assert by_fen[fen] == score, fen


def test_the_job_reads_the_parquet_export_and_writes_parquet(fixtures_db, tmp_path):
    export = tmp_path / "export"
    fixtures_db.run("export", "data", "--format", "parquet", "--out", str(export), "-q")
    out = tmp_path / "analyzed"
    done = subprocess.run(
        [sys.executable, "-m", "chessgraph.spark", str(export / "positions-00000.parquet"), str(out),
         "--evaluator", "material", "--master", "local[2]"],
        capture_output=True, text=True, env={**os.environ, "PYSPARK_PYTHON": sys.executable},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "positions analyzed into" in done.stdout and "positions/s" in done.stdout
    ours = pq.read_table(out).sort_by("fen")
    positions = pq.read_table(export / "positions-00000.parquet")
    features = pq.read_table(export / "features-00000.parquet")
    fen_of = dict(zip(positions.column("id").to_pylist(), positions.column("fen").to_pylist()))
    theirs = {fen_of[r["position_id"]]: r for r in features.to_pylist()}
    assert ours.num_rows == positions.num_rows == len(theirs)
    for r in ours.to_pylist():
        assert [r[c] for c in chessgraph.FEATURE_COLUMNS] == [theirs[r["fen"]][c] for c in chessgraph.FEATURE_COLUMNS]
    assert ours.column("eval_material").to_pylist() == chessgraph.evaluate(ours.column("fen"), "material").to_pylist()
