#!/usr/bin/env python3
"""Unbalanced openings for SPRTs: early positions where one side is clearly better.

Between engines of similar strength, most games from balanced openings are draws, and a
drawn game pair says little about which engine is better. From a position where one side
is ahead by about a pawn, a pair (each engine plays the better side once) is usually one
win and one draw or a win each way, and which of the two happens is what the SPRT
measures; fishtest's UHO books work this way. So SPRTs decide in fewer games.

Reads ../shared/data/selfplay-700k.csv.zst (Stockfish 15.1 self-play, labels at 5,000
nodes, White's point of view; the network's test positions come from the other, 200k,
set), keeps at most one position per game: from moves 6 to 14, not in check, the
stronger side ahead by 90 to 160 cp; shuffles them (seeded) and writes N as FENs, after a
comment header, to standard output.

Usage: python3 scripts/unbalanced-openings.py [--count 2000] [--seed 3] \
           > assets/openings/unbalanced.epd
Needs python-chess and zstandard.
"""

import argparse
import csv
import io
import os
import random

import chess
import zstandard

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.join(ROOT, "..", "shared", "data", "selfplay-700k.csv.zst")
LOW, HIGH = 90, 160
FIRST_MOVE, LAST_MOVE = 6, 14


def candidates():
    """(game number, FEN) of the positions that qualify; a new game starts when the
    fullmove number goes down."""
    game, last_move = 0, 0
    with open(SOURCE, "rb") as f:
        text = io.TextIOWrapper(zstandard.ZstdDecompressor().stream_reader(f), encoding="utf-8")
        for row in csv.DictReader(text):
            fen, ev = row["FEN"], row["Evaluation"]
            move = int(fen.split()[5])
            if move < last_move:
                game += 1
            last_move = move
            if ev.startswith("#") or not FIRST_MOVE <= move <= LAST_MOVE:
                continue
            if not LOW <= abs(int(ev)) <= HIGH:
                continue
            board = chess.Board(fen)
            if board.is_check() or board.is_game_over():
                continue
            yield game, fen


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    per_game = {}
    for game, fen in candidates():
        per_game.setdefault(game, []).append(fen)
    fens = [rng.choice(options) for _, options in sorted(per_game.items())]
    rng.shuffle(fens)
    fens = fens[: args.count]
    print("# Unbalanced start positions for SPRTs (`scripts/sprt.sh`, SPRT_BOOK): one per")
    print("# Stockfish self-play game of ../shared/data/selfplay-700k.csv.zst, moves 6-14,")
    print(f"# the stronger side ahead by {LOW}-{HIGH} cp at 5,000 nodes; made by")
    print(f"# scripts/unbalanced-openings.py --count {args.count} --seed {args.seed}. One FEN per line.")
    for fen in fens:
        print(fen)


if __name__ == "__main__":
    main()
