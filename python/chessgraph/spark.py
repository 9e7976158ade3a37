"""chessgraph on Spark: the features and evaluations of every position of a collection too
large for one machine, computed by the package on every executor (``mapInArrow``: Arrow
batches in, Arrow batches out, no row-by-row Python).

As a job, reading the Lichess evaluation database (JSON lines) or chessgraph's Parquet
export and writing Parquet::

    python -m chessgraph.spark lichess_db_eval.jsonl out/ --evaluator nnue --master 'local[*]'
    spark-submit --archives env.tar.gz#env ... -m chessgraph.spark INPUT OUTPUT   # a cluster

From PySpark, on any DataFrame with a FEN column::

    from chessgraph.spark import analyze
    analyze(df, evaluators=["nnue"]).write.parquet("out/")

The executors need the package (a wheel installed on every node, or a packed environment
shipped with ``--archives``: docs/python.md), and any evaluator file or database named
must be readable there (``--files``, or a shared file system).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path
from typing import Iterable, Iterator, Optional, Sequence

import pyarrow as pa

import chessgraph


def eval_column(evaluator: str) -> str:
    """The output column of an evaluator: ``eval_`` and its name (a file's stem).

    >>> eval_column("nnue"), eval_column("nets/tiny.safetensors")
    ('eval_nnue', 'eval_tiny')
    """
    stem = Path(evaluator).stem if ("/" in evaluator or "." in evaluator) else evaluator
    return "eval_" + re.sub(r"\W", "_", stem)


def output_schema(evaluators: Sequence[str]) -> pa.Schema:
    """The schema of :func:`analyze`'s rows: the FEN, the features, one int32 per
    evaluator."""
    fields = [pa.field("fen", pa.string())]
    fields += [pa.field(c, pa.int64()) for c in chessgraph.FEATURE_COLUMNS]
    fields += [pa.field(eval_column(e), pa.int32()) for e in evaluators]
    return pa.schema(fields)


def analyze_batches(
    batches: Iterable[pa.RecordBatch],
    evaluators: Sequence[str] = ("nnue",),
    db: Optional[str] = None,
    errors: chessgraph.Errors = "null",
) -> Iterator[pa.RecordBatch]:
    """The function each executor runs: for every batch of FENs (its first column), the
    FENs with their features and evaluations."""
    schema = output_schema(evaluators)
    for batch in batches:
        fens = batch.column(0)
        features = chessgraph.features(fens, errors=errors)
        columns = [fens] + [c.combine_chunks() for c in features.columns]
        columns += [chessgraph.evaluate(fens, e, db=db, errors=errors) for e in evaluators]
        yield pa.RecordBatch.from_arrays(columns, schema=schema)


def analyze(
    df,
    fen_column: str = "fen",
    evaluators: Sequence[str] = ("nnue",),
    db: Optional[str] = None,
    errors: chessgraph.Errors = "null",
):
    """A Spark DataFrame of the FENs of ``df[fen_column]`` with their features and
    evaluations (:func:`output_schema`); a FEN that is not a position has nulls."""
    from pyspark.sql import functions as F
    from pyspark.sql.pandas.types import from_arrow_schema

    evaluators = list(evaluators)
    schema = from_arrow_schema(output_schema(evaluators))

    def run(batches):
        return analyze_batches(batches, evaluators, db, errors)

    return df.select(F.col(fen_column).cast("string").alias("fen")).mapInArrow(run, schema)


def read_positions(spark, path: str, fen_column: str = "fen"):
    """The positions of ``path``: Parquet (a file, a directory or a glob such as
    ``out/positions-*.parquet``) or JSON lines (the Lichess evaluation database; only the
    FEN column is read)."""
    if path.endswith(".parquet") or Path(path).is_dir():
        return spark.read.parquet(path)
    return spark.read.schema(f"`{fen_column}` STRING").json(path)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m chessgraph.spark INPUT OUTPUT``: the job."""
    p = argparse.ArgumentParser(prog="python -m chessgraph.spark", description=main.__doc__)
    p.add_argument("input", help="JSON lines (the Lichess evaluation database) or Parquet")
    p.add_argument("output", help="directory of the Parquet files to write (replaced)")
    p.add_argument("--evaluator", action="append", help="evaluator to run (repeatable; default: nnue)")
    p.add_argument("--features-only", action="store_true", help="no evaluator: the FEN and its features")
    p.add_argument("--db", help="database of evaluators stored by `chessgraph tune`")
    p.add_argument("--fen-column", default="fen", help="the input's FEN column (default: fen)")
    p.add_argument("--master", help="Spark master (default: spark-submit's, else local[*])")
    args = p.parse_args(argv)

    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("chessgraph")
    if args.master:
        builder = builder.master(args.master)
    spark = builder.getOrCreate()
    started = time.monotonic()
    df = analyze(
        read_positions(spark, args.input, args.fen_column),
        fen_column=args.fen_column,
        evaluators=[] if args.features_only else (args.evaluator or ["nnue"]),
        db=args.db,
    )
    df.write.mode("overwrite").parquet(args.output)
    rows = spark.read.parquet(args.output).count()
    seconds = time.monotonic() - started
    print(
        f"{args.input}: {rows} positions analyzed into {args.output} in {seconds:.1f} s "
        f"({rows / max(seconds, 1e-9):,.0f} positions/s)"
    )
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
