#!/usr/bin/env python3
"""Runs a UCI engine with every `go` replaced by a fixed one, so a tournament can give one
participant its own limit (the PUC-Rio players study ran Stockfish at depth 1 and 0.1 s).

Usage: scripts/strength/uci-go.py go_depth_1_movetime_100 /usr/games/stockfish [ARGS...]
(underscores stand for spaces, so the command survives `tournament --engine`'s split at
spaces). Lines from the GUI pass through unchanged but for `go ...`; the engine's lines
pass back.
"""
import subprocess
import sys
import threading


def main():
    go, cmd = sys.argv[1].replace("_", " "), sys.argv[2:]
    engine = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def relay():
        for line in engine.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()

    threading.Thread(target=relay, daemon=True).start()
    for line in sys.stdin:
        if line.split()[:1] == ["go"]:
            line = go + "\n"
        engine.stdin.write(line)
        engine.stdin.flush()
        if line.strip() == "quit":
            break
    engine.wait()


if __name__ == "__main__":
    main()
