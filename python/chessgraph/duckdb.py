"""chessgraph's functions in DuckDB SQL: Arrow UDFs over the package, vector by vector.

>>> import duckdb, chessgraph.duckdb
>>> con = chessgraph.duckdb.register(duckdb.connect())
>>> con.sql("SELECT chessgraph_evaluate('4k3/8/8/8/8/8/4P3/4K3 w - -', 'material') AS cp").fetchall()
[(100,)]
>>> con.sql("SELECT chessgraph_features('4k3/8/8/8/8/8/4P3/4K3 w - -').mobility_white AS m").fetchall()
[(6,)]

:func:`register` adds, on a DuckDB connection:

- ``chessgraph_features(fen)``: a STRUCT of the :data:`chessgraph.FEATURE_COLUMNS`
  (``chessgraph_features(fen).mobility``, or ``UNNEST(chessgraph_features(fen))`` for all);
- ``chessgraph_evaluate(fen, evaluator)``: centipawns from White's point of view, the
  evaluator named as on the command line (loaded once per name);
- ``chessgraph_pack(fen)``, ``chessgraph_fen(board)``: the packed board and its FEN.

A NULL or a value that is not a position gives NULL (``errors="raise"`` makes it an
error naming the row of the vector instead). DuckDB reads the Lichess evaluation
database (``read_json('lichess_db_eval.jsonl')``) and chessgraph's Parquet export
(``'out/positions-*.parquet'``) as they are, so both are queries::

    SELECT fen, chessgraph_evaluate(fen, 'nnue') AS nnue, chessgraph_features(fen).mobility
    FROM read_json('lichess_db_eval.jsonl', ignore_errors = true)
"""

from __future__ import annotations

import os
from typing import Optional, Union

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
from duckdb import sqltypes

import chessgraph


def _contiguous(values):
    """DuckDB hands an Arrow UDF chunked arrays: one array."""
    return values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values


def register(
    con: duckdb.DuckDBPyConnection,
    db: Optional[Union[str, os.PathLike]] = None,
    errors: chessgraph.Errors = "null",
) -> duckdb.DuckDBPyConnection:
    """Registers the ``chessgraph_*`` functions on ``con`` and returns it. ``db`` is where
    evaluators stored by ``chessgraph tune`` are looked up (``chessgraph.db`` when not
    given)."""
    varchar, blob, integer = sqltypes.VARCHAR, sqltypes.BLOB, sqltypes.INTEGER
    features_struct = duckdb.struct_type({c: sqltypes.BIGINT for c in chessgraph.FEATURE_COLUMNS})

    def features(fens: pa.Array) -> pa.Array:
        table = chessgraph.features(fens, errors=errors)
        valid = table.column(0).is_valid()
        return pa.StructArray.from_arrays(
            [c.combine_chunks() for c in table.columns],
            names=table.column_names,
            mask=pc.invert(valid).combine_chunks(),
        )

    def evaluate(fens: pa.Array, names: pa.Array) -> pa.Array:
        fens, names = _contiguous(fens), _contiguous(names)
        out = pa.nulls(len(fens), pa.int32())
        for name in pc.unique(names).drop_null().to_pylist():
            rows = pc.equal(names, name)
            scores = chessgraph.evaluate(fens.filter(rows), name, db=db, errors=errors)
            out = pc.replace_with_mask(out, rows.fill_null(False), scores)
        return out

    def pack(fens: pa.Array) -> pa.Array:
        return chessgraph.pack(fens, errors=errors)

    def fen(boards: pa.Array) -> pa.Array:
        return chessgraph.fen(boards, errors=errors)

    for name, fn, args, ret in [
        ("chessgraph_features", features, [varchar], features_struct),
        ("chessgraph_evaluate", evaluate, [varchar, varchar], integer),
        ("chessgraph_pack", pack, [varchar], blob),
        ("chessgraph_fen", fen, [blob], varchar),
    ]:
        con.create_function(name, fn, args, ret, type="arrow", null_handling="special", side_effects=False)
    return con
