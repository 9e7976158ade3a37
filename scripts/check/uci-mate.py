#!/usr/bin/env python3
"""`go mate N` over UCI on puzzle sets, every answer checked with python-chess.

Starts one UCI engine (default: target/release/chessgraph engine), and for every puzzle
sends `position fen ...` and `go mate N` (N from the EPD `dm` opcode, or from the length
of the solution in a PGN game with a FEN header). The returned best move is then checked
independently:

- for N <= --prove-max-n (default 3): plain minimax with python-chess proves that the move
  mates in at most N moves against every defence;
- for larger N (python minimax is too slow there): the engine must report `score mate k`
  with k <= N and a PV that is legal and ends in checkmate after at most 2N-1 plies.

Prints failures as they happen, then per set and N: checked/total, median and max wall
time per `go` (measured here, so process and pipe latency are included).

    cargo build --release
    python3 scripts/check/uci-mate.py ../shared/data/puzzles/mate-in-2-games.pgn \\
        ../shared/data/puzzles/composed-problems.epd
    python3 scripts/check/uci-mate.py --engine /usr/games/stockfish --movetime 1000 FILE

Exit status 1 if any puzzle failed. Needs `pip install chess` (python-chess).
"""

import argparse
import io
import os
import statistics
import sys
import time

import chess
import chess.engine
import chess.pgn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mateproof import mated  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHESSGRAPH = os.path.join(ROOT, "target", "release", "chessgraph")


def read_puzzles(path):
    """(label, board, n) for every mate problem in an EPD or PGN file."""
    out = []
    if path.endswith(".pgn"):
        with open(path, encoding="utf-8-sig") as f:
            text = f.read()
        stream = io.StringIO(text)
        index = 0
        while True:
            game = chess.pgn.read_game(stream)
            if game is None:
                break
            index += 1
            plies = sum(1 for _ in game.mainline_moves())
            if plies == 0:
                continue
            label = game.headers.get("Event", "") or f"game {index}"
            out.append((f"#{index} {label}", game.board(), (plies + 1) // 2))
        return out
    with open(path, encoding="utf-8-sig") as f:
        for line_no, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            board, ops = chess.Board.from_epd(line)
            if "dm" not in ops:
                continue
            label = f"line {line_no} {ops.get('id', '')}".strip()
            out.append((label, board, int(ops["dm"])))
    return out


def check(board, move, n, info, prove_max_n):
    """None if the answer is a correct mate in <= n, else the reason it is not."""
    if move is None or move not in board.legal_moves:
        return f"illegal or no move {move}"
    if n <= prove_max_n:
        b = board.copy()
        b.push(move)
        return None if mated(b, n) else f"{board.san(move)} does not mate in {n}"
    score = info.get("score")
    mate = score.relative.mate() if score is not None else None
    if mate is None or not 0 < mate <= n:
        return f"score {score}, not a mate in <= {n}"
    pv = info.get("pv") or []
    if not pv or pv[0] != move:
        return "pv does not start with the best move"
    b = board.copy()
    for m in pv:
        if m not in b.legal_moves:
            return f"illegal pv move {m}"
        b.push(m)
    if not b.is_checkmate() or len(pv) > 2 * n - 1:
        return f"pv of {len(pv)} plies does not end in mate within {n} moves"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", help="EPD (dm N) or PGN (FEN header + solution)")
    ap.add_argument("--engine", default=CHESSGRAPH + " engine", help="engine command line")
    ap.add_argument("--movetime", type=int, default=0,
                    help="also send movetime MS with go mate (default: none)")
    ap.add_argument("--prove-max-n", type=int, default=3,
                    help="prove answers by python-chess minimax up to this N (default 3)")
    ap.add_argument("--limit", type=int, default=0, help="only the first K puzzles of each file")
    args = ap.parse_args()

    engine = chess.engine.SimpleEngine.popen_uci(args.engine.split())
    failed = 0
    for path in args.files:
        puzzles = read_puzzles(path)
        if args.limit:
            puzzles = puzzles[: args.limit]
        by_n = {}
        for label, board, n in puzzles:
            engine.protocol.send_line("ucinewgame")
            limit = chess.engine.Limit(mate=n, time=args.movetime / 1000 if args.movetime else None)
            start = time.perf_counter()
            try:
                result = engine.play(board, limit, info=chess.engine.INFO_SCORE | chess.engine.INFO_PV)
                move, info = result.move, result.info
            except chess.engine.EngineError as e:
                move, info = None, {"error": str(e)}
            elapsed = time.perf_counter() - start
            why = check(board, move, n, info, args.prove_max_n)
            row = by_n.setdefault(n, {"ok": 0, "total": 0, "times": []})
            row["total"] += 1
            row["times"].append(elapsed)
            if why is None:
                row["ok"] += 1
            else:
                failed += 1
                print(f"FAIL {os.path.basename(path)} {label} #{n}: {why} ({board.fen()})", flush=True)
        print(f"== {os.path.basename(path)}: go mate N over UCI, {args.engine}"
              + (f", movetime {args.movetime} ms" if args.movetime else ""))
        print("    N  correct/total  median_ms     max_ms  (wall time per go, incl. latency)")
        all_ok = sum(r["ok"] for r in by_n.values())
        all_total = sum(r["total"] for r in by_n.values())
        all_times = [t for r in by_n.values() for t in r["times"]]
        for n in sorted(by_n):
            r = by_n[n]
            print(f"  {n:3d}  {r['ok']:6d}/{r['total']:<6d} {statistics.median(r['times'])*1000:10.2f} "
                  f"{max(r['times'])*1000:10.2f}")
        if all_times:
            print(f"  all  {all_ok:6d}/{all_total:<6d} {statistics.median(all_times)*1000:10.2f} "
                  f"{max(all_times)*1000:10.2f}")
        sys.stdout.flush()
    engine.quit()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
