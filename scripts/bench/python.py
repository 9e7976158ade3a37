#!/usr/bin/env python3
"""The Python package beside the executable, one run each (run on an idle machine):

1. `chessgraph.features()` on N FENs (default 1,000,000) beside `chessgraph analyze
   --edges none` of the same positions (the goal: at least 0.8 times its rate);
2. the Spark job (`python -m chessgraph.spark`, local mode, one worker per core) on the 5M
   Lichess-format file beside `chessgraph import --analyze` of the same file: features
   only, then with the `nnue` evaluation too; wall times and their ratio;
3. `pandas.read_sql` of the N positions with their features through `chessgraph.connect`
   (rows per second).

Usage: python3 scripts/bench/python.py [--count N] [--lichess FILE.jsonl.zst]
Needs ../shared/data (the data is made as scripts/bench/lichess-load.sh makes it, into
target/bench-load/, and kept), zstd, the package installed (pip install ./python) and
pandas and pyspark (with Java). Prints a Markdown table; the work directory is
target/bench-python.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WORK = ROOT / "target" / "bench-python"
SOURCES = [
    "positions-200k.csv.zst",
    "selfplay-700k.csv.zst",
    "datagen-1.9m-sfd4.epd.zst",
    "datagen-1.9m-sfd4-2.epd.zst",
]


def sh(*args, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in args], check=True, capture_output=True, text=True, **kw)


def timed(*args, **kw) -> float:
    started = time.monotonic()
    sh(*args, **kw)
    return time.monotonic() - started


def lichess_file(count: int) -> Path:
    """The Lichess-format file of `count` positions (made once, as lichess-load.sh does)."""
    path = ROOT / "target" / "bench-load" / f"lichess-{count}.jsonl.zst"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        shared = ROOT.parent / "shared" / "data"
        gen = subprocess.Popen(
            [sys.executable, ROOT / "scripts/fixtures/scale-data.py", "--count", str(count)]
            + [shared / s for s in SOURCES],
            stdout=subprocess.PIPE,
        )
        sh("zstd", "-q", "-T2", "-o", f"{path}.part", stdin=gen.stdout)
        assert gen.wait() == 0
        os.rename(f"{path}.part", path)
    return path


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=1_000_000, help="FENs for 1 and 3")
    p.add_argument("--lichess", type=int, default=5_000_000, help="positions of the Spark run")
    args = p.parse_args()

    import pandas as pd

    import chessgraph

    sh("cargo", "build", "--release", "--quiet", cwd=ROOT)
    cg = ROOT / "target" / "release" / "chessgraph"
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    commit = sh("git", "rev-parse", "--short", "HEAD", cwd=ROOT).stdout.strip()
    load = open("/proc/loadavg").read().split()[:3]
    print(f"{time.strftime('%Y-%m-%d')}, commit {commit}, {os.cpu_count()} cores, "
          f"{platform.python_version()}, load average {' '.join(load)} at the start\n")
    rows = []

    # 1. Features: the executable's analyze against the package on the same FENs.
    small = WORK / f"lichess-{args.count}.jsonl"
    with open(small, "w") as out:
        dec = subprocess.Popen(["zstd", "-dc", lichess_file(args.lichess)], stdout=subprocess.PIPE, text=True)
        for i, line in enumerate(dec.stdout):
            if i == args.count:
                break
            out.write(line)
        dec.kill()
    db = WORK / "features.db"
    sh(cg, "--db", db, "import", "-q", small)
    analyze = timed(cg, "--db", db, "analyze", "-q", "--edges", "none")
    n = chessgraph.read(db, "features").num_rows
    fens = chessgraph.read(db, "positions").column("fen")
    started = time.monotonic()
    features = chessgraph.features(fens)
    ours = time.monotonic() - started
    assert features.num_rows == n
    rows.append((f"`analyze --edges none`, {n:,} positions", analyze, f"{n / analyze:,.0f} positions/s", ""))
    rows.append((f"`chessgraph.features()`, the same {n:,} FENs", ours, f"{n / ours:,.0f} positions/s",
                 f"{analyze / ours:.2f}× analyze's rate"))

    # 3. pandas through connect.
    conn = chessgraph.connect(db)
    started = time.monotonic()
    df = pd.read_sql("SELECT p.fen, p.eval_cp, f.* FROM positions p JOIN features f ON f.position_id = p.id", conn)
    read = time.monotonic() - started
    rows.append((f"`pandas.read_sql` of {len(df):,} positions with their features (`connect`)", read,
                 f"{len(df) / read:,.0f} rows/s", ""))

    # 2. Spark beside import --analyze on the big file.
    big = lichess_file(args.lichess)
    plain = WORK / big.name.removesuffix(".zst")
    sh("zstd", "-dq", "-o", plain, big)
    imported = timed(cg, "--db", WORK / "big.db", "import", "-q", "--analyze", big)
    m = int(sh(cg, "--db", WORK / "big.db", "sql", "--format", "csv", "SELECT count(*) AS n FROM feature_rows").stdout.split()[1])
    rows.append((f"`import --analyze`, {m:,} positions (`.jsonl.zst`)", imported, f"{m / imported:,.0f} positions/s", ""))
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    for label, extra in (("features", ["--features-only"]), ("features and `nnue`", ["--evaluator", "nnue"])):
        out = WORK / "spark-out"
        wall = timed(sys.executable, "-m", "chessgraph.spark", plain, out, "--master", f"local[{os.cpu_count()}]",
                     *extra, env=env)
        rows.append((f"Spark job, {label} (`.jsonl`, local mode, {os.cpu_count()} workers)", wall,
                     f"{args.lichess / wall:,.0f} lines/s", f"{wall / imported:.2f}× import's wall"))

    print("| what | wall | rate | ratio |")
    print("| --- | --- | --- | --- |")
    for what, wall, rate, ratio in rows:
        print(f"| {what} | {wall:.1f} s | {rate} | {ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
