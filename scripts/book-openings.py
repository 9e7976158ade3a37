#!/usr/bin/env python3
"""Openings for `chessgraph datagen`: the shared 699k set's book starts, each also with a few
random legal first moves, one FEN per line (shuffled).

The shared sets' positions (and the sample's test part) come from Stockfish games out of
GNU Chess book openings, half of them with one random move after the book. Only the 699k
set's starts are used, so no game of the 200k sample (whose valid and test parts measure
the network) opens a generated game. Measured (docs/nnue-experiments.md, 2026-11-25
night): the engine's games from these openings taught the network *less* per position than
games from 8 random plies (`datagen`'s default), so scripts/nnue-data.sh does not use it;
it is kept to repeat that comparison.

Usage: scripts/book-openings.py [--per-start 4] [--seed 5] > openings.fen
Needs python-chess (pip install chess) and zstd.
"""
import argparse
import random
import re
import subprocess
import sys

import chess


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shared", default="../shared/data/selfplay-700k.pgn.zst")
    ap.add_argument("--per-start", type=int, default=4, help="random first moves per start")
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    pgn = subprocess.run(["zstd", "-dc", args.shared], check=True, capture_output=True,
                         text=True).stdout
    books = list(dict.fromkeys(re.findall(r'\[FEN "([^"]+)"\]', pgn)))
    fens = []
    for fen in books:
        board = chess.Board(fen)
        fens.append(board.fen())
        moves = list(board.legal_moves)
        for m in rng.sample(moves, min(args.per_start, len(moves))):
            child = board.copy()
            child.push(m)
            if not child.is_game_over():
                fens.append(child.fen())
    rng.shuffle(fens)
    print(f"{len(books)} book starts, {len(fens)} openings", file=sys.stderr)
    print("\n".join(fens))


if __name__ == "__main__":
    main()
