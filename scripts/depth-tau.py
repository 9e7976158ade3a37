#!/usr/bin/env python3
"""How much of the gap to Stockfish's labels is tactics and how much evaluation knowledge:
Kendall tau-b of the engine's score at fixed depths against the labels, on a sample of the
positions `chessgraph eval --output` wrote (fen,static,qsearch,label).

  chessgraph eval --evaluator reports/evaluator.json --output /tmp/test.csv
  python3 scripts/depth-tau.py /tmp/test.csv reports/evaluator.json 1 2 4 6

Needs python-chess and scipy (an independent tau), and a release build.
"""
import csv
import os
import random
import sys

import chess
import chess.engine
from scipy.stats import kendalltau

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    path, evaluator, depths = sys.argv[1], sys.argv[2], [int(d) for d in sys.argv[3:]]
    rows = [r for r in csv.DictReader(open(path)) if r["label"] and not r["label"].startswith("#")]
    random.seed(1)
    rows = random.sample(rows, min(1500, len(rows)))
    labels = [int(r["label"]) for r in rows]
    print(f"{len(rows)} positions; tau static {kendalltau([int(r['static']) for r in rows], labels)[0]:.4f}, "
          f"after quiescence {kendalltau([int(r['qsearch']) for r in rows], labels)[0]:.4f}")
    engine = chess.engine.SimpleEngine.popen_uci(
        [os.path.join(ROOT, "target/release/chessgraph"), "engine", "--evaluator", evaluator])
    try:
        for depth in depths:
            scores = []
            for r in rows:
                info = engine.analyse(chess.Board(r["fen"]), chess.engine.Limit(depth=depth))
                scores.append(info["score"].white().score(mate_score=20000))
            print(f"depth {depth}: tau {kendalltau(scores, labels)[0]:.4f}")
    finally:
        engine.quit()


if __name__ == "__main__":
    main()
