#!/usr/bin/env python3
"""What Kendall tau a strong hand-crafted evaluator reaches on the same held-out positions:
Stockfish 15.1's classical evaluation (its last hand-crafted one, removed in 16) and its NNUE,
static and after short searches, against the labels, next to ours. It bounds what a tapered
linear evaluator can be expected to reach.

  chessgraph rate evaluator --evaluator reports/evaluator.json --output /tmp/test.csv
  python3 scripts/strength/stockfish-tau.py /tmp/test.csv [SAMPLE] [DEPTH ...]

Static evaluations use every cp-labelled row not in check (Stockfish's `eval` gives none in
check); searches use a seeded sample (default 2000). Needs python-chess, scipy and
/usr/games/stockfish (Debian's stockfish 15.1).
"""
import csv
import random
import subprocess
import sys

import chess
import chess.engine
from scipy.stats import kendalltau

STOCKFISH = "/usr/games/stockfish"


def static_evals(fens):
    """Stockfish's `eval` for each FEN: (classical, nnue, final) in pawns, White's view."""
    proc = subprocess.Popen([STOCKFISH], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    proc.stdin.write("uci\nisready\n")
    out = []
    for fen in fens:
        proc.stdin.write(f"position fen {fen}\neval\nisready\n")
        vals = {}
        while True:
            line = proc.stdout.readline()
            if line.startswith("readyok") and vals.get("done"):
                break
            if line.startswith("readyok"):
                vals["done"] = False
                continue
            for key in ("Classical", "NNUE", "Final"):
                if line.startswith(key + " evaluation"):
                    tok = line.split()[2]
                    vals[key] = None if tok == "none" else float(tok)
            if line.startswith("Final evaluation"):
                vals["done"] = True
        out.append((vals.get("Classical"), vals.get("NNUE"), vals.get("Final")))
    proc.stdin.write("quit\n")
    proc.wait()
    return out


def tau(xs, ys):
    return kendalltau(xs, ys)[0]


def main():
    path = sys.argv[1]
    sample = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    depths = [int(d) for d in sys.argv[3:]] or [1, 4, 8]
    rows = [r for r in csv.DictReader(open(path)) if r["label"] and not r["label"].startswith("#")]
    rows = [r for r in rows if not chess.Board(r["fen"]).is_check()]
    print(f"{len(rows)} cp-labelled positions not in check")
    ev = static_evals([r["fen"] for r in rows])
    keep = [(r, e) for r, e in zip(rows, ev) if None not in e]
    labels = [int(r["label"]) for r, _ in keep]
    print(f"{len(keep)} with a Stockfish static evaluation")
    print(f"  ours static          {tau([int(r['static']) for r, _ in keep], labels):.4f}")
    print(f"  ours after qsearch   {tau([int(r['qsearch']) for r, _ in keep], labels):.4f}")
    for i, name in enumerate(["SF classical static", "SF NNUE static", "SF hybrid static"]):
        print(f"  {name:20} {tau([e[i] for _, e in keep], labels):.4f}")

    random.seed(1)
    part = random.sample(keep, min(sample, len(keep)))
    labels = [int(r["label"]) for r, _ in part]
    print(f"search sample: {len(part)} positions; ours after qsearch "
          f"{tau([int(r['qsearch']) for r, _ in part], labels):.4f}")
    for nnue in (False, True):
        engine = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
        engine.configure({"Use NNUE": nnue, "Threads": 1, "Hash": 64})
        try:
            for depth in depths:
                scores = []
                for r, _ in part:
                    info = engine.analyse(chess.Board(r["fen"]), chess.engine.Limit(depth=depth))
                    scores.append(info["score"].white().score(mate_score=20000))
                kind = "NNUE" if nnue else "classical"
                print(f"  SF {kind:9} depth {depth:2}: {tau(scores, labels):.4f}", flush=True)
        finally:
            engine.quit()


if __name__ == "__main__":
    main()
