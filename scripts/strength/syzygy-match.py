#!/usr/bin/env python3
"""Tablebase conversion match: chessgraph with the Syzygy tables against Stockfish.

Draws won 3- and 4-piece starts (seeded, placed as scripts/golden/syzygy.py places its
positions; the winner to move, a win python-chess's prober calls a win under the
fifty-move rule, WDL +2, the halfmove clock 0; without pawns at least MIN_DTZ plies from
the next capture, since a pawn move resets the count at once), gives chessgraph
(`SyzygyPath` set) the winning side and Stockfish the defence, and plays each game out
under a real clock with python-chess as the referee (fifty-move rule and threefold
repetition end a game as a draw at once).
Every game must end in a win for chessgraph; the script prints each failure, a table per
material (games, wins, plies to mate, the longest), the engine's `tbhits`, and exits 1 if
any game was not won.

Usage: python3 scripts/strength/syzygy-match.py [--games 100] [--tc 2+0.02] [--seed 1]
         [--engine target/release/chessgraph] [--stockfish /usr/games/stockfish]
Needs python-chess, Stockfish (Debian's `stockfish`) and ../shared/data/syzygy.
"""

import argparse
import os
import random
import sys
import time
from collections import defaultdict

import chess
import chess.engine
import chess.syzygy

import importlib.util
import pathlib

# The random placement of the golden probes (scripts/golden/syzygy.py).
_spec = importlib.util.spec_from_file_location(
    "golden_syzygy", pathlib.Path(__file__).parent.parent / "golden" / "syzygy.py")
golden_syzygy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(golden_syzygy)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TABLES = os.path.join(ROOT, "..", "shared", "data", "syzygy")
# Materials where the stronger side usually wins: a random legal placement of these is a
# win often enough to sample quickly (KRvKB, KNNvK and the like are mostly draws).
MATERIALS = ["KQvK", "KRvK", "KPvK", "KQvKR", "KQvKB", "KQvKN", "KQvKP", "KRvKP",
             "KBNvK", "KBBvK", "KPPvK", "KRPvK", "KBPvK", "KNPvK", "KPvKP", "KQvKQ"]
MIN_DTZ = 10


def random_start(rng, tb, material):
    """A random legal position of `material` (scripts/golden/syzygy.py's draw: either side to
    move), won for the side to move (WDL +2) and, without pawns, at least MIN_DTZ plies
    from a capture."""
    min_dtz = 1 if "P" in material else MIN_DTZ
    for _ in range(100_000):
        board = golden_syzygy.random_position(rng, material)
        if tb.probe_wdl(board) == 2 and tb.probe_dtz(board) >= min_dtz:
            return board
    raise RuntimeError(f"no won start of {material} found")


class Clock:
    def __init__(self, base, inc):
        self.left = {chess.WHITE: base, chess.BLACK: base}
        self.inc = inc

    def limit(self):
        return chess.engine.Limit(white_clock=self.left[chess.WHITE], black_clock=self.left[chess.BLACK],
                                  white_inc=self.inc, black_inc=self.inc)


def play(board, winner_engine, defender, winner, tc):
    """Plays one game; returns (result for the winner: 'win'/'draw'/'loss'/'fault', why,
    plies, the engine's largest tbhits)."""
    base, inc = tc
    clock = Clock(base, inc)
    tbhits = 0
    plies = 0
    while True:
        if board.is_checkmate():
            return ("win" if board.turn != winner else "loss"), "checkmate", plies, tbhits
        if board.is_stalemate() or board.is_insufficient_material():
            return "draw", "stalemate" if board.is_stalemate() else "insufficient material", plies, tbhits
        if board.halfmove_clock >= 100:
            return "draw", "fifty-move rule", plies, tbhits
        if board.is_repetition(3):
            return "draw", "threefold repetition", plies, tbhits
        engine = winner_engine if board.turn == winner else defender
        started = time.monotonic()
        try:
            result = engine.play(board, clock.limit(), info=chess.engine.INFO_ALL)
        except chess.engine.EngineError as e:
            return "fault", f"engine error: {e}", plies, tbhits
        spent = time.monotonic() - started
        clock.left[board.turn] -= spent
        if clock.left[board.turn] < 0:
            return "fault", f"{'chessgraph' if engine is winner_engine else 'stockfish'} lost on time", plies, tbhits
        clock.left[board.turn] += inc
        if engine is winner_engine:
            tbhits = max(tbhits, result.info.get("tbhits", 0))
        if result.move is None or result.move not in board.legal_moves:
            return "fault", f"illegal move {result.move}", plies, tbhits
        board.push(result.move)
        plies += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--tc", default="2+0.02", help="seconds+increment (default 2+0.02)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--engine", default=os.path.join(ROOT, "target", "release", "chessgraph"))
    ap.add_argument("--stockfish", default="/usr/games/stockfish")
    args = ap.parse_args()
    base, _, inc = args.tc.partition("+")
    tc = (float(base), float(inc or 0))

    rng = random.Random(args.seed)
    stats = defaultdict(lambda: {"games": 0, "wins": 0, "plies": []})
    failures = []
    tbhits_games = 0
    with chess.syzygy.open_tablebase(TABLES) as tb, \
            chess.engine.SimpleEngine.popen_uci([args.engine, "engine"]) as cg, \
            chess.engine.SimpleEngine.popen_uci(args.stockfish) as sf:
        cg.configure({"SyzygyPath": os.path.abspath(TABLES), "Hash": 16})
        sf.configure({"Threads": 1, "Hash": 16})
        started = time.monotonic()
        for i in range(args.games):
            material = MATERIALS[i % len(MATERIALS)]
            board = random_start(rng, tb, material)
            start_fen = board.fen()
            winner = board.turn
            dtz = tb.probe_dtz(board)
            outcome, why, plies, tbhits = play(board, cg, sf, winner, tc)
            tbhits_games += tbhits > 0
            s = stats[material]
            s["games"] += 1
            if outcome == "win":
                s["wins"] += 1
                s["plies"].append(plies)
            else:
                failures.append((start_fen, dtz, outcome, why, plies))
                print(f"not won: {start_fen} (DTZ {dtz}): {outcome}, {why} after {plies} plies",
                      file=sys.stderr)
            if (i + 1) % 10 == 0:
                print(f"{i + 1}/{args.games} games, {len(failures)} not won", file=sys.stderr)
        elapsed = time.monotonic() - started

    print(f"| material | games | won | mean plies to mate | longest |")
    print(f"|---|---|---|---|---|")
    for material in MATERIALS:
        s = stats.get(material)
        if not s or not s["games"]:
            continue
        p = s["plies"]
        mean = f"{sum(p) / len(p):.1f}" if p else "-"
        print(f"| {material} | {s['games']} | {s['wins']} | {mean} | {max(p) if p else '-'} |")
    won = sum(s["wins"] for s in stats.values())
    print(f"\n{won}/{args.games} won by chessgraph against {os.path.basename(args.stockfish)} at "
          f"{args.tc} (seed {args.seed}); {len(failures)} not won; chessgraph reported tbhits in "
          f"{tbhits_games} games; {elapsed:.0f} s")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
