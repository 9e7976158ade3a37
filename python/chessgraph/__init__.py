"""chessgraph for Python: what the ``chessgraph`` command computes, on columns of positions.

Positions go in as FENs (a list, a pandas or Polars series, a pyarrow array) and results
come out as Arrow (pyarrow tables and arrays, which pandas and Polars take as they are):

- :func:`features` — the features ``chessgraph analyze`` stores, one row per FEN;
- :func:`edges` — the attack/defense graph, one row per edge;
- :func:`pack`, :func:`fen`, :func:`key` — packed boards, their FENs and keys;
- :func:`evaluate` — any evaluator the command line takes (built-ins, evaluator and
  network files, evaluators stored in a database);
- :func:`read` — a table of a chessgraph database;
- :func:`connect` — a ``sqlite3`` connection to a database with chessgraph's SQL
  functions registered, so its views read in pandas, Polars or plain SQL.

The work runs in Rust on every core with the GIL released; a value that is not a position
raises ``ValueError`` naming its row (or, with ``errors="null"``, gives a null). For
DuckDB and Spark, :mod:`chessgraph.duckdb` and :mod:`chessgraph.spark` put these functions
in SQL and in a job.

>>> import chessgraph
>>> t = chessgraph.features(["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"])
>>> t.column("mobility_white").to_pylist(), t.column("total_material").to_pylist()
([20], [78])
"""

from __future__ import annotations

import functools
import os
import sqlite3
from pathlib import Path
from typing import Any, Optional, Union

import pyarrow as pa

from . import _chessgraph
from ._chessgraph import Evaluator

__version__: str = _chessgraph.__version__

#: The columns of :func:`features`, in order (the ``features`` table's, after ``position_id``).
FEATURE_COLUMNS: list = list(_chessgraph.FEATURE_COLUMNS)
#: The names of chessgraph's SQL functions, which :func:`connect` registers.
SQL_FUNCTIONS: list = list(_chessgraph.SQL_FUNCTIONS)
#: The tables :func:`read` reads.
TABLES: list = list(_chessgraph.TABLES)

__all__ = [
    "Evaluator",
    "FEATURE_COLUMNS",
    "SQL_FUNCTIONS",
    "TABLES",
    "connect",
    "edges",
    "evaluate",
    "evaluator",
    "extension_path",
    "features",
    "fen",
    "key",
    "pack",
    "read",
    "register",
]

Column = Any
"""A column of values: a list, a pandas or Polars series, a NumPy array, or any Arrow array
or chunked array (an object with ``__arrow_c_array__`` or ``__arrow_c_stream__``)."""


def _array(values: Column, kind: pa.DataType) -> pa.Array:
    """``values`` as one contiguous Arrow array of ``kind`` (string or binary)."""
    if isinstance(values, pa.ChunkedArray):
        array = values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    elif isinstance(values, pa.Array):
        array = values
    elif hasattr(values, "__arrow_c_stream__") and not hasattr(values, "__arrow_c_array__"):
        chunked = pa.chunked_array(values)
        array = chunked.combine_chunks() if chunked.num_chunks != 1 else chunked.chunk(0)
    elif isinstance(values, (str, bytes)):
        raise TypeError("expected a column of values, not a single one: wrap it in a list")
    else:
        array = pa.array(values, type=kind, from_pandas=True)
    if not array.type.equals(kind):
        array = array.cast(kind)
    return array


Errors = str
"""``"raise"`` (a value that is not a position raises ``ValueError`` naming its row) or
``"null"`` (it gives a null, as a null input does)."""


def features(fens: Column, errors: Errors = "raise") -> pa.Table:
    """The features of each position, one row per FEN in the input's order.

    The columns are :data:`FEATURE_COLUMNS` as int64, the values ``chessgraph analyze``
    stores in the ``features`` table (``white_attacks``/``black_attacks`` as the 64 bits
    of the bitboard, a1 = bit 0; ``in_check`` 0 or 1). A null FEN gives a null row.

    >>> t = features(["4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", None])
    >>> t.column("material").to_pylist()
    [1, None]
    >>> features(["8/8/8/8/8/8/8/K6k w - -", "not a fen"])
    Traceback (most recent call last):
    ...
    ValueError: row 1: invalid FEN: ...
    >>> features(["8/8/8/8/8/8/8/K6k w - -", "not a fen"], errors="null").column("phase").to_pylist()
    [0, None]
    """
    return pa.Table.from_batches([_chessgraph.features(_array(fens, pa.string()), errors)])


def edges(fens: Column, errors: Errors = "raise") -> pa.Table:
    """The attack/defense graph of each position: one row per piece attacking (an enemy
    piece) or defending (an own piece) an occupied square.

    Columns: ``row`` (the FEN's index in the input), ``from_sq``, ``to_sq`` (0–63, a1 = 0),
    ``attacker``, ``target`` (FEN letters), ``kind`` (``attack`` or ``defend``), each
    position's edges ordered by target square, then source square — the ``edges`` table
    of ``chessgraph analyze --edges all`` with ``row`` for ``position_id``.

    >>> edges(["4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]).to_pylist()
    [{'row': 0, 'from_sq': 4, 'to_sq': 12, 'attacker': 'K', 'target': 'P', 'kind': 'defend'}]
    """
    return pa.Table.from_batches([_chessgraph.edges(_array(fens, pa.string()), errors)])


def pack(fens: Column, errors: Errors = "raise") -> pa.Array:
    """The packed board of each FEN (9–25 bytes, as ``positions.board`` stores it).

    >>> len(pack(["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"])[0].as_py())
    25
    """
    return pa.array(_chessgraph.pack(_array(fens, pa.string()), errors))


def fen(boards: Column, errors: Errors = "raise") -> pa.Array:
    """The normalized FEN (four fields, ``positions.fen``'s form) of each packed board.

    >>> fen(pack(["4k3/8/8/8/8/8/4P3/4K3 w - - 12 80"])).to_pylist()
    ['4k3/8/8/8/8/8/4P3/4K3 w - -']
    """
    return pa.array(_chessgraph.fen(_array(boards, pa.binary()), errors))


def key(boards: Column) -> pa.Array:
    """The key of each packed board (``position_rows.key``, on which a database indexes).

    >>> k = key(pack(["4k3/8/8/8/8/8/4P3/4K3 w - -"]))
    >>> 0 <= k[0].as_py() < 2**47
    True
    """
    return pa.array(_chessgraph.key(_array(boards, pa.binary())))


@functools.lru_cache(maxsize=16)
def _load(name: str, db: Optional[str]) -> Evaluator:
    return Evaluator(name, db)


def evaluator(name: str = "material", db: Optional[Union[str, os.PathLike]] = None) -> Evaluator:
    """The evaluator ``name`` as ``chessgraph eval --evaluator NAME`` resolves it: a built-in
    (``material``, ``pesto``, ...), an evaluator or network file, or one stored in the
    database ``db`` (``chessgraph.db`` when not given). Loaded once per (name, db).

    >>> evaluator("material").name
    'material'
    """
    return _load(name, None if db is None else os.fspath(db))


def evaluate(
    fens: Column,
    evaluator: Union[str, Evaluator] = "material",
    db: Optional[Union[str, os.PathLike]] = None,
    errors: Errors = "raise",
) -> pa.Array:
    """The evaluation of each position in centipawns from White's point of view (int32),
    what ``chessgraph eval FEN --evaluator NAME`` prints as its total.

    >>> evaluate(["4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", None], "material").to_pylist()
    [100, None]
    """
    e = evaluator if isinstance(evaluator, Evaluator) else _load(evaluator, None if db is None else os.fspath(db))
    return pa.array(e.evaluate(_array(fens, pa.string()), errors))


def read(db: Union[str, os.PathLike], table: str) -> pa.Table:
    """Every row of ``table`` (one of :data:`TABLES`) of the database at ``db``, with the
    columns and types of ``chessgraph export data``'s Parquet files: ``edges`` is computed
    for every analyzed position.

    >>> read("no such.db", "positions")
    Traceback (most recent call last):
    ...
    ValueError: no database at no such.db
    """
    return _chessgraph.read(os.fspath(db), table)


_SQL = {
    "pack_fen": (1, _chessgraph.pack_fen),
    "board_fen": (1, _chessgraph.board_fen),
    "board_key": (1, _chessgraph.board_key),
    "board_attacks": (2, _chessgraph.board_attacks),
    "split_part": (4, _chessgraph.split_part),
    "game_key": (6, _chessgraph.game_key),
}


def register(conn: sqlite3.Connection) -> sqlite3.Connection:
    """Registers chessgraph's SQL functions (:data:`SQL_FUNCTIONS`) on ``conn``, through
    ``create_function``: it works on every Python, whether or not its ``sqlite3`` can load
    extensions. Returns ``conn``.

    >>> conn = register(sqlite3.connect(":memory:"))
    >>> conn.execute("SELECT board_fen(pack_fen('4k3/8/8/8/8/8/4P3/4K3 w - - 0 1'))").fetchone()
    ('4k3/8/8/8/8/8/4P3/4K3 w - -',)
    """
    for name, (nargs, fn) in _SQL.items():
        conn.create_function(name, nargs, fn, deterministic=True)
    return conn


def connect(database: Union[str, os.PathLike], **kwargs: Any) -> sqlite3.Connection:
    """``sqlite3.connect(database, **kwargs)`` with chessgraph's SQL functions registered, so
    the views (``positions``, ``features``, ``splits``) read as in ``chessgraph sql``:

    >>> conn = connect(":memory:")
    >>> conn.execute("SELECT board_attacks(pack_fen('8/8/8/8/8/8/8/K6k w - -'), 'white')").fetchone()
    (770,)

    With pandas: ``pandas.read_sql("SELECT fen, eval_cp FROM positions", conn)``.
    """
    return register(sqlite3.connect(database, **kwargs))


def extension_path() -> Optional[str]:
    """The path of chessgraph's SQLite loadable extension, for clients that load extensions
    (``conn.load_extension(path)``, ``sqlite3 -cmd '.load PATH'``): the one installed beside
    this package, else ``$CHESSGRAPH_SQLITE_EXTENSION``, else None (build it with
    ``cargo build --release --manifest-path crates/sqlite-ext/Cargo.toml``).
    """
    here = Path(__file__).parent
    for name in ("libchessgraph_sqlite.so", "libchessgraph_sqlite.dylib", "chessgraph_sqlite.dll"):
        if (here / name).exists():
            return str(here / name)
    env = os.environ.get("CHESSGRAPH_SQLITE_EXTENSION")
    return env if env and Path(env).exists() else None
