#!/usr/bin/env python3
"""Openings for `chessgraph datagen`: the shared 699k set's book starts, each also with a few
random legal first moves, one FEN per line (shuffled).

The shared sets' positions (and the sample's test part) come from Stockfish games out of
GNU Chess book openings, half of them with one random move after the book. Only the 699k
set's starts are used, so no game of the 200k sample (whose valid and test parts measure
the network) opens a generated game. Measured (docs/nnue-experiments.md, 2026-11-25
night): the engine's games from these openings did not teach the network more than games
from 8 random plies (`datagen`'s default; the difference was within seed noise), so
scripts/nnue-data.sh does not use it; it is kept to repeat that comparison.

Usage: scripts/book-openings.py [--per-start 4] [--seed 5] > openings.fen
Needs python-chess (pip install chess) and zstd.
"""
import argparse
import importlib.util
import pathlib
import random
import sys

import chess

# The book starts and their random children, as scripts/sf-selfplay.py draws them.
_spec = importlib.util.spec_from_file_location(
    "sf_selfplay", pathlib.Path(__file__).with_name("sf-selfplay.py"))
selfplay = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(selfplay)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shared", default="../shared/data/selfplay-700k.pgn.zst")
    ap.add_argument("--per-start", type=int, default=4, help="random first moves per start")
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    books = selfplay.start_fens(args.shared)
    fens = []
    for fen in books:
        fens.append(chess.Board(fen).fen())
        fens.extend(selfplay.random_children(fen, args.per_start, rng))
    rng.shuffle(fens)
    print(f"{len(books)} book starts, {len(fens)} openings", file=sys.stderr)
    print("\n".join(fens))


if __name__ == "__main__":
    main()
