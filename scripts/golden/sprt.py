#!/usr/bin/env python3
"""Golden values for the SPRT statistics (crates/lab/src/arena/sprt.rs), computed independently in
pure Python with exact rational arithmetic.

    python3 scripts/golden/sprt.py     # writes tests/golden/sprt.json

For pentanomial counts (pairs scoring 0, 1/2, 1, 3/2, 2: LL, LD, DD+WL, WD, WW) and
hypotheses (elo0, elo1) in logistic Elo:

- llr: the generalized SPRT's log-likelihood ratio as the drift of a Brownian motion
  (M. Van den Bergh, "A Brownian approximation of the GSPRT", fishtest's GSPRT
  approximation): N / (2 var) * ((s - s0)^2 - (s - s1)^2), with s and var the mean and
  variance of a pair's score per game (0, 1/4, 1/2, 3/4, 1) over the frequencies, an
  empty class counted as 1/1000 (fishtest's regularization), N the regularized number of
  pairs, s_i = 1 / (1 + 10^(-elo_i / 400));
- llr_mle: for comparison, the exact GSPRT: N times the mean log ratio of the maximum
  likelihood distributions with expectation s1 and s0 (Van den Bergh, "support_MLE_
  multinomial", Proposition 1.1: p_i / (1 + x (a_i - s)), x solving the secular
  equation, found here by bisection);
- elo, elo_95: the Elo of the unregularized mean score and the half-width of its 95 %
  interval, s +- 1.96 sqrt(var / N) mapped to Elo.
"""

import json
import math
import os
from fractions import Fraction

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GOLDEN = os.path.join(ROOT, "tests/golden/sprt.json")

COUNTS = [
    [0, 0, 10, 0, 0],
    [1, 2, 3, 4, 5],
    [5, 4, 3, 2, 1],
    [10, 40, 100, 45, 12],
    [120, 980, 2400, 1050, 130],
    [0, 3, 20, 9, 1],
    [2, 0, 0, 0, 9],
    [0, 0, 0, 1, 0],
    [37, 310, 822, 305, 41],
    [1, 25, 50, 30, 3],
    [0, 0, 4, 10, 30],
]
HYPOTHESES = [(0, 5), (0, 10), (-3, 1), (0, 2), (-10, 0)]


def expected(elo):
    return 1 / (1 + 10 ** (-elo / 400))


def moments(counts, floor):
    r = [max(Fraction(c), floor) for c in counts]
    n = sum(r)
    mean = sum(c * Fraction(i, 4) for i, c in enumerate(r)) / n
    var = sum(c * (Fraction(i, 4) - mean) ** 2 for i, c in enumerate(r)) / n
    return n, mean, var


def llr(counts, elo0, elo1):
    n, s, var = moments(counts, Fraction(1, 1000))
    s, var, n = float(s), float(var), float(n)
    s0, s1 = expected(elo0), expected(elo1)
    return n / (2 * var) * ((s - s0) ** 2 - (s - s1) ** 2)


def mle(pdf, s):
    """The distribution on the same values closest (in likelihood) to pdf with mean s."""
    a = [v - s for v, _ in pdf]
    lo, hi = -1 / max(a) + 1e-12, -1 / min(a) - 1e-12

    def f(x):
        return sum(p * ai / (1 + x * ai) for ai, (_, p) in zip(a, pdf))

    for _ in range(200):  # f decreases on (lo, hi)
        mid = (lo + hi) / 2
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    x = (lo + hi) / 2
    return [p / (1 + x * ai) for ai, (_, p) in zip(a, pdf)]


def llr_mle(counts, elo0, elo1):
    r = [max(c, 1e-3) for c in counts]
    n = sum(r)
    pdf = [(i / 4, c / n) for i, c in enumerate(r)]
    p0, p1 = mle(pdf, expected(elo0)), mle(pdf, expected(elo1))
    return n * sum(p * (math.log(b) - math.log(a)) for (_, p), a, b in zip(pdf, p0, p1))


def to_elo(s):
    return -400 * math.log10(1 / s - 1) if 0 < s < 1 else None


def elo(counts):
    n, s, var = moments(counts, Fraction(0))
    s, se = float(s), math.sqrt(float(var) / float(n))
    lo, hi = to_elo(s - 1.96 * se), to_elo(s + 1.96 * se)
    half = (hi - lo) / 2 if lo is not None and hi is not None else None
    return to_elo(s), half


def main():
    cases = []
    for counts in COUNTS:
        e, e95 = elo(counts)
        for elo0, elo1 in HYPOTHESES:
            cases.append(
                {
                    "counts": counts,
                    "elo0": elo0,
                    "elo1": elo1,
                    "llr": llr(counts, elo0, elo1),
                    "llr_mle": llr_mle(counts, elo0, elo1),
                    "elo": e,
                    "elo_95": e95,
                }
            )
    bounds = {
        f"{a},{b}": [math.log(b / (1 - a)), math.log((1 - b) / a)]
        for a, b in [(0.05, 0.05), (0.05, 0.1), (0.01, 0.02)]
    }
    with open(GOLDEN, "w") as f:
        json.dump({"cases": cases, "bounds": bounds}, f, indent=1)
        f.write("\n")
    print(f"wrote {len(cases)} cases to {GOLDEN}")


if __name__ == "__main__":
    main()
