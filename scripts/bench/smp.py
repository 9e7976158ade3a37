#!/usr/bin/env python3
"""Time to depth of `chessgraph engine` with 1 and more threads (Lazy SMP).

Usage: scripts/bench/smp.py [--engine CMD] [--depth D] [--threads 1,2] [--rounds R]

For each thread count and each position below, a fresh engine process gets `ucinewgame`
and `go depth D`; the script keeps the `time` and `nodes` of the last `info` line before
`bestmove`. It prints, per round and thread count, the summed time to depth, the summed
nodes and the node rate, and the speed-up of each thread count against the first. The
rounds alternate the thread counts, so a change in machine load hits both. Measure on an
idle machine: the figures are wall-clock times.
"""

import argparse
import shlex
import subprocess

POSITIONS = [
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "2r3k1/pp3ppp/4p3/3n4/3P4/P4N2/1P3PPP/2R3K1 w - - 0 1",
]


def time_to_depth(engine, threads, fen, depth):
    """(milliseconds, nodes) of the last info line of `go depth` from a fresh process."""
    p = subprocess.Popen(
        shlex.split(engine), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )

    def send(line):
        p.stdin.write(line + "\n")
        p.stdin.flush()

    def until(prefix):
        for line in p.stdout:
            if line.startswith(prefix):
                return line
            if line.startswith("info depth"):
                until.last = line
        raise RuntimeError(f"engine ended before {prefix!r}")

    until.last = None
    send("uci")
    until("uciok")
    send(f"setoption name Threads value {threads}")
    send("ucinewgame")
    send("isready")
    until("readyok")
    send(f"position fen {fen}")
    send(f"go depth {depth}")
    until("bestmove")
    send("quit")
    p.wait(timeout=30)
    words = (until.last or "").split()
    field = lambda name: int(words[words.index(name) + 1]) if name in words else 0
    return field("time"), field("nodes")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", default="target/release/chessgraph engine")
    ap.add_argument("--depth", type=int, default=13)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    counts = [int(t) for t in args.threads.split(",")]
    print(f"time to depth {args.depth} over {len(POSITIONS)} positions ({args.engine})")
    print("round  threads  time ms  nodes  nps  speed-up")
    for r in range(1, args.rounds + 1):
        base = None
        for t in counts:
            ms = nodes = 0
            for fen in POSITIONS:
                a, b = time_to_depth(args.engine, t, fen, args.depth)
                ms, nodes = ms + a, nodes + b
            base = base or ms
            nps = nodes * 1000 // max(ms, 1)
            print(f"{r}  {t}  {ms}  {nodes}  {nps}  {base / max(ms, 1):.2f}")


if __name__ == "__main__":
    main()
