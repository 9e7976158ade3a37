#!/usr/bin/env python3
"""Golden values for `chessgraph train moves`, from an independent implementation
(python-chess for the games and the encoding, scikit-learn's LogisticRegression for the fit).

    python3 scripts/golden/moves.py make-fixture   # once: cut tests/fixtures/moves-games.pgn
    python3 scripts/golden/moves.py golden         # write tests/golden/fit_moves.json

make-fixture (needs python-chess and ../shared/data/games-200k.pgn.zst, read with zstdcat)
picks short games of the shared sample: 6 decisive games that land in the train part of
chessgraph's split, 3 that land in the held-out parts and one draw. No position after a
move repeats across the chosen games or within a decisive one, so every winner's move is
recoverable from the positions chessgraph stores (each position once, under the first game).

golden (needs numpy and scikit-learn) replays the fixture's games with python-chess and
builds the examples as the README describes `train moves`: in every position of a decisive
game where the winner is to move, the move played is a 1 and every other legal move a 0.
Columns (192), from the side to move's view (squares mirrored top to bottom when Black is
to move): the piece code per square (+1 pawn .. +6 king for the side to move, negative for
the opponent, 0 empty), the from-square one-hot and the to-square one-hot. The split is by
game, reimplemented from crates/core/src/split.rs (game key: first tag line, White, Black, Event,
Date, FEN tag). The fit is scikit-learn's L2 logistic regression with C = 1/alpha (the
objective sum(log-loss) + alpha/2 |w|^2, intercept not penalised), solver newton-cholesky
run to a gradient of ~1e-13 (lbfgs stops near 3e-4). It writes the example counts, the
weights, and log-loss, accuracy at 0.5, AUC and top-1 move accuracy per part (ties in
top-1: the higher promotion piece, then the smaller UCI string, as chessgraph).
"""

import io
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURE = os.path.join(ROOT, "tests/fixtures/moves-games.pgn")
GOLDEN = os.path.join(ROOT, "tests/golden/fit_moves.json")
SHARED = os.path.join(ROOT, "../shared/data/games-200k.pgn.zst")
SEED = 1
ALPHA = 1.0
M64 = (1 << 64) - 1


def bucket(key, seed):
    """crates/core/src/split.rs: splitmix64(fnv1a64(f"{seed}:{key}")) % 100."""
    h = 0xCBF29CE484222325
    for b in f"{seed}:{key}".encode():
        h ^= b
        h = (h * 0x100000001B3) & M64
    h = ((h ^ (h >> 30)) * 0xBF58476D1CE4E5B9) & M64
    h = ((h ^ (h >> 27)) * 0x94D049BB133111EB) & M64
    h ^= h >> 31
    return h % 100


def part(key, seed=SEED):
    b = bucket(key, seed)
    return "train" if b < 80 else ("valid" if b < 90 else "test")


def game_key(line, headers):
    """crates/core/src/split.rs game_key: the game's first tag line and tags."""
    fen = headers.get("FEN", "")
    return "game:{}|{}|{}|{}|{}|{}".format(
        line, headers.get("White", ""), headers.get("Black", ""), headers.get("Event", ""),
        headers.get("Date", ""), fen)


def split_games(text):
    """Cuts PGN text into (first line number, game text): a tag line after movetext starts
    the next game."""
    games, chunk, start, in_moves = [], [], None, False
    for i, line in enumerate(text.splitlines(keepends=True), start=1):
        s = line.strip()
        is_tag = s.startswith("[") and len(s) > 1 and s[1].isalpha()
        if is_tag and in_moves:
            games.append((start, "".join(chunk)))
            chunk, in_moves = [], False
        if not chunk:
            if not s:
                continue
            start = i
        if s and not is_tag:
            in_moves = True
        chunk.append(line)
    if chunk:
        games.append((start, "".join(chunk)))
    return games


def make_fixture():
    import chess
    import chess.pgn

    text = subprocess.run(["zstdcat", SHARED], check=True, capture_output=True).stdout.decode()
    want = {"train": 6, "held": 3, "draw": 1}
    chosen, seen, lines = [], set(), 1
    for _, chunk in split_games(text):
        game = chess.pgn.read_game(io.StringIO(chunk))
        result = game.headers.get("Result")
        plies = len(list(game.mainline_moves()))
        decisive = result in ("1-0", "0-1")
        if plies > 90:
            continue
        board = game.board()
        keys = []
        for m in game.mainline_moves():
            board.push(m)
            keys.append((board.board_fen(), board.turn))
        # A draw may repeat its own positions (none of its moves is an example).
        if (decisive and len(set(keys)) != len(keys)) or seen.intersection(keys):
            continue
        if decisive:
            p = part(game_key(lines, game.headers))
            slot = "train" if p == "train" else "held"
        else:
            slot = "draw"
        if want[slot] == 0:
            continue
        want[slot] -= 1
        seen.update(keys)
        body = chunk.strip() + "\n\n"
        chosen.append(body)
        lines += body.count("\n")
        if not any(want.values()):
            break
    if any(want.values()):
        sys.exit(f"not enough games: still want {want}")
    with open(FIXTURE, "w") as f:
        f.write("".join(chosen))
    print(f"wrote {FIXTURE}: {len(chosen)} games, {lines - 1} lines")


CODES = {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6}  # python-chess PAWN=1 .. KING=6


def oriented(square, turn):
    import chess

    return square if turn == chess.WHITE else chess.square_mirror(square)


def row(board, move):
    """The 192 columns of `move` in `board`, written from the definition."""
    import numpy as np

    x = np.zeros(192)
    for sq, piece in board.piece_map().items():
        code = CODES[piece.piece_type]
        x[oriented(sq, board.turn)] = code if piece.color == board.turn else -code
    x[64 + oriented(move.from_square, board.turn)] = 1.0
    x[128 + oriented(move.to_square, board.turn)] = 1.0
    return x


def examples():
    """Per part, a list of positions: (rows, index played, moves)."""
    import chess
    import chess.pgn

    parts = {"train": [], "valid": [], "test": []}
    games = {"decisive": 0, "train": 0, "valid": 0, "test": 0}
    with open(FIXTURE) as f:
        text = f.read()
    for line, chunk in split_games(text):
        game = chess.pgn.read_game(io.StringIO(chunk))
        result = game.headers.get("Result")
        if result not in ("1-0", "0-1"):
            continue
        winner = chess.WHITE if result == "1-0" else chess.BLACK
        p = part(game_key(line, game.headers))
        games["decisive"] += 1
        games[p] += 1
        board = game.board()
        for played in game.mainline_moves():
            if board.turn == winner:
                moves = list(board.legal_moves)
                rows = [row(board, m) for m in moves]
                parts[p].append((rows, moves.index(played), moves))
            board.push(played)
    return parts, games


def best(logits, moves):
    """Highest logit; ties: higher promotion piece, then the smaller UCI string."""
    key = lambda i: (logits[i], moves[i].promotion or 0, [-ord(c) for c in moves[i].uci()])
    return max(range(len(moves)), key=key)


def measure(positions, intercept, w):
    import numpy as np
    from sklearn.metrics import roc_auc_score

    y, p = [], []
    hits, random = 0, 0.0
    for rows, played, moves in positions:
        z = intercept + np.array(rows) @ w
        probs = 1.0 / (1.0 + np.exp(-z))
        y.extend(i == played for i in range(len(rows)))
        p.extend(probs)
        hits += best(list(z), moves) == played
        random += 1.0 / len(moves)
    y, p = np.array(y), np.array(p)
    eps = 1e-15
    pc = np.clip(p, eps, 1 - eps)
    n = len(positions)
    return {
        "positions": n,
        "examples": int(len(y)),
        "positive_rate": float(y.mean()),
        "log_loss": float(-np.mean(np.where(y, np.log(pc), np.log(1 - pc)))),
        "accuracy": float(np.mean(y == (p >= 0.5))),
        "auc": float(roc_auc_score(y, p)),
        "top1": hits / n,
        "top1_random": random / n,
    }


def golden():
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    parts, games = examples()
    train = parts["train"]
    held = parts["valid"] + parts["test"]
    x = np.array([r for rows, _, _ in train for r in rows])
    y = np.array([i == played for rows, played, _ in train for i in range(len(rows))])
    model = LogisticRegression(C=1.0 / ALPHA, solver="newton-cholesky", tol=1e-12, max_iter=1000)
    model.fit(x, y)
    w, b = model.coef_[0], float(model.intercept_[0])
    # Gradient of sum(log-loss) + alpha/2 |w|^2 at the solution: how close to the optimum.
    r = 1.0 / (1.0 + np.exp(-(x @ w + b))) - y
    grad = np.concatenate([[r.sum()], x.T @ r + ALPHA * w])
    out = {
        "source": "scripts/golden/moves.py (python-chess, scikit-learn LogisticRegression)",
        "alpha": ALPHA,
        "seed": SEED,
        "games": games,
        "n_train": int(len(y)),
        "n_test": int(sum(len(rows) for rows, _, _ in held)),
        "max_abs_gradient": float(np.abs(grad).max()),
        "intercept": b,
        "weights": [float(v) for v in w],
        "train": measure(train, b, w),
        "held_out": measure(held, b, w),
    }
    with open(GOLDEN, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(json.dumps({k: v for k, v in out.items() if k != "weights"}, indent=1))


if __name__ == "__main__":
    {"make-fixture": make_fixture, "golden": golden}[sys.argv[1] if len(sys.argv) > 1 else ""]()
