#!/usr/bin/env python3
"""Golden Syzygy probes from python-chess, an independent prober of the same tables.

For each of the 35 materials of ../shared/data/syzygy (every 3- and 4-piece table), draws
N random legal positions (seeded; side to move random; no castling, no en passant, the
halfmove clock 0; legal, at most one checker, not mate or stalemate) and writes FEN, WDL (-2..2, the
side to move's view, the fifty-move rule counted: ±1 are the cursed win / blessed loss)
and DTZ as python-chess's `probe_wdl` / `probe_dtz` give them, to
tests/golden/syzygy.csv.zst. crates/engine/src/search/tablebase.rs's test probes the same positions.

Usage: python3 scripts/golden/syzygy.py [N=100]   (the committed file: N=1000, about a minute)   (needs `pip install chess zstandard`)
"""

import io
import os
import random
import sys

import chess
import chess.syzygy
import zstandard

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TABLES = os.path.join(ROOT, "..", "shared", "data", "syzygy")
OUT = os.path.join(ROOT, "tests", "golden", "syzygy.csv.zst")
LETTERS = {"K": chess.KING, "Q": chess.QUEEN, "R": chess.ROOK, "B": chess.BISHOP, "N": chess.KNIGHT, "P": chess.PAWN}


def materials():
    names = sorted({f.split(".")[0] for f in os.listdir(TABLES) if f.endswith(".rtbw")})
    return names


def random_position(rng, material):
    white, black = material.split("v")
    while True:
        board = chess.Board(None)
        pieces = [(LETTERS[c], chess.WHITE) for c in white] + [(LETTERS[c], chess.BLACK) for c in black]
        squares = rng.sample(range(64), len(pieces))
        ok = True
        for (role, color), sq in zip(pieces, squares):
            if role == chess.PAWN and chess.square_rank(sq) in (0, 7):
                ok = False
                break
            board.set_piece_at(sq, chess.Piece(role, color))
        if not ok:
            continue
        board.turn = rng.choice([chess.WHITE, chess.BLACK])
        board.castling_rights = 0
        board.ep_square = None
        board.halfmove_clock = 0
        # At most one checker: a double check no last move could give is refused by
        # shakmaty as impossible.
        if board.is_valid() and len(board.checkers()) <= 1 and not board.is_checkmate() and not board.is_stalemate():
            return board


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    rng = random.Random(20261126)
    out = io.StringIO()
    out.write("fen,wdl,dtz\n")
    count = 0
    with chess.syzygy.open_tablebase(TABLES) as tb:
        for material in materials():
            seen = set()
            while len(seen) < n:
                board = random_position(rng, material)
                fen = board.fen()
                if fen in seen:
                    continue
                seen.add(fen)
                out.write(f"{fen},{tb.probe_wdl(board)},{tb.probe_dtz(board)}\n")
                count += 1
    data = zstandard.ZstdCompressor(level=19).compress(out.getvalue().encode())
    with open(OUT, "wb") as f:
        f.write(data)
    print(f"{count} positions of {len(materials())} materials -> {OUT} ({len(data)} bytes)")


if __name__ == "__main__":
    main()
