#!/usr/bin/env python3
"""Golden verdicts for best-move test suites, from python-chess.

Reads an EPD suite on its own (python-chess parses the positions and the moves: SAN, or UCI
/ long algebraic notation when SAN does not read), and scores given (id, played move) pairs
the way `chessgraph solve` says it does:

- solved: the move is in `bm` (when given) and not in `am`; with no `bm` but STS `c0`
  points, solved when the move has the most points;
- points: the move's `c0` points (0 if not listed) and the largest value, when `c0` is a
  list `MOVE=N, MOVE=N, ...` (any other `c0` is a comment);
- a line whose position does not parse, whose bm/am/points move is illegal, ambiguous or
  unreadable, or that has no dm/bm/am/points, is a bad line.

The pairs come from `chessgraph solve --json` outputs (their `positions`: id and played
move in UCI) and from `--extra ID=UCI`. Writes a CSV: `line,id,played,solved,points,
max_points`, with the bad lines in a comment. tests/golden/suite-verdicts.csv was made by

    cargo build
    B=target/debug/chessgraph
    $B --db /tmp/g.db solve --input tests/fixtures/suite-bestmove.epd --depth 4 --json > /tmp/engine.json
    $B --db /tmp/g.db solve --input tests/fixtures/suite-bestmove.epd --player random:seed=1 --json > /tmp/random.json
    scripts/golden/suite.py tests/fixtures/suite-bestmove.epd /tmp/engine.json /tmp/random.json \
        --extra "Fixture Misc.002=d1d5" --extra "Fixture Misc.005=e2e3" \
        --extra "STS(v1.0) Undermine.003=d1d5" --extra "STS(v1.0) Undermine.003=d1d2" \
        --out tests/golden/suite-verdicts.csv
"""

import argparse
import json
import re
import sys

import chess


def split_ops(text):
    """EPD operations: opcode and operands, quotes removed, `;` separated."""
    ops, tokens, cur, i = {}, [], "", 0
    while i < len(text):
        c = text[i]
        if c == '"':
            j = text.index('"', i + 1)
            if cur:
                tokens.append(cur)
                cur = ""
            tokens.append(text[i + 1 : j])
            i = j + 1
            continue
        if c == ";" or c.isspace():
            if cur:
                tokens.append(cur)
                cur = ""
            if c == ";" and tokens:
                ops.setdefault(tokens[0], tokens[1:])
                tokens = []
        else:
            cur += c
        i += 1
    if cur:
        tokens.append(cur)
    if tokens:
        ops.setdefault(tokens[0], tokens[1:])
    return ops


def read_move(board, text):
    try:
        return board.parse_san(text)
    except chess.AmbiguousMoveError:
        raise ValueError(f"ambiguous move {text!r}")
    except ValueError:
        pass
    # UCI, or long algebraic: [piece]from[-x]to[=promotion][+#]
    m = re.fullmatch(r"([NBRQK])?([a-h][1-8])[-x]?([a-h][1-8])=?([nbrqNBRQ])?[+#]?", text)
    if m:
        piece, frm, to, promo = m.groups()
        move = chess.Move.from_uci(frm + to + (promo or "").lower())
        moved = board.piece_at(move.from_square)
        want = chess.PIECE_SYMBOLS.index(piece.lower()) if piece else None
        if move in board.legal_moves and (want is None or moved.piece_type == want):
            return move
    raise ValueError(f"illegal or unreadable move {text!r}")


def read_suite(path):
    """{id: (line, board, bm, am, points)} and the bad lines {line: reason}."""
    puzzles, bad = {}, {}
    for number, raw in enumerate(open(path, encoding="utf-8"), 1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        fields = text.split(None, 4)
        try:
            board = chess.Board(" ".join(fields[:4]) + " 0 1")
            if not board.is_valid():
                raise ValueError("illegal position")
            ops = split_ops(fields[4] if len(fields) > 4 else "")
            bm = [read_move(board, t) for t in ops.get("bm", [])]
            am = [read_move(board, t) for t in ops.get("am", [])]
            points = {}
            comment = " ".join(ops.get("c0", []))
            items = [re.fullmatch(r"\s*(\S+)=(\d+)\s*", x) for x in comment.split(",")]
            if comment and all(items):
                for it in items:
                    points[read_move(board, it.group(1))] = int(it.group(2))
            if not (bm or am or points or "dm" in ops):
                raise ValueError("nothing to solve")
        except ValueError as e:
            bad[number] = str(e)
            continue
        pid = ops.get("id", [f"line {number}"])[0]
        puzzles[pid] = (number, board, bm, am, points)
    return puzzles, bad


def verdict(puzzle, played):
    _, _, bm, am, points = puzzle
    top = max(points.values()) if points else None
    got = points.get(played, 0)
    if bm:
        best = played in bm
    else:
        best = top is None or got == top
    solved = best and played not in am
    return solved, (got if points else ""), (top if points else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("epd")
    ap.add_argument("runs", nargs="*", help="`chessgraph solve --json` outputs")
    ap.add_argument("--extra", action="append", default=[], help="ID=UCI")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    puzzles, bad = read_suite(args.epd)
    pairs, sources = [], []
    for run in args.runs:
        data = json.load(open(run))
        sources.append(f"{data['player']} depth={data['depth']} movetime_ms={data['movetime_ms']}")
        for f in data["files"]:
            pairs += [(p["id"], p["played"]) for p in f["positions"]]
    pairs += [tuple(e.rsplit("=", 1)) for e in args.extra]
    if args.extra:
        sources.append("hand-picked: " + "; ".join(args.extra))
    rows, seen = [], set()
    for pid, uci in pairs:
        if (pid, uci) in seen:
            continue
        seen.add((pid, uci))
        puzzle = puzzles[pid]
        move = chess.Move.from_uci(uci)
        assert move in puzzle[1].legal_moves, (pid, uci)
        solved, got, top = verdict(puzzle, move)
        rows.append((puzzle[0], pid, uci, str(solved).lower(), got, top))
    rows.sort(key=lambda r: (r[0], r[2]))
    with open(args.out, "w") as out:
        out.write(f"# python-chess {chess.__version__} verdicts (scripts/golden/suite.py) on {args.epd}\n")
        for s in sources:
            out.write(f"# moves: {s}\n")
        out.write("# bad lines: " + " ".join(str(n) for n in sorted(bad)) + "\n")
        out.write("line,id,played,solved,points,max_points\n")
        for r in rows:
            out.write(",".join(str(x) for x in r) + "\n")
    for n in sorted(bad):
        print(f"bad line {n}: {bad[n]}", file=sys.stderr)
    print(f"{len(rows)} verdicts, {len(puzzles)} puzzles, {len(bad)} bad lines -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
