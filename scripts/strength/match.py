#!/usr/bin/env python3
"""Fast-game match runner with an independent referee (python-chess).

Plays games between two UCI engines with a real clock (time + increment, measured by
this script around each `go`, so process latency counts against the engine) and counts
illegal moves, time losses and results. Openings: start positions drawn from
tests/fixtures/eval-positions-2k.csv with |evaluation| <= 80 cp; each opening is played
twice with colours swapped.

Examples:
  cargo build --release
  python3 scripts/strength/match.py --games 100                        # chessgraph vs chessgraph
  python3 scripts/strength/match.py --games 40 --tc 1+0.01 \\
      --engine2 /usr/games/stockfish --engine2-option "Skill Level=0"
  python3 scripts/strength/match.py --games 20 --movetime 100          # 100 ms per move
  python3 scripts/strength/match.py --games 100 --tc 40/2               # 2 s per 40 moves, repeating
  python3 scripts/strength/match.py --games 100 --tc 2+0                # sudden death, no increment

Adjudication only when asked, and only where the result is certain: --syzygy DIR ends a
game the 3-4-piece tables cover with their outcome (the halfmove clock counted), --draw
ends it as a draw once both engines' scores stay level (fastchess style: from move 40, 8
moves of each side within +-10 cp, no capture or pawn move), --max-plies at a ply limit.
Without them every game is played out.

Exit status 1 if any illegal move, time loss or engine failure happened.
Needs `pip install chess` (python-chess).
"""

import argparse
import csv
import os
import random
import sys
import time

import chess
import chess.engine
import chess.syzygy

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHESSGRAPH = os.path.join(ROOT, "target", "release", "chessgraph")


def parse_options(items):
    opts = {}
    for item in items or []:
        name, _, value = item.partition("=")
        opts[name] = value
    return opts


def openings(n, seed):
    path = os.path.join(ROOT, "tests", "fixtures", "eval-positions-2k.csv")
    fens = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            ev = row["Evaluation"]
            if ev.startswith("#"):
                continue
            board = chess.Board(row["FEN"])
            if abs(int(ev)) <= 80 and not board.is_game_over() and board.fullmove_number <= 30:
                fens.append(row["FEN"])
    rng = random.Random(seed)
    rng.shuffle(fens)
    return fens[: (n + 1) // 2]


def engine_command(spec):
    if spec == "chessgraph":
        return [CHESSGRAPH, "engine"]
    if spec.startswith("chessgraph:"):
        return [CHESSGRAPH, "engine", "--evaluator", spec.split(":", 1)[1]]
    return [spec]


def tablebase_result(tables, board):
    """The certain result of a position the tables cover, or None (see chessgraph's
    Tablebases::outcome: a win whose zeroing move the fifty-move rule may come first is a
    draw; one DTZ ply of rounding is allowed for)."""
    if tables is None or chess.popcount(board.occupied) > 4 or board.castling_rights:
        return None
    try:
        wdl = tables.probe_wdl(board)
        if abs(wdl) < 2:
            return "1/2-1/2"
        plies = abs(tables.probe_dtz(board)) + board.halfmove_clock
    except (KeyError, chess.syzygy.MissingTableError):
        return None
    if plies > 100:
        return "1/2-1/2"
    if plies + 1 > 100:
        return None
    return "1-0" if (wdl > 0) == (board.turn == chess.WHITE) else "0-1"


def level(args, board, scores):
    """The draw rule: enough moves played and the last 2 * movecount plies quiet (the
    halfmove clock) with every score a centipawn score within +-score."""
    if not args.draw:
        return False
    window = 2 * args.draw["movecount"]
    if len(scores) < max(window, 2 * args.draw["movenumber"]) or board.halfmove_clock < window:
        return False
    return all(s is not None and abs(s) <= args.draw["score"] for s in scores[-window:])


def play(engines, names, fen, args, stats, game_id):
    """engines[0] plays White. Returns (result, reason)."""
    board = chess.Board(fen)
    clock = [args.base, args.base]  # seconds, index 0 = White
    made = [0, 0]  # moves made by each side, for moves-to-go time controls
    game_plies = 0
    scores = []  # each move's reported score, mover's view (None: mate or none)
    while True:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            return outcome.result(), outcome.termination.name.lower()
        tb = tablebase_result(args.tables, board)
        if tb is not None:
            return tb, "tablebase"
        if level(args, board, scores):
            return "1/2-1/2", "draw rule"
        if args.max_plies and game_plies >= args.max_plies:
            return "1/2-1/2", "ply cap"
        side = 0 if board.turn == chess.WHITE else 1
        eng = engines[side]
        if args.movetime:
            limit = chess.engine.Limit(time=args.movetime / 1000)
        else:
            limit = chess.engine.Limit(
                white_clock=max(clock[0], 0.001),
                black_clock=max(clock[1], 0.001),
                white_inc=args.inc,
                black_inc=args.inc,
                remaining_moves=(args.mtg - made[side] % args.mtg) if args.mtg else None,
            )
        start = time.perf_counter()
        try:
            # A new `game` key makes python-chess send ucinewgame.
            result = eng.play(board, limit, game=game_id, info=chess.engine.INFO_SCORE)
        except chess.engine.EngineTerminatedError as e:
            # (A subclass of EngineError: caught first.)
            stats["crash"] += 1
            print(f"  CRASH of {names[side]}: {e} in {board.fen()}", flush=True)
            return ("0-1" if side == 0 else "1-0"), "engine crash"
        except chess.engine.EngineError as e:
            # python-chess raises on an illegal or missing best move.
            stats["illegal"] += 1
            print(f"  ILLEGAL/engine error by {names[side]}: {e} in {board.fen()}", flush=True)
            return ("0-1" if side == 0 else "1-0"), "illegal move"
        elapsed = time.perf_counter() - start
        stats["moves"][side] += 1
        stats["max_think"][names[side]] = max(stats["max_think"].get(names[side], 0.0), elapsed)
        if args.movetime:
            over = elapsed - args.movetime / 1000
            if over > args.movetime_slack / 1000:
                stats["late"] += 1
                print(f"  LATE: {names[side]} took {elapsed*1000:.1f} ms", flush=True)
        else:
            clock[side] -= elapsed
            if clock[side] < 0:
                stats["timeloss"] += 1
                print(
                    f"  TIME LOSS by {names[side]} ({clock[side]*1000:.1f} ms) in {board.fen()}",
                    flush=True,
                )
                return ("0-1" if side == 0 else "1-0"), "time forfeit"
            clock[side] += args.inc
            made[side] += 1
            if args.mtg and made[side] % args.mtg == 0:
                clock[side] += args.base  # next time control
            stats["min_clock"][names[side]] = min(
                stats["min_clock"].get(names[side], 1e9), clock[side]
            )
        if result.move is None or result.move not in board.legal_moves:
            stats["illegal"] += 1
            print(f"  ILLEGAL move {result.move} by {names[side]} in {board.fen()}", flush=True)
            return ("0-1" if side == 0 else "1-0"), "illegal move"
        score = result.info.get("score")
        scores.append(None if score is None else score.relative.score())
        board.push(result.move)
        game_plies += 1


def main():
    global CHESSGRAPH
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--tc", default="1+0.01",
                    help="[MOVES/]BASE[+INC] in seconds: 1+0.01 (default), 2+0, 40/2 (2 s per 40 moves, "
                         "repeating; sent as movestogo)")
    ap.add_argument("--movetime", type=int, default=0, help="fixed ms per move instead of a clock")
    ap.add_argument("--movetime-slack", type=int, default=50,
                    help="ms beyond movetime counted as late (default 50)")
    ap.add_argument("--engine1", default="chessgraph", help="chessgraph[:EVALUATOR] or a path")
    ap.add_argument("--engine2", default="chessgraph")
    ap.add_argument("--engine1-option", action="append", help="NAME=VALUE UCI option")
    ap.add_argument("--engine2-option", action="append")
    ap.add_argument("--max-plies", type=int, default=0,
                    help="adjudicate a draw at this many plies (default 0: no limit)")
    ap.add_argument("--syzygy", help="adjudicate positions these Syzygy tables cover")
    ap.add_argument("--draw", nargs="?", const="", default=None,
                    help="draw rule movenumber=40,movecount=8,score=10 (these values when given bare)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--chessgraph", default=CHESSGRAPH,
                    help="chessgraph binary for the chessgraph specs (default target/release/chessgraph)")
    args = ap.parse_args()
    CHESSGRAPH = os.path.abspath(args.chessgraph)
    args.tables = chess.syzygy.open_tablebase(args.syzygy) if args.syzygy else None
    if args.draw is not None:
        rule = {"movenumber": 40, "movecount": 8, "score": 10}
        for item in filter(None, (i.strip() for i in args.draw.split(","))):
            key, _, value = item.partition("=")
            if key not in rule or not value.isdigit():
                ap.error(f"--draw: bad item {item!r} (expected like movenumber=40,movecount=8,score=10)")
            rule[key] = int(value)
        args.draw = rule
    mtg, _, rest = args.tc.rpartition("/")
    args.mtg = int(mtg) if mtg else 0
    base, _, inc = rest.partition("+")
    args.base, args.inc = float(base), float(inc or 0)

    specs = [args.engine1, args.engine2]
    names = [f"{s}#1" for s in [specs[0]]] + [f"{specs[1]}#2"]
    option_lists = [args.engine1_option, args.engine2_option]

    def start(k):
        e = chess.engine.SimpleEngine.popen_uci(engine_command(specs[k]))
        o = parse_options(option_lists[k])
        if o:
            e.configure(o)
        return e

    engines = [start(0), start(1)]

    stats = {"illegal": 0, "timeloss": 0, "crash": 0, "late": 0, "moves": [0, 0],
             "max_think": {}, "min_clock": {}}
    score = {names[0]: 0.0, names[1]: 0.0}
    reasons = {}
    by_result = {"1-0": 0, "0-1": 0, "1/2-1/2": 0}
    fens = openings(args.games, args.seed)
    t0 = time.time()
    played = 0
    for i in range(args.games):
        fen = fens[i // 2 % len(fens)]
        white = i % 2  # alternate colours on the same opening
        order = [white, 1 - white]
        res, why = play([engines[order[0]], engines[order[1]]],
                        [names[order[0]], names[order[1]]], fen, args, stats, i)
        played += 1
        if why == "engine crash":
            # Replace the dead process(es) so that the remaining games still count.
            for k in range(2):
                try:
                    engines[k].ping()
                except Exception:
                    try:
                        engines[k].close()
                    except Exception:
                        pass
                    engines[k] = start(k)
        reasons[why] = reasons.get(why, 0) + 1
        by_result[res] += 1
        if res == "1-0":
            score[names[order[0]]] += 1
        elif res == "0-1":
            score[names[order[1]]] += 1
        else:
            score[names[0]] += 0.5
            score[names[1]] += 0.5
        print(f"game {i+1:4d}: {names[order[0]]} - {names[order[1]]} {res} ({why})  "
              f"score {score[names[0]]}-{score[names[1]]}", flush=True)
    for e in engines:
        e.quit()
    dt = time.time() - t0
    print("=" * 60)
    print(f"games {played}, {dt:.0f} s; tc {'movetime %d ms' % args.movetime if args.movetime else args.tc}")
    print(f"score {names[0]} {score[names[0]]} : {score[names[1]]} {names[1]}")
    print(f"results: white wins {by_result['1-0']}, black wins {by_result['0-1']}, "
          f"draws {by_result['1/2-1/2']}")
    print(f"terminations {reasons}")
    print(f"moves played {sum(stats['moves'])}; illegal {stats['illegal']}; "
          f"time losses {stats['timeloss']}; crashes {stats['crash']}; late {stats['late']}")
    print("max think time (ms): " + ", ".join(f"{k} {v*1000:.1f}" for k, v in stats["max_think"].items()))
    if stats["min_clock"]:
        print("lowest clock after a move (ms): "
              + ", ".join(f"{k} {v*1000:.1f}" for k, v in stats["min_clock"].items()))
    bad = stats["illegal"] + stats["timeloss"] + stats["crash"] + stats["late"]
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
