#!/usr/bin/env python3
"""Reads a `chessgraph export data` directory with an independent Parquet reader (DuckDB,
else pyarrow) and checks it against the SQLite database it came from (Python's sqlite3).

    python3 scripts/check/parquet.py --db chessgraph.db --dir export [--rows-per-file N]
        [--edges-db DB] [--heatmap-csv heatmaps/heatmap.csv] [--fit-json fit.json]
        [--recipes-only]

- every table (positions, features, labels, splits): same rows, value for value, in key
  order; edges against the `edges` table of --edges-db (default --db; it must have been
  analyzed with `--edges all`);
- every file holds at most --rows-per-file rows, and files are numbered from 00000;
- with DuckDB, the README's recipe queries: the heatmap's mean evaluation per piece and
  square (against chessgraph's heatmap.csv) and the graph-features study's regression (against
  `chessgraph fit linear --json`), computed on the Parquet files alone.

Exit codes: 0 all equal, 1 a difference (printed), 77 neither duckdb nor pyarrow is
installed (`pip install duckdb numpy`).
"""

import argparse
import csv
import glob
import json
import os
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import chessgraph_sql  # noqa: E402
import time

KEYS = {
    "positions": "id",
    "features": "position_id",
    "labels": "position_id, labeller",
    "splits": "position_id",
    "edges": "position_id, to_sq, from_sq",
}

# The README's recipes (docs/scale.md): DuckDB SQL on the Parquet files alone.
HEATMAP_SQL = """
WITH boards AS (
  SELECT p.eval_cp,
         -- the FEN board with every digit spelled out as that many dots: 64 characters
         replace(replace(replace(replace(replace(replace(replace(replace(replace(
           split_part(p.fen, ' ', 1), '/', ''), '8', '........'), '7', '.......'),
           '6', '......'), '5', '.....'), '4', '....'), '3', '...'), '2', '..'), '1', '.') AS b
  FROM read_parquet('{dir}/positions-*.parquet') p
  JOIN read_parquet('{dir}/features-*.parquet') f ON f.position_id = p.id
  WHERE f.material = 0 AND f.total_material > 40 AND p.eval_cp IS NOT NULL
)
SELECT substr(b, i + 1, 1) AS piece,
       (7 - i // 8) * 8 + i % 8 AS square,          -- FEN runs a8..h8, a7..h7, ...
       count(*) AS n, avg(eval_cp) AS mean
FROM boards, range(64) AS t(i)
WHERE substr(b, i + 1, 1) <> '.'
GROUP BY ALL ORDER BY piece, square
"""

REGRESSION_SQL = """
-- Sums of products for the normal equations (X'X, X'y) of
-- eval_cp ~ 1 + mobility + center_control + king_safety + connectivity on the train part.
WITH x AS (
  SELECT 1.0 AS x0, f.mobility AS x1, f.center_control AS x2, f.king_safety AS x3,
         f.connectivity AS x4, p.eval_cp AS y
  FROM read_parquet('{dir}/positions-*.parquet') p
  JOIN read_parquet('{dir}/features-*.parquet') f ON f.position_id = p.id
  JOIN read_parquet('{dir}/splits-*.parquet') s ON s.position_id = p.id
  WHERE f.material = 0 AND f.total_material > 40 AND p.eval_cp IS NOT NULL AND s.part = 'train'
)
SELECT count(*) AS n, {sums} FROM x
"""


def regression_sums():
    cols = [f"x{i}" for i in range(5)] + ["y"]
    terms = []
    for i, a in enumerate(cols):
        for b in cols[i:]:
            terms.append(f"sum({a} * {b}) AS {a}_{b}")
    return ", ".join(terms)


def files_of(d, table):
    return sorted(glob.glob(os.path.join(d, f"{table}-*.parquet")))


def sqlite_rows(db, table, order):
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    chessgraph_sql.register(conn)  # the views compute FENs and attack sets
    cols = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
    rows = conn.execute(f"SELECT {', '.join(cols)} FROM {table} ORDER BY {order}").fetchall()
    conn.close()
    return cols, rows


def norm(v):
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--rows-per-file", type=int)
    ap.add_argument("--edges-db")
    ap.add_argument("--heatmap-csv")
    ap.add_argument("--fit-json")
    ap.add_argument("--recipes-only", action="store_true", help="skip the table comparison (large exports)")
    args = ap.parse_args()

    try:
        import duckdb
        reader = "duckdb " + duckdb.__version__
    except ImportError:
        duckdb = None
        try:
            import pyarrow.parquet as pq
            reader = "pyarrow"
        except ImportError:
            print("skipped: neither duckdb nor pyarrow is installed (pip install duckdb)")
            return 77

    failures = []
    for table, order in ({} if args.recipes_only else KEYS).items():
        files = files_of(args.dir, table)
        names = [os.path.basename(f) for f in files]
        want_names = [f"{table}-{i:05}.parquet" for i in range(len(files))]
        if not files or names != want_names:
            failures.append(f"{table}: files {names}, expected {want_names[:1]}...")
            continue
        source = args.edges_db or args.db if table == "edges" else args.db
        cols, want = sqlite_rows(source, table, order)
        if duckdb is not None:
            con = duckdb.connect()
            per_file = [con.execute(f"SELECT count(*) FROM read_parquet('{f}')").fetchone()[0] for f in files]
            got = con.execute(
                f"SELECT {', '.join(cols)} FROM read_parquet('{args.dir}/{table}-*.parquet') ORDER BY {order}"
            ).fetchall()
        else:
            t = pq.ParquetDataset(files).read()
            per_file = [pq.ParquetFile(f).metadata.num_rows for f in files]
            data = [t.column(c).to_pylist() for c in cols]
            got = sorted(zip(*data), key=lambda r: tuple(r[cols.index(k.strip())] for k in order.split(",")))
        if args.rows_per_file and any(n > args.rows_per_file for n in per_file):
            failures.append(f"{table}: a file holds more than {args.rows_per_file} rows: {per_file}")
        got = [tuple(norm(v) for v in r) for r in got]
        want = [tuple(norm(v) for v in r) for r in want]
        if got != want:
            diff = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
            failures.append(
                f"{table}: {len(got)} rows read, {len(want)} in SQLite; first difference at row {diff}: "
                f"{got[diff] if diff < len(got) else None} vs {want[diff] if diff < len(want) else None}"
            )
        else:
            print(f"{table}: {len(got)} rows in {len(files)} files equal the database ({reader})")

    if duckdb is not None and args.heatmap_csv:
        con = duckdb.connect()
        started = time.time()
        got = con.execute(HEATMAP_SQL.format(dir=args.dir)).fetchall()
        heatmap_seconds = time.time() - started
        names = "abcdefgh"
        ours = {}
        with open(args.heatmap_csv) as f:
            for r in csv.DictReader(f):
                sq = names.index(r["square"][0]) + 8 * (int(r["square"][1]) - 1)
                ours[(r["piece"], sq)] = (int(r["n"]), r["mean"])
        cells = 0
        for piece, sq, n, mean in got:
            n0, mean0 = ours.get((piece, sq), (0, ""))
            if n != n0 or (mean0 and abs(mean - float(mean0)) > 0.0051):
                failures.append(f"heatmap {piece} on {sq}: DuckDB n={n} mean={mean:.2f}, chessgraph n={n0} mean={mean0}")
            cells += 1
        if cells != sum(1 for v in ours.values() if v[0] > 0):
            failures.append(f"heatmap: DuckDB has {cells} cells with positions, chessgraph {sum(1 for v in ours.values() if v[0] > 0)}")
        print(f"heatmap recipe: {cells} piece-square cells equal chessgraph's heatmap.csv ({heatmap_seconds:.2f} s in DuckDB)")

    if duckdb is not None and args.fit_json:
        import numpy as np
        con = duckdb.connect()
        started = time.time()
        row = con.execute(REGRESSION_SQL.format(dir=args.dir, sums=regression_sums())).fetchone()
        n, sums = row[0], row[1:]
        cols = [f"x{i}" for i in range(5)] + ["y"]
        m = np.zeros((6, 6))
        k = 0
        for i in range(6):
            for j in range(i, 6):
                m[i, j] = m[j, i] = sums[k]
                k += 1
        beta = np.linalg.solve(m[:5, :5], m[:5, 5])
        regression_seconds = time.time() - started
        fit = json.load(open(args.fit_json))
        theirs = [c["estimate"] for c in fit["coefficients"]]
        if n != fit["n_train"] or not np.allclose(beta, theirs, rtol=1e-6, atol=1e-6):
            failures.append(f"regression: DuckDB n={n} {beta.tolist()}, chessgraph n={fit['n_train']} {theirs}")
        print(
            f"regression recipe: n = {n}, coefficients {np.round(beta, 4).tolist()} equal chessgraph fit's "
            f"({regression_seconds:.2f} s in DuckDB)"
        )

    for f in failures:
        print("DIFFERENT:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
