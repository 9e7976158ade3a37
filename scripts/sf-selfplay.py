#!/usr/bin/env python3
"""Stockfish self-play games made the way the shared data was made, for training networks.

The shared sets (shared/data/README.md) are Stockfish 15.1 self-play games from book
openings, each position labelled with the score of the search that chose its move. A network
learns the positions it is shown, so more positions of that kind are what the neural
evaluator needs (chessgraph's own games from random openings do not transfer; see the
README's "Neural evaluator"). This writes such games as PGN with Lichess `[%eval]` comments,
which `chessgraph import` reads as labelled positions.

Openings: the start positions (`[FEN]` tags) of the shared 699k set's games, each with
`--variants` (2) different random legal moves played (the shared sets do that for half their
games; the book starts alone would replay the shared games), minus those already used by
earlier output files (`--exclude`). Stockfish at a fixed node count,
one thread, `ucinewgame` before each game; draws by rule are claimed, 400-ply cap. A fixed-node
search is deterministic, so each start is played once (playing it again with colours swapped,
as `chessgraph match` does, repeats the game move for move).

Usage: scripts/sf-selfplay.py --out games.pgn [--nodes 5000] [--part 0 --parts 2]
       [--exclude old.pgn ...] [--engine /usr/games/stockfish] [--seed 1] [--variants 2]
Runs until every opening of its part is played; killed and run again with the same --out,
it skips the openings already in that file. Needs python-chess (pip install chess).
Speed on the 2-core machine: see scripts/nnue-data.sh.
"""
import argparse
import random
import re
import subprocess
import sys
import time

import chess
import chess.engine
import chess.pgn


def start_fens(shared_pgn):
    out = subprocess.run(["zstd", "-dc", shared_pgn], check=True, capture_output=True, text=True)
    return list(dict.fromkeys(re.findall(r'\[FEN "([^"]+)"\]', out.stdout)))


def used_fens(paths):
    seen = set()
    for p in paths:
        try:
            with open(p) as f:
                seen.update(re.findall(r'\[FEN "([^"]+)"\]', f.read()))
        except FileNotFoundError:
            pass
    return seen


def random_children(fen, k, rng):
    """FENs after `k` different random legal moves from `fen` (fewer if it has fewer), the
    game not over; drawn with `rng` (scripts/book-openings.py uses it too)."""
    board = chess.Board(fen)
    moves = list(board.legal_moves)
    out = []
    for m in rng.sample(moves, min(k, len(moves))):
        child = board.copy()
        child.push(m)
        if not child.is_game_over():
            out.append(child.fen())
    return out


def eval_comment(score):
    """Lichess style: pawns or #N, White's point of view."""
    if score.is_mate():
        return f"[%eval #{score.mate()}]"
    return f"[%eval {score.score() / 100:.2f}]"


def play(engine, fen, nodes, max_plies):
    board = chess.Board(fen)
    game = chess.pgn.Game()
    game.setup(board)
    node = game
    result = None
    for _ in range(max_plies):
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            result = outcome.result()
            break
        res = engine.play(board, chess.engine.Limit(nodes=nodes), info=chess.engine.INFO_SCORE,
                          game=fen)
        node = node.add_variation(res.move)
        if "score" in res.info:
            node.comment = eval_comment(res.info["score"].white())
        board.push(res.move)
    if result is None:
        outcome = board.outcome(claim_draw=True)
        result = outcome.result() if outcome else "1/2-1/2"
    game.headers["Event"] = f"Stockfish self-play, {nodes} nodes"
    game.headers["Result"] = result
    return game, board.ply()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--shared", default="../shared/data/selfplay-700k.pgn.zst")
    ap.add_argument("--exclude", nargs="*", default=[])
    ap.add_argument("--engine", default="/usr/games/stockfish")
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--max-plies", type=int, default=400)
    ap.add_argument("--part", type=int, default=0)
    ap.add_argument("--parts", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-games", type=int, default=0, help="stop after this many (0: all)")
    ap.add_argument("--variants", type=int, default=2, help="random first moves per book start")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    books = start_fens(args.shared)
    # Not the book starts themselves: Stockfish at the shared set's node count would replay
    # its games move for move. Each start with `--variants` different random legal moves.
    starts = [child for fen in books for child in random_children(fen, args.variants, rng)]
    skip = used_fens(args.exclude + [args.out])
    starts = [f for i, f in enumerate(starts) if i % args.parts == args.part and f not in skip]
    if args.max_games:
        starts = starts[: max(0, args.max_games - (len(used_fens([args.out]))))]
    print(f"{len(starts)} openings to play in part {args.part}/{args.parts}", file=sys.stderr)

    engine = chess.engine.SimpleEngine.popen_uci(args.engine)
    engine.configure({"Threads": 1, "Hash": 16})
    t0, plies = time.time(), 0
    with open(args.out, "a") as out:
        for i, fen in enumerate(starts, 1):
            game, n = play(engine, fen, args.nodes, args.max_plies)
            plies += n
            print(game, file=out, end="\n\n", flush=True)
            if i % 20 == 0:
                dt = time.time() - t0
                print(f"{i} games, {plies} positions, {plies / dt:.0f} positions/s",
                      file=sys.stderr, flush=True)
    engine.quit()


if __name__ == "__main__":
    main()
