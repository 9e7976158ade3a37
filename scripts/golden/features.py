#!/usr/bin/env python3
"""Golden features and attack/defense edges, computed with python-chess.

An independent reference for crates/core/src/graph (it is not a port of the Rust code): every value
is computed square by square from python-chess's own move generator and attack queries,
straight from the graph-features study's definitions.

Usage (from the repository root; needs `pip install chess`, and `zstd` or the
`zstandard` module for the shared data):

    python3 scripts/golden/features.py \
        [--data ../shared/data/positions-200k.csv.zst] [--out tests/golden/features.csv]

Output: one row per position: `source` (where the position comes from), `fen`, every
feature column of the `features` table, and `edges`, the graph as
`<from><to>:<attacker>><target>:<kind>` items joined by `;`, ordered by (from, to).
"""

import argparse
import csv
import io
import itertools
import os
import random
import shutil
import subprocess
import sys

import chess

SEED = 20240601
SAMPLE_SIZE = 150

VALUE = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9,
         chess.KING: 0}
DEFENDER_WEIGHT = {chess.PAWN: 50, chess.KNIGHT: 35, chess.BISHOP: 30, chess.ROOK: 10,
                   chess.QUEEN: 4, chess.KING: 0}
PHASE = {chess.PAWN: 0, chess.KNIGHT: 1, chess.BISHOP: 1, chess.ROOK: 2, chess.QUEEN: 4,
         chess.KING: 0}
CENTER = [chess.D4, chess.E4, chess.D5, chess.E5]

COLUMNS = [
    "material", "total_material", "mobility_white", "mobility_black", "mobility",
    "center_control", "king_safety", "connectivity", "phase", "white_attacks",
    "black_attacks", "in_check", "hanging_white", "hanging_black", "threatened_white",
    "threatened_black", "king_attackers_white", "king_attackers_black",
    "doubled_pawns_white", "doubled_pawns_black", "isolated_pawns_white",
    "isolated_pawns_black", "passed_pawns_white", "passed_pawns_black",
]


def sign(color):
    return 1 if color == chess.WHITE else -1


def mobility_of(board, color):
    """Legal moves of `color` with `color` to move (a null move first if needed)."""
    if board.turn == color:
        return board.legal_moves.count()
    b = board.copy()
    b.push(chess.Move.null())
    return b.legal_moves.count()


def pieces(board, color):
    return [(sq, p) for sq, p in board.piece_map().items() if p.color == color]


def is_ahead(color, sq, other):
    """`other` is on a rank ahead of `sq` from `color`'s point of view."""
    if color == chess.WHITE:
        return chess.square_rank(other) > chess.square_rank(sq)
    return chess.square_rank(other) < chess.square_rank(sq)


def pawn_counts(board, color):
    own = list(board.pieces(chess.PAWN, color))
    enemy = list(board.pieces(chess.PAWN, not color))
    doubled = isolated = passed = 0
    for sq in own:
        f = chess.square_file(sq)
        if any(chess.square_file(o) == f and is_ahead(color, sq, o) for o in own if o != sq):
            doubled += 1
        if not any(abs(chess.square_file(o) - f) == 1 for o in own):
            isolated += 1
        if not any(abs(chess.square_file(e) - f) <= 1 and is_ahead(color, sq, e) for e in enemy):
            passed += 1
    return doubled, isolated, passed


def features(board):
    f = {}
    mat = {c: sum(VALUE[p.piece_type] for _, p in pieces(board, c)) for c in chess.COLORS}
    f["material"] = mat[chess.WHITE] - mat[chess.BLACK]
    f["total_material"] = mat[chess.WHITE] + mat[chess.BLACK]

    f["mobility_white"] = mobility_of(board, chess.WHITE)
    f["mobility_black"] = mobility_of(board, chess.BLACK)
    f["mobility"] = f["mobility_white"] - f["mobility_black"]

    f["center_control"] = sum(len(board.attackers(chess.WHITE, sq)) -
                              len(board.attackers(chess.BLACK, sq)) for sq in CENTER)

    ks = 0
    for color in chess.COLORS:
        king = board.king(color)
        near = [sq for sq in chess.SQUARES if chess.square_distance(sq, king) == 1]
        # Squares next to `color`'s king attacked by the enemy: good for the enemy.
        ks -= sign(color) * sum(1 for sq in near if board.is_attacked_by(not color, sq))
    f["king_safety"] = ks

    conn = 0
    for sq, piece in board.piece_map().items():
        for d in board.attackers(piece.color, sq):
            conn += sign(piece.color) * DEFENDER_WEIGHT[board.piece_type_at(d)]
    f["connectivity"] = conn

    f["phase"] = min(24, sum(PHASE[p.piece_type] for p in board.piece_map().values()))

    for color, name in [(chess.WHITE, "white_attacks"), (chess.BLACK, "black_attacks")]:
        f[name] = sum(1 << sq for sq in chess.SQUARES if board.is_attacked_by(color, sq))

    f["in_check"] = int(board.is_check())

    for color, name in [(chess.WHITE, "white"), (chess.BLACK, "black")]:
        hanging = threatened = attackers = 0
        enemy_king = board.king(not color)
        zone = {sq for sq in chess.SQUARES if chess.square_distance(sq, enemy_king) <= 1}
        for sq, piece in pieces(board, color):
            if piece.piece_type == chess.KING:
                continue
            enemy = board.attackers(not color, sq)
            if enemy and not board.attackers(color, sq):
                hanging += 1
            if any(board.piece_type_at(a) != chess.KING and
                   VALUE[board.piece_type_at(a)] < VALUE[piece.piece_type] for a in enemy):
                threatened += 1
            if any(t in zone for t in board.attacks(sq)):
                attackers += 1
        f["hanging_" + name] = hanging
        f["threatened_" + name] = threatened
        f["king_attackers_" + name] = attackers
        doubled, isolated, passed = pawn_counts(board, color)
        f["doubled_pawns_" + name] = doubled
        f["isolated_pawns_" + name] = isolated
        f["passed_pawns_" + name] = passed
    return f


def edges(board):
    out = []
    for sq in sorted(board.piece_map()):
        piece = board.piece_at(sq)
        for to in sorted(board.attacks(sq)):
            target = board.piece_at(to)
            if target is None:
                continue
            kind = "defend" if target.color == piece.color else "attack"
            out.append(f"{chess.square_name(sq)}{chess.square_name(to)}:"
                       f"{piece.symbol()}>{target.symbol()}:{kind}")
    return ";".join(out)


# ---------------------------------------------------------------------------------------
# Positions


def shakmaty_accepts(board):
    """python-chess's validity plus shakmaty's stricter checks (standard material counted
    with bishops per square color; at most one stepping checker)."""
    if not board.is_valid():
        return False
    for color in chess.COLORS:
        promoted = (max(0, len(board.pieces(chess.QUEEN, color)) - 1) +
                    max(0, len(board.pieces(chess.ROOK, color)) - 2) +
                    max(0, len(board.pieces(chess.KNIGHT, color)) - 2) +
                    max(0, len(board.pieces(chess.BISHOP, color) & chess.SquareSet(chess.BB_LIGHT_SQUARES)) - 1) +
                    max(0, len(board.pieces(chess.BISHOP, color) & chess.SquareSet(chess.BB_DARK_SQUARES)) - 1))
        if len(board.pieces(chess.PAWN, color)) + promoted > 8:
            return False
    checkers = board.checkers()
    steppers = [sq for sq in checkers
                if board.piece_type_at(sq) in (chess.PAWN, chess.KNIGHT, chess.KING)]
    return len(steppers) <= 1


def read_data_lines(path):
    if shutil.which("zstd"):
        data = subprocess.run(["zstd", "-dc", path], check=True, capture_output=True).stdout
    else:
        import zstandard
        with open(path, "rb") as fh:
            data = zstandard.ZstdDecompressor().stream_reader(fh).read()
    return data.decode().splitlines()


def sampled(path, rng):
    lines = read_data_lines(path)
    # Line numbers are 1-based in the file; line 1 is the header.
    picks = sorted(rng.sample(range(2, len(lines) + 1), SAMPLE_SIZE))
    for n in picks:
        fen = lines[n - 1].split(",")[0]
        yield f"sample:{n}", fen


# Hand-picked edge cases (label, FEN).
HAND_PICKED = [
    ("start", chess.STARTING_FEN),
    ("start black to move", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1"),
    # En passant.
    ("ep available", "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"),
    ("ep two capturers", "4k3/8/8/3PpP2/8/8/8/4K3 w - e6 0 1"),
    ("ep blocked by rank pin", "8/8/8/K2pP2q/8/8/8/7k w - d6 0 1"),
    ("ep blocked by diagonal pin", "4k3/8/8/2bpP3/8/8/8/K7 w - d6 0 1"),
    ("ep pawn pinned on file", "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1"),
    ("ep captures checking pawn", "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1"),
    ("ep square with black to move", "rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 2"),
    ("ep after null move is gone", "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1"),
    # Promotions.
    ("eight pawns on the 7th", "1n1q1b1r/PPPPPPPP/8/8/8/8/8/K1k5 w - - 0 1"),
    ("eight pawns on the 7th, black to move", "1n1q1b1r/PPPPPPPP/8/8/8/8/8/K1k5 b - - 0 1"),
    ("black pawns on the 2nd", "K1k5/8/8/8/8/8/pppppppp/R1B1Q1N1 b - - 0 1"),
    ("black pawns on the 2nd, white to move", "K1k5/8/8/8/8/8/pppppppp/R1B1Q1N1 w - - 0 1"),
    ("promotion with capture", "r1r1k3/1P6/8/8/8/8/8/4K3 w - - 0 1"),
    ("under-promotion gives check", "8/5P1k/8/8/8/8/8/K7 w - - 0 1"),
    ("pinned pawn cannot promote", "k3r3/4P3/8/8/8/8/8/4K3 w - - 0 1"),
    ("pinned pawn captures pinner promoting", "k6b/8/8/8/8/8/1p6/K7 w - - 0 1"),
    # Side to move in check; the other side may capture the king after the null move.
    ("queen check, king captures", "4k3/8/8/8/8/8/4q3/4K3 w - - 0 1"),
    ("pawn check from the 2nd", "6k1/8/8/8/8/8/5p2/4K3 w - - 0 1"),
    ("pawn check from the 7th", "4k3/3P4/8/8/8/8/8/4K3 b - - 0 1"),
    ("knight check", "4k3/8/8/8/8/3n4/8/4K3 w - - 0 1"),
    ("rook check on the file", "4k3/8/8/8/8/8/8/r3K3 w - - 0 1"),
    ("bishop check, blockable", "4k3/8/8/b7/8/8/8/4K1NR w K - 0 1"),
    ("double check knight and rook", "4k3/8/8/8/8/3n4/8/4K2r w - - 0 1"),
    ("double check bishop and rook", "4k3/8/8/8/7b/8/8/r3K3 w - - 0 1"),
    ("double check, black in check", "R3k3/8/3N4/8/8/8/8/4K3 b - - 0 1"),
    ("check with castling rights", "r3k2r/8/8/8/8/8/8/R3K1qR w KQkq - 0 1"),
    ("checkmate", "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"),
    ("stalemate", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"),
    ("smothered mate", "6rk/5Npp/8/8/8/8/8/6K1 b - - 0 1"),
    ("check by promoted queen", "3Qk3/8/8/8/8/8/8/4K3 b - - 0 1"),
    ("many captures of the checked king", "3k4/4P3/1N6/8/8/8/8/3QK2B b - - 0 1"),
    # Pins.
    ("pinned knight", "4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1"),
    ("pinned rook slides", "4k3/4q3/8/8/8/8/4R3/4K3 w - - 0 1"),
    ("pinned bishop on diagonal", "4k3/8/8/8/q7/8/2B5/3K4 w - - 0 1"),
    ("pinned pawn on diagonal", "4k3/8/8/8/b7/8/2P5/3K4 w - - 0 1"),
    ("pinned pieces of side not to move", "4k3/4r3/8/8/q7/8/2B1N3/3K4 b - - 0 1"),
    ("black pinned pieces, white to move", "3k4/2n1b3/8/Q7/4R3/8/8/4K3 w - - 0 1"),
    ("pinned queen", "4k3/4q3/8/8/8/8/8/4R1K1 b - - 0 1"),
    # Near-empty boards.
    ("K vs K", "8/8/8/4k3/8/8/8/4K3 w - - 0 1"),
    ("K vs K corner", "7k/8/8/8/8/8/8/K7 b - - 0 1"),
    ("KP vs K", "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1"),
    ("KP vs K, pawn on the 7th, black to move", "8/4P3/8/8/8/k7/8/4K3 b - - 0 1"),
    ("KP vs K, black pawn", "4k3/8/8/8/8/8/3p4/K7 w - - 0 1"),
    ("kings in opposition", "8/8/8/3k4/8/3K4/8/8 w - - 0 1"),
    # Lots of queens.
    ("four white queens, black in check", "QQQQ1k2/8/8/8/8/8/8/K7 b - - 0 1"),
    ("queens both sides", "q1q1q3/8/8/k7/3QQ3/3QQ3/8/K7 w - - 0 1"),
    ("nine queens", "QQQQQQQQ/8/8/8/8/8/2k5/Q3K3 b - - 0 1"),
    ("queens everywhere", "1q2q2k/8/2Q3Q1/8/q3Q2q/8/2Q3Q1/K3q3 w - - 0 1"),
    # Pawn structure.
    ("doubled, tripled, isolated", "4k3/8/8/8/2P5/2P1P3/2P1P2P/4K3 w - - 0 1"),
    ("passed pawns both sides", "4k3/1p3p2/8/P2p3P/8/2P5/8/4K3 w - - 0 1"),
    ("blocked and adjacent", "4k3/8/3p1p2/4P3/4p3/3P4/8/4K3 b - - 0 1"),
    ("doubled black pawns", "4k3/3ppp2/3p4/3p4/8/8/8/4K3 w - - 0 1"),
    # Threats and hanging pieces.
    ("pawn forks", "4k3/8/2n1b3/3P4/8/8/8/4K3 b - - 0 1"),
    ("rook attacked by bishop and knight", "4k3/8/8/3r4/8/2B1N3/8/4K3 w - - 0 1"),
    ("queen attacked by rook, king attacks", "4k3/8/8/8/8/8/3q4/3RK3 w - - 0 1"),
    ("everything hanging", "r3k2r/8/8/1n1b1q2/8/8/8/R3K2R w - - 0 1"),
]


def castling_cases():
    """Every combination of castling rights, both sides to move, and attacked paths."""
    base = "r3k2r/pppq1ppp/2n2n2/2b1p3/2B1P3/2N2N2/PPPQ1PPP/R3K2R"
    for n in range(16):
        for turn in "wb":
            rights = "".join(r for i, r in enumerate("KQkq") if n & (1 << i)) or "-"
            yield f"castling {rights} {turn}", f"{base} {turn} {rights} - 0 1"
    yield ("castling: f1 attacked, b1 attacked",
           "r3k2r/8/8/8/8/8/6b1/Rn2K2R w KQkq - 0 1")
    yield ("castling: d8 attacked, g8 attacked (black not to move)",
           "r3k2r/8/8/8/8/8/8/R2RK1R1 w Qkq - 0 1")
    yield ("castling: rook attacked only", "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1")
    yield ("castling: path blocked", "rn2k1nr/8/8/8/8/8/8/R2QKB1R w KQkq - 0 1")
    yield ("castling: white to move, black castling through attack",
           "r3k2r/8/8/8/2B5/8/8/4K3 w kq - 0 1")
    yield ("castling: c8 attacked by knight", "r3k2r/8/1N6/8/8/8/8/4K3 b kq - 0 1")


def random_placements(rng, count):
    """Random legal-looking positions with many pieces and checks."""
    pool = "QQQRRBBNNPPPPP"
    made = 0
    while made < count:
        board = chess.Board(None)
        squares = list(chess.SQUARES)
        rng.shuffle(squares)
        board.set_piece_at(squares.pop(), chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares.pop(), chess.Piece(chess.KING, chess.BLACK))
        for _ in range(rng.randint(2, 14)):
            sq = squares.pop()
            symbol = rng.choice(pool)
            color = rng.choice(chess.COLORS)
            if symbol == "P" and chess.square_rank(sq) in (0, 7):
                continue
            board.set_piece_at(sq, chess.Piece.from_symbol(symbol if color else symbol.lower()))
        board.turn = rng.choice(chess.COLORS)
        if shakmaty_accepts(board):
            made += 1
            yield f"random placement {made}", board.fen()


def random_games(rng, count):
    """Positions from random play from the start: castling, en passant, checks."""
    made = 0
    while made < count:
        board = chess.Board()
        for _ in range(rng.randint(4, 80)):
            moves = list(board.legal_moves)
            if not moves:
                break
            # Prefer checks, captures, castling and double pushes to reach rare cases.
            special = [m for m in moves if board.gives_check(m) or board.is_castling(m)
                       or board.is_capture(m) or m.promotion]
            board.push(rng.choice(special if special and rng.random() < 0.4 else moves))
        made += 1
        yield f"random game {made}", board.fen(en_passant="fen")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=os.path.join(root, "..", "shared", "data",
                                                       "positions-200k.csv.zst"))
    parser.add_argument("--out", default=os.path.join(root, "tests", "golden", "features.csv"))
    args = parser.parse_args()

    rng = random.Random(SEED)
    cases = list(sampled(args.data, rng))
    cases += HAND_PICKED
    cases += list(castling_cases())
    cases += list(random_placements(rng, 70))
    cases += list(random_games(rng, 40))

    rows = []
    seen = set()
    for source, fen in cases:
        board = chess.Board(fen)
        if not shakmaty_accepts(board):
            sys.exit(f"{source}: position {fen!r} is not valid")
        # Keep the en passant square as given (python-chess's default drops it unless a
        # legal capture exists, which would hide the "ep blocked by a pin" cases).
        fen = board.fen(en_passant="fen")
        key = " ".join(fen.split()[:4])
        if key in seen:
            continue
        seen.add(key)
        f = features(board)
        rows.append([source, fen] + [f[c] for c in COLUMNS] + [edges(board)])

    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["source", "fen"] + COLUMNS + ["edges"])
        w.writerows(rows)
    in_check = sum(1 for r in rows if r[2 + COLUMNS.index("in_check")])
    print(f"{len(rows)} positions ({in_check} with the side to move in check) -> {args.out}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
