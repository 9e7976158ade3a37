#!/usr/bin/env python3
"""Golden values for `chessgraph fit linear`, from an independent solver (numpy lstsq).

    python3 scripts/golden/fit.py make-fixture   # once: cut tests/fixtures/fit_linear.csv
    python3 scripts/golden/fit.py golden         # write tests/golden/fit_linear.json

make-fixture (needs python-chess and ../shared/data/positions-200k.csv.zst) picks 400
positions of the shared set that pass the graph-features study's filter (material = 0, total_material > 40,
centipawn evaluation) and computes their features with python-chess, following the
`features` column definitions in crates/store/migrations/0001_init.sql. The fit tests only need feature
values and evaluations that belong together, not chessgraph's own analyzer.

golden (needs numpy) fits eval_cp on intercept + mobility, center_control, king_safety,
connectivity by least squares (a) on all rows and (b) on the train part of chessgraph's split
with seed 1 (80/10/10, reimplemented below from crates/core/src/split.rs), with classical standard
errors sqrt(sigma^2 diag((X'X)^-1)), R^2 and RMSE.
"""

import csv
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURE = os.path.join(ROOT, "tests/fixtures/fit_linear.csv")
GOLDEN = os.path.join(ROOT, "tests/golden/fit_linear.json")
SHARED = os.path.join(ROOT, "../shared/data/positions-200k.csv.zst")
FEATURES = ["mobility", "center_control", "king_safety", "connectivity"]
COLUMNS = ["fen", "eval_cp", "material", "total_material"] + FEATURES
ROWS = 400

M64 = (1 << 64) - 1


def bucket(fen, seed):
    """crates/core/src/split.rs: splitmix64(fnv1a64(f"{seed}:{fen}")) % 100."""
    h = 0xCBF29CE484222325
    for b in f"{seed}:{fen}".encode():
        h ^= b
        h = (h * 0x100000001B3) & M64
    h = ((h ^ (h >> 30)) * 0xBF58476D1CE4E5B9) & M64
    h = ((h ^ (h >> 27)) * 0x94D049BB133111EB) & M64
    h ^= h >> 31
    return h % 100


def part(fen, seed=1, train=80, valid=10):
    b = bucket(fen, seed)
    return "train" if b < train else ("valid" if b < train + valid else "test")


def chess_features(board):
    """The fixture's feature values of a python-chess board (see crates/store/migrations/0001_init.sql)."""
    import chess

    values = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
    defender_weight = {chess.PAWN: 50, chess.KNIGHT: 35, chess.BISHOP: 30, chess.ROOK: 10,
                       chess.QUEEN: 4, chess.KING: 0}
    center = [chess.D4, chess.E4, chess.D5, chess.E5]

    def material(color):
        return sum(v * len(board.pieces(p, color)) for p, v in values.items())

    def mobility(color):
        b = board.copy(stack=False)
        b.turn = color
        b.ep_square = board.ep_square if color == board.turn else None
        return b.legal_moves.count()

    def king_zone_attacks(attacker):
        king = board.king(not attacker)
        return sum(1 for sq in chess.SquareSet(chess.BB_KING_ATTACKS[king])
                   if board.is_attacked_by(attacker, sq))

    def connectivity(color):
        total = 0
        for sq, piece in board.piece_map().items():
            if piece.color != color:
                continue
            for d in board.attackers(color, sq):
                total += defender_weight[board.piece_type_at(d)]
        return total

    mw, mb = material(chess.WHITE), material(chess.BLACK)
    return {
        "material": mw - mb,
        "total_material": mw + mb,
        "mobility": mobility(chess.WHITE) - mobility(chess.BLACK),
        "center_control": sum(len(board.attackers(chess.WHITE, s)) for s in center)
        - sum(len(board.attackers(chess.BLACK, s)) for s in center),
        "king_safety": king_zone_attacks(chess.WHITE) - king_zone_attacks(chess.BLACK),
        "connectivity": connectivity(chess.WHITE) - connectivity(chess.BLACK),
    }


def make_fixture():
    import chess

    text = subprocess.run(["zstd", "-dc", SHARED], check=True, capture_output=True).stdout
    reader = csv.reader(text.decode().splitlines())
    next(reader)
    candidates, seen = [], set()
    for fen, ev in reader:
        if ev.startswith("#"):
            continue
        board = chess.Board(fen)
        # Material only, cheaply: the study's filter.
        counts = {c: fen.split(" ")[0].count(c) for c in "PNBRQpnbrq"}
        mw = counts["P"] + 3 * counts["N"] + 3 * counts["B"] + 5 * counts["R"] + 9 * counts["Q"]
        mb = counts["p"] + 3 * counts["n"] + 3 * counts["b"] + 5 * counts["r"] + 9 * counts["q"]
        if mw != mb or mw + mb <= 40:
            continue
        key = " ".join(board.fen(en_passant="legal").split()[:4])
        if key in seen:
            continue
        seen.add(key)
        candidates.append((key, int(ev), board, mw, mb))
    step = len(candidates) // ROWS
    rows = []
    for key, ev, board, mw, mb in candidates[::step][:ROWS]:
        rows.append({"fen": key, "eval_cp": ev, **chess_features(board)})
    with open(FIXTURE, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    print(f"{FIXTURE}: {len(rows)} rows (of {len(candidates)} candidates)")


def ols(x, y):
    import numpy as np

    n, k = x.shape
    a = np.hstack([np.ones((n, 1)), x])
    beta, *_ = np.linalg.lstsq(a, y, rcond=None)
    resid = y - a @ beta
    sigma2 = resid @ resid / (n - k - 1)
    se = np.sqrt(sigma2 * np.diag(np.linalg.inv(a.T @ a)))
    return beta, se


def measures(beta, x, y):
    import numpy as np

    pred = beta[0] + x @ beta[1:]
    rss = float(((y - pred) ** 2).sum())
    tss = float(((y - y.mean()) ** 2).sum())
    return {"n": int(len(y)), "r2": 1 - rss / tss, "rmse": (rss / len(y)) ** 0.5}


def golden():
    import numpy as np

    with open(FIXTURE) as f:
        rows = list(csv.DictReader(f))
    x = np.array([[float(r[c]) for c in FEATURES] for r in rows])
    y = np.array([float(r["eval_cp"]) for r in rows])
    train = np.array([part(r["fen"]) == "train" for r in rows])

    def block(mask_fit):
        beta, se = ols(x[mask_fit], y[mask_fit])
        coefs = [{"name": name, "estimate": float(b), "std_error": float(s)}
                 for name, b, s in zip(["intercept"] + FEATURES, beta, se)]
        return beta, coefs

    beta_all, coefs_all = block(np.ones(len(y), bool))
    beta_tr, coefs_tr = block(train)
    out = {
        "features": FEATURES,
        "all_rows": {"coefficients": coefs_all, **measures(beta_all, x, y)},
        "split_seed_1": {
            "coefficients": coefs_tr,
            "train": measures(beta_tr, x[train], y[train]),
            "test": measures(beta_tr, x[~train], y[~train]),
        },
        # Self-check of the split hash, asserted in crates/core/src/split.rs too.
        "bucket_checks": {
            "start_seed_1": bucket("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", 1),
            "start_seed_2": bucket("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", 2),
            "empty_seed_1": bucket("8/8/8/8/8/8/8/8 w - -", 1),
        },
    }
    os.makedirs(os.path.dirname(GOLDEN), exist_ok=True)
    with open(GOLDEN, "w") as f:
        json.dump(out, f, indent=2)
        f.write("\n")
    print(f"{GOLDEN}: n={len(y)}, train={int(train.sum())}")
    for c in coefs_tr:
        print(f"  {c['name']:<15} {c['estimate']:>10.4f}  se {c['std_error']:.4f}")


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else "golden"
    {"make-fixture": make_fixture, "golden": golden}[cmd]()
