#!/usr/bin/env python3
"""Independent check of `chessgraph solve` keys with python-chess (pip install chess).

For every puzzle reported solved in a `chessgraph solve` report, plays the key found and
proves by plain minimax (python-chess move generation, no tables) that it mates in the
reported k against every defence, and that no mate in k - 1 exists (so k is the shortest).

    scripts/check/mate-keys.py PUZZLES.epd|PUZZLES.pgn REPORT.txt [--max-n N]

Prints one line per failure and a closing "N passed, N failed" line; exit 1 on a failure.
"""
import argparse
import io
import sys

import chess
import chess.pgn
import os

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mateproof import mated, mates  # noqa: E402

def read_positions(path):
    """Puzzle start positions by the input line where each puzzle starts."""
    positions = {}
    with open(path, encoding="utf-8-sig") as f:
        lines = f.read().splitlines()
    if path.endswith(".pgn"):
        # Games split as chessgraph does: a tag line after movetext starts the next game.
        chunks, start, in_movetext = [], None, False
        for line_no, line in enumerate(lines, 1):
            text = line.strip()
            is_tag = text.startswith("[") and text[1:2].isalpha()
            if is_tag and in_movetext:
                in_movetext = False
                start = None
            if start is None:
                if not text:
                    continue
                start = line_no
                chunks.append((start, []))
            if not is_tag and text:
                in_movetext = True
            chunks[-1][1].append(line)
        for start, chunk in chunks:
            game = chess.pgn.read_game(io.StringIO("\n".join(chunk)))
            if game is not None:
                positions[start] = game.board()
        return positions
    for line_no, line in enumerate(lines, 1):
        if line.strip() and not line.lstrip().startswith("#"):
            board, _ = chess.Board.from_epd(line.strip())
            positions[line_no] = board
    return positions


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("puzzles")
    parser.add_argument("report")
    parser.add_argument("--max-n", type=int, default=3, help="check keys of mates up to N moves")
    args = parser.parse_args()
    positions = read_positions(args.puzzles)
    passed = failed = 0
    with open(args.report, encoding="utf-8") as f:
        for row in f:
            fields = row.split()
            if len(fields) < 9 or not fields[0].isdigit():
                continue
            line, verdict, found, mate = int(fields[0]), fields[2], fields[4], fields[5]
            if not verdict.startswith("solved"):
                continue
            k = int(mate.lstrip("#"))
            if k > args.max_n:
                continue
            board = positions[line].copy()
            shorter = k > 1 and mates(board, k - 1)
            board.push_san(found)
            ok = mated(board, k)
            if ok and not shorter:
                passed += 1
            else:
                failed += 1
                print(f"line {line}: key {found} mate in {k}: mates={ok} shorter_exists={shorter}")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
