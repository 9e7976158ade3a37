#!/usr/bin/env python3
"""Golden values for the `minimax` player, computed with python-chess.

Writes tests/golden/minimax.csv with, per position and depth, the exact negamax value of
a fixed-depth search with the `material` evaluator (pawn 100, knight 300, bishop 300,
rook 500, queen 900, from the side to move's view at the leaves) and the set of root
moves that reach it. The rules are the player's:

  - no legal move: mated scores -(30000 - ply), stalemate 0;
  - otherwise fifty-move rule, insufficient material, or the position already occurred
    since the last irreversible move (python-chess `is_repetition(2)`): 0;
  - otherwise at depth 0 the material balance.

Every root move is searched with a full window, so its value is exact; inside, plain
alpha-beta (which returns the exact minimax value for a full window at the root child).
One row is the mate in 2 from tests/cli's puzzle set (Buckle - NN, London 1840); the
script checks there is no mate in 1 there.

Run once: python3 scripts/golden/minimax.py (needs `pip install chess`).
"""

import csv
import sys

import chess

MATE = 30000
VALUES = {
    chess.PAWN: 100,
    chess.KNIGHT: 300,
    chess.BISHOP: 300,
    chess.ROOK: 500,
    chess.QUEEN: 900,
    chess.KING: 0,
}

POSITIONS = [
    # Hand-worked: Rxd5 is +400 at depth 1; at depth 2 cxd5 leaves -100, still the best
    # (any other move loses the rook or keeps only R vs Q+P, -500 or worse).
    ("k7/8/2p5/3q4/8/8/8/3RK3 w - - 0 1", [1, 2, 3]),
    # A hanging queen: Nxc4.
    ("4k3/7p/8/8/2q5/8/3N3P/4K3 w - - 0 1", [1, 2, 3]),
    # Stalemate traps: Qb6 and Qc7 stalemate (0), every other safe queen move keeps +900.
    ("k7/8/3Q4/8/8/8/8/7K w - - 0 1", [1, 2, 3]),
    # Mate in 1 with king and queen.
    ("7k/8/6K1/8/8/8/8/1Q6 w - - 0 1", [1, 2]),
    # Promotion (and under-promotion), en passant, castling.
    ("8/1P6/8/8/8/8/6k1/K7 w - - 0 1", [1, 2, 3]),
    ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", [1, 2, 3]),
    ("r3k3/8/8/8/8/8/8/R3K2R w KQq - 0 1", [1, 2]),
    # Two rooks against one, at depth 4 (repetitions inside the line become possible).
    ("1r5k/8/8/8/8/8/8/K4RR1 w - - 0 1", [4]),
    # Mate in 2 (Buckle - NN, London 1840).
    ("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1", [3]),
]


def evaluate(board: chess.Board) -> int:
    v = sum(
        VALUES[p.piece_type] * (1 if p.color == chess.WHITE else -1)
        for p in board.piece_map().values()
    )
    return v if board.turn == chess.WHITE else -v


def negamax(board: chess.Board, depth: int, alpha: int, beta: int, ply: int) -> int:
    moves = list(board.legal_moves)
    if not moves:
        return -(MATE - ply) if board.is_check() else 0
    if (
        board.halfmove_clock >= 100
        or board.is_insufficient_material()
        or board.is_repetition(2)
    ):
        return 0
    if depth == 0:
        return evaluate(board)
    for m in moves:
        board.push(m)
        score = -negamax(board, depth - 1, -beta, -alpha, ply + 1)
        board.pop()
        if score > alpha:
            alpha = score
            if alpha >= beta:
                break
    return alpha


def root(fen: str, depth: int) -> tuple[int, list[str]]:
    board = chess.Board(fen)
    scored = []
    for m in board.legal_moves:
        board.push(m)
        scored.append((-negamax(board, depth - 1, -10 * MATE, 10 * MATE, 1), m.uci()))
        board.pop()
    best = max(s for s, _ in scored)
    return best, sorted(u for s, u in scored if s == best)


def main() -> None:
    out = "tests/golden/minimax.csv"
    rows = []
    for fen, depths in POSITIONS:
        assert chess.Board(fen).is_valid(), fen
        for depth in depths:
            value, best = root(fen, depth)
            rows.append((fen, depth, value, " ".join(best)))
            print(f"{fen} depth {depth}: {value} {best}", file=sys.stderr)
    # The mate-in-2 row must not be a mate in 1.
    assert root(POSITIONS[-1][0], 1)[0] < MATE - 100
    assert rows[-1][2] == MATE - 3, rows[-1]
    with open(out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["fen", "depth", "value", "best"])
        w.writerows(rows)
    print(f"wrote {len(rows)} rows to {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
