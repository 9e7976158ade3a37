#!/usr/bin/env python3
"""A Lichess evaluation database fixture made from the shared sample, with its answers.

Writes `tests/fixtures/lichess-evals.jsonl` in the format of the Lichess evaluation
database (one JSON object a line: a 4-field FEN and a list of evaluations, each with a
depth, knodes and one or more lines) and `tests/golden/lichess_evals.csv`, what importing
it must store, computed here independently of chessgraph (python-chess normalizes the
FENs):

- about 300 positions of ../shared/data/positions-200k.csv.zst (every 600th row, plus
  mate scores), each with 1 to 4 evaluations: the deepest carries the sample's own label
  (White's point of view, as Lichess gives it) as its first line; decoys are shallower
  with more knodes, or as deep with fewer knodes, or later lines of the same search, all
  with other values;
- one position repeated later with another evaluation (a duplicate: the first wins);
- odd lines: bad JSON, missing fields, an illegal FEN, empty evals, empty pvs, a line
  with neither cp nor mate, mate 0 in a position that is not mate, a blank line.

Golden columns: `line` (1-based line of the jsonl), `kind` (`row`, `duplicate` or the
kind of reject), `fen` (python-chess's normalized EPD), `cp`, `mate`, `depth`, `nodes`.

Usage (from the repository root; needs `pip install chess` and `zstd`):

    python3 scripts/make-lichess-fixture.py [--data ../shared/data/positions-200k.csv.zst]
"""

import argparse
import csv
import io
import json
import subprocess

import chess

STRIDE = 600
MATE_STRIDE = 40  # every 40th mate row, up to MATES of them
MATES = 25


def rows(path):
    text = subprocess.run(["zstd", "-dc", path], check=True, capture_output=True).stdout
    reader = csv.reader(io.StringIO(text.decode()))
    next(reader)
    yield from reader


def parse_eval(s):
    s = s.strip()
    if s.startswith("#"):
        return None, int(s[1:])
    return int(s), None


def pv(cp, mate, line):
    d = {"mate": mate} if mate is not None else {"cp": cp}
    d["line"] = line
    return d


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="../shared/data/positions-200k.csv.zst")
    ap.add_argument("--out", default="tests/fixtures/lichess-evals.jsonl")
    ap.add_argument("--golden", default="tests/golden/lichess_evals.csv")
    args = ap.parse_args()

    chosen, seen, mates = [], set(), 0
    for i, (fen, ev) in enumerate(rows(args.data)):
        cp, mate = parse_eval(ev)
        take = i % STRIDE == 0 or (mate is not None and mate != 0 and mates < MATES and i % MATE_STRIDE == 0)
        if not take:
            continue
        board = chess.Board(fen)
        key = board.epd()
        if key in seen:
            continue
        seen.add(key)
        mates += mate is not None
        chosen.append((" ".join(fen.split()[:4]), key, cp, mate, board))

    lines, golden = [], []

    def emit(obj, kind, key="", cp="", mate="", depth="", nodes=""):
        lines.append(obj if isinstance(obj, str) else json.dumps(obj, separators=(",", ":")))
        golden.append([len(lines), kind, key, cp, mate, depth, nodes])

    def odd(i):
        # Odd lines at fixed places among the good ones.
        k = chosen[0][0]
        quiet = {"pvs": [{"cp": 12, "line": "e2e4"}], "knodes": 10, "depth": 10}
        return {
            10: ('{"fen": "%s", "evals": [{"pvs": [{"cp": 1' % k, "bad-json"),
            20: (json.dumps({"fen": k, "evals": [{"pvs": [{"cp": 5}], "knodes": 10}]}), "missing-depth"),
            30: (json.dumps({"evals": [quiet]}), "missing-fen"),
            40: (json.dumps({"fen": "4k3/8/8/8/8/8/4R3/4K3 w - -", "evals": [quiet]}), "illegal-fen"),
            50: (json.dumps({"fen": k, "evals": []}), "empty-evals"),
            60: (json.dumps({"fen": k, "evals": [{"pvs": [{"mate": 0, "line": ""}], "knodes": 3, "depth": 4}]}), "mate-0"),
            70: (json.dumps({"fen": k, "evals": [{"pvs": [], "knodes": 3, "depth": 4}]}), "empty-pvs"),
            80: (json.dumps({"fen": k, "evals": [{"pvs": [{"line": "e2e4"}], "knodes": 3, "depth": 4}]}), "no-score"),
            90: ("", "blank"),
            100: ("not json at all", "bad-json"),
        }.get(i)

    for i, (fen, key, cp, mate, board) in enumerate(chosen):
        o = odd(i)
        if o is not None:
            text, kind = o
            if kind == "blank":
                lines.append("")  # skipped: no golden row
            else:
                emit(text, kind)
        depth = 20 + (i * 7) % 30
        knodes = 1000 + (i * 7919) % 500000
        first = list(board.legal_moves)[0].uci() if not board.is_game_over() else ""
        best = {"pvs": [pv(cp, mate, first)], "knodes": knodes, "depth": depth}
        other = (cp if cp is not None else 0) + 37
        evals = [best]
        n = i % 4
        if n >= 1:  # shallower, but searched more nodes
            evals.append({"pvs": [pv(other, None, first)], "knodes": knodes * 3, "depth": depth - 5})
        if n >= 2:  # as deep, fewer nodes
            evals.append({"pvs": [pv(other + 1, None, first)], "knodes": knodes - 1, "depth": depth})
        if n >= 3:  # MultiPV: a second line of the best search is not the label
            best["pvs"].append(pv(other + 2, None, first))
        order = i % 3  # where the deepest evaluation stands
        evals = evals[1:order + 1] + [evals[0]] + evals[order + 1:]
        emit({"fen": fen, "evals": evals}, "row", key, "" if cp is None else cp,
             "" if mate is None else mate, depth, knodes * 1000)

    # The third position again, another evaluation: a duplicate, the first label stays.
    fen, key = chosen[2][0], chosen[2][1]
    emit({"fen": fen, "evals": [{"pvs": [{"cp": -999, "line": ""}], "knodes": 10**7, "depth": 99}]},
         "duplicate", key)

    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(args.golden, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["line", "kind", "fen", "cp", "mate", "depth", "nodes"])
        w.writerows(golden)
    kinds = {}
    for g in golden:
        kinds[g[1]] = kinds.get(g[1], 0) + 1
    print(f"{len(lines)} lines: {kinds}")


if __name__ == "__main__":
    main()
