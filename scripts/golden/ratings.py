#!/usr/bin/env python3
"""Golden values for the tournament rating fit (crates/learn/src/ratings/mod.rs), from
an independent solver (scipy).

    python3 scripts/golden/ratings.py     # writes tests/golden/tournament_ratings.json

Six players, A..F, with the win/draw/loss records below. A..E are strongly connected, so
their maximum-likelihood ratings are finite; F won every game (3 against A, 2 against B).

- ratings: maximise the Bradley-Terry log-likelihood on the Elo scale (a draw is half a
  win and half a loss) over A..E with scipy's BFGS (analytic gradient), then shift to
  mean 0;
- ci95: 1.96 sqrt(diag(pinv(I))), I the Fisher information of A..E (singular, null space
  the constant vector: its pseudo-inverse is the covariance of the mean-0 ratings);
- anchored: E fixed at 1500; ci95 from the inverse of I without E's row and column;
- f_lower: F's 95 % likelihood-ratio lower bound, 3 ln P(F beats A) + 2 ln P(F beats B)
  = -chi2(0.95, 1) / 2 with A and B at their mean-0 ratings (scipy brentq).
"""

import json
import os

import numpy as np
from scipy.optimize import brentq, minimize
from scipy.stats import chi2

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GOLDEN = os.path.join(ROOT, "tests/golden/tournament_ratings.json")

NAMES = ["A", "B", "C", "D", "E", "F"]
# (row, column, wins, draws, losses) of the row player.
RECORDS = [
    ("A", "B", 3, 2, 1),
    ("A", "C", 1, 4, 1),
    ("A", "D", 5, 1, 0),
    ("A", "E", 2, 0, 2),
    ("B", "C", 0, 3, 3),
    ("B", "D", 2, 2, 2),
    ("B", "E", 1, 1, 2),
    ("C", "D", 4, 0, 1),
    ("C", "E", 1, 2, 1),
    ("D", "E", 0, 1, 3),
    ("F", "A", 3, 0, 0),
    ("F", "B", 2, 0, 0),
]
C = np.log(10) / 400


def main():
    n = 5  # A..E
    points = np.zeros((n, n))
    games = np.zeros((n, n))
    for a, b, w, d, l in RECORDS:
        i, j = NAMES.index(a), NAMES.index(b)
        if i >= n or j >= n:
            continue
        points[i, j] += w + d / 2
        points[j, i] += l + d / 2
        games[i, j] += w + d + l
        games[j, i] += w + d + l

    def nll(free):
        r = np.concatenate([[0.0], free])
        p = 1 / (1 + 10 ** (-(r[:, None] - r[None, :]) / 400))
        return -np.sum(points * np.log(p))

    def grad(free):
        r = np.concatenate([[0.0], free])
        p = 1 / (1 + 10 ** (-(r[:, None] - r[None, :]) / 400))
        return -(C * (points - games * p).sum(axis=1))[1:]

    opt = minimize(nll, np.zeros(n - 1), jac=grad, method="BFGS", options={"gtol": 1e-13})
    assert np.abs(grad(opt.x)).max() < 1e-11, opt
    r = np.concatenate([[0.0], opt.x])
    r -= r.mean()
    p = 1 / (1 + 10 ** (-(r[:, None] - r[None, :]) / 400))
    w = C * C * games * p * (1 - p)
    info = np.diag(w.sum(axis=1)) - w
    ci = 1.96 * np.sqrt(np.diag(np.linalg.pinv(info)))
    e = NAMES.index("E")
    keep = [k for k in range(n) if k != e]
    cov = np.linalg.inv(info[np.ix_(keep, keep)])
    ci_anchored = np.zeros(n)
    ci_anchored[keep] = 1.96 * np.sqrt(np.diag(cov))
    anchored = r - r[e] + 1500

    target = -chi2.ppf(0.95, 1) / 2

    def f(x):
        ra, rb = r[0], r[1]
        return 3 * np.log(1 / (1 + 10 ** (-(x - ra) / 400))) + 2 * np.log(
            1 / (1 + 10 ** (-(x - rb) / 400))
        ) - target

    f_lower = brentq(f, -3000, 3000, xtol=1e-12)
    out = {
        "names": NAMES,
        "records": [list(rec) for rec in RECORDS],
        "ratings": [float(x) for x in r],
        "ci95": [float(x) for x in ci],
        "anchored_e_1500": [float(x) for x in anchored],
        "anchored_ci95": [float(x) for x in ci_anchored],
        "f_lower": float(f_lower),
    }
    with open(GOLDEN, "w") as fh:
        json.dump(out, fh)
        fh.write("\n")
    print(json.dumps({k: v for k, v in out.items() if k != "records"}, indent=1))


if __name__ == "__main__":
    main()
