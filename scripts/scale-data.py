#!/usr/bin/env python3
"""Writes N distinct positions in the Lichess evaluation database format (JSON lines) on
standard output, for scripts/bench-scale.sh.

The positions are the shared sample's (positions-200k + selfplay-700k: about 706k
distinct), then their colour-flipped twins (board mirrored top to bottom, colours and side
to move swapped, castling and en passant mirrored, evaluation negated) until N distinct
4-field FENs are written. Each line looks like the real file's: two evaluations (the
deepest carries the sample's label, a shallower one with more lines is a decoy), each line
a principal variation of 12 moves (the importer does not read the moves, only skips them).

    python3 scripts/scale-data.py --count 1000000 CSV.zst... | zstd -q -o scale.jsonl.zst
"""

import argparse
import json
import subprocess
import sys

PV = " ".join(["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"] * 2)


def rows(paths):
    for path in paths:
        proc = subprocess.Popen(["zstd", "-dc", path], stdout=subprocess.PIPE, text=True)
        next(proc.stdout)
        for line in proc.stdout:
            fen, ev = line.rstrip("\n").rsplit(",", 1)
            yield " ".join(fen.split()[:4]), ev
        proc.wait()


def flip(fen):
    board, side, castling, ep = fen.split()
    board = "/".join(reversed(board.split("/"))).swapcase()
    side = "b" if side == "w" else "w"
    if castling != "-":
        castling = "".join(sorted(castling.swapcase(), key="KQkq".index))
    if ep != "-":
        ep = ep[0] + ("6" if ep[1] == "3" else "3")
    return f"{board} {side} {castling} {ep}"


def negate(ev):
    if ev.startswith("#"):
        return "#" + str(-int(ev[1:]))
    return str(-int(ev))


def score(ev):
    if ev.startswith("#"):
        return {"mate": int(ev[1:])}
    return {"cp": int(ev)}


def line(fen, ev, i):
    best = {"pvs": [dict(score(ev), line=PV)], "knodes": 100000 + i % 90000, "depth": 30 + i % 20}
    decoy = {
        "pvs": [dict(score(ev), line=PV) for _ in range(3)],
        "knodes": 50000 + i % 40000,
        "depth": 20 + i % 10,
    }
    return json.dumps({"fen": fen, "evals": [best, decoy]}, separators=(",", ":"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=1_000_000)
    ap.add_argument("csv", nargs="+")
    args = ap.parse_args()
    seen, originals = set(), []
    out = sys.stdout
    for fen, ev in rows(args.csv):
        if fen in seen:
            continue
        seen.add(fen)
        originals.append((fen, ev))
        out.write(line(fen, ev, len(seen)) + "\n")
        if len(seen) == args.count:
            return
    for fen, ev in originals:
        twin = flip(fen)
        if twin in seen:
            continue
        seen.add(twin)
        out.write(line(twin, negate(ev), len(seen)) + "\n")
        if len(seen) == args.count:
            return
    print(f"only {len(seen)} distinct positions", file=sys.stderr)


if __name__ == "__main__":
    main()
