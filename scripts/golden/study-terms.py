#!/usr/bin/env python3
"""Golden values for the graph-features study's evaluation terms, computed with python-chess.

Reads tests/fixtures/eval-positions-2k.csv (FEN,Evaluation) and writes
tests/golden/study-terms.csv with, per position:

  white_moves, black_moves  legal moves of each side, each counted with that side to
                            move; the side not to move passes (python-chess null move,
                            which clears en passant) and counts
  king_safety               squares next to the Black king attacked by White minus
                            squares next to the White king attacked by Black

Run once: python3 scripts/golden/study-terms.py (needs `pip install chess`).
"""

import csv
import sys

import chess


def side_moves(board: chess.Board, color: chess.Color) -> int:
    if board.turn == color:
        return board.legal_moves.count()
    b = board.copy()
    b.push(chess.Move.null())
    return b.legal_moves.count()


def attacked_next_to_king(board: chess.Board, king_color: chess.Color) -> int:
    king = board.king(king_color)
    return sum(
        1
        for sq in chess.SquareSet(chess.BB_KING_ATTACKS[king])
        if board.is_attacked_by(not king_color, sq)
    )


def main() -> None:
    src = "tests/fixtures/eval-positions-2k.csv"
    dst = "tests/golden/study-terms.csv"
    with open(src, newline="") as f, open(dst, "w", newline="") as out:
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["fen", "white_moves", "black_moves", "king_safety"])
        for row in csv.DictReader(f):
            board = chess.Board(row["FEN"])
            ks = attacked_next_to_king(board, chess.BLACK) - attacked_next_to_king(
                board, chess.WHITE
            )
            w.writerow(
                [
                    row["FEN"],
                    side_moves(board, chess.WHITE),
                    side_moves(board, chess.BLACK),
                    ks,
                ]
            )
    print(f"wrote {dst} (python-chess {chess.__version__})", file=sys.stderr)


if __name__ == "__main__":
    main()
