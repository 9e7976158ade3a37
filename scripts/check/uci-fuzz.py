#!/usr/bin/env python3
"""Robustness check of `chessgraph engine`: pipes seeded random sequences of valid, odd and
malformed UCI commands (searches that never end by themselves, go while searching, stop,
ponderhit, bad options and FENs, trailing garbage) and checks, per sequence, that the
engine exits by itself after the final `stop` / `quit`, never panics, and answers every
`go` exactly once: with a `bestmove` or with an `info string error: go...`.

  python3 scripts/check/uci-fuzz.py [SEQUENCES] [BINARY]     (defaults: 20, target/release/chessgraph)

Found: a second `go` behind a never-ending `go mate 5` blocked the command reader, so the
final `stop` and `quit` were never read (fixed: queued `go`).
"""
import os
import random
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

COMMANDS = [
    "uci", "isready", "ucinewgame", "position startpos", "position fen",
    "position fen 8/8/8/8/8/8/8/8 w - - 0 1", "position startpos moves e2e4 e7e5 zz",
    "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 moves e2e5",
    "position fen 4k3/8/8/8/8/8/8/4K2R w K - 0 1 moves e1g1",
    "position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    "position fen 8/8/8/8/8/8/8/K6k w - - 200 1",
    "position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
    "position startpos moves " + " ".join(["g1f3", "g8f6", "f3g1", "f6g8"] * 30),
    "go depth 3", "go depth 5", "go movetime 10", "go nodes 1000", "go wtime -5 btime 0",
    "go wtime 100 btime 100 winc 5 binc 5 movestogo 0", "go mate 0", "go mate 1", "go mate 3",
    "go depth 99999999999999", "go searchmoves a1a1", "go movetime 5 searchmoves e2e4 d2d4",
    "go infinite", "go ponder", "go ponder wtime 50 btime 50", "stop", "ponderhit",
    "setoption name Hash value 0", "setoption name Hash value 99999999999",
    "setoption name Hash value 1", "setoption name Evaluator value /nonexistent",
    "setoption name Evaluator value material", "setoption name MultiPV value 500",
    "setoption name MultiPV value 3", "setoption name OwnBook value true",
    "setoption name SyzygyPath value /nonexistent", "setoption name Nope value 1",
    "", "   ", "d", "eval", "flip",
]


def sequence(seed):
    rng = random.Random(seed)
    lines = []
    for _ in range(300):
        c = rng.choice(COMMANDS)
        if rng.random() < 0.1:
            c += " " + "".join(rng.choice("abc 123-\x7f") for _ in range(8))
        lines.append(c)
    return lines + ["stop", "isready", "quit"]


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    binary = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "target/release/chessgraph")
    failures = 0
    for seed in range(count):
        lines = sequence(seed)
        try:
            run = subprocess.run([binary, "engine"], input="\n".join(lines) + "\n",
                                 capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            print(f"seed {seed}: no exit within 120 s")
            failures += 1
            continue
        out = run.stdout.splitlines()
        gos = sum(1 for l in lines if l.startswith("go"))
        answers = sum(1 for l in out if l.startswith("bestmove"))
        refused = sum(1 for l in out if l.startswith("info string error: go"))
        problems = []
        if run.returncode != 0:
            problems.append(f"exit code {run.returncode}")
        if "panick" in run.stdout + run.stderr:
            problems.append("panic")
        if answers + refused != gos:
            problems.append(f"{gos} go, {answers} bestmove + {refused} refused")
        status = "; ".join(problems) or "ok"
        print(f"seed {seed}: {gos} go -> {answers} bestmove, {refused} refused: {status}")
        failures += bool(problems)
    print(f"{count - failures}/{count} sequences ok")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
