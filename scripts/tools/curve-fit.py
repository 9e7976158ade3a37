#!/usr/bin/env python3
"""Where the learning curves of scripts/tools/nets-curve.sh lead: per architecture, the
test figure (τ for value networks, top-1 for the policy network) of each run at the same
number of epochs against log2 of its training positions, a least-squares line (numpy)
through the three largest runs (the curves bend, so the upper end says most about what
lies beyond), and the training positions at which that line would reach a target τ.

A straight line in log(positions) is the simplest reading of a curve that bends; it is
an estimate of the order of magnitude, not a promise, and it says nothing past the data's
own limits (the train part holds 1.6M positions).

    python3 scripts/tools/curve-fit.py DIR [--target TAU] [--rate ARCH=POSITIONS_PER_S ...]
"""

import argparse
import pathlib
import re

import numpy as np


def runs(folder):
    out = {}
    for log in sorted(pathlib.Path(folder).glob("*-[0-9]*.log")):
        arch, n = log.stem.rsplit("-", 1)
        text = log.read_text()
        test = re.search(r"test part: loss [0-9.]+(?:, τ ([0-9.]+))?(?:, top-1 ([0-9.]+) %)?", text)
        epochs = re.search(r"× (\d+) epochs", text)
        if not test or not epochs:
            continue
        tau, top1 = test.group(1), test.group(2)
        out.setdefault(arch, []).append(
            (int(n), int(epochs.group(1)), float(tau) if tau else None, float(top1) if top1 else None)
        )
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--target", type=float, help="τ to project to (e.g. the NNUE's on the same test part)")
    ap.add_argument("--epochs", type=int, default=2, help="use the runs of this many epochs")
    ap.add_argument("--rate", action="append", default=[], help="ARCH=training positions/s, for the time a projection would take")
    args = ap.parse_args()
    rates = dict(r.split("=") for r in args.rate)
    print("| arch | figure | training positions: test figure | per doubling (last three) | reaches the target at |")
    print("| --- | --- | --- | --- | --- |")
    for arch, rows in sorted(runs(args.dir).items()):
        rows = sorted(r for r in rows if r[1] == args.epochs)
        for figure, col in (("τ", 2), ("top-1 %", 3)):
            pts = sorted((r[0], r[col]) for r in rows if r[col] is not None)
            if len(pts) < 3:
                continue
            x = np.log2([n for n, _ in pts[-3:]])
            y = np.array([v for _, v in pts[-3:]])
            slope, intercept = np.polyfit(x, y, 1)
            where = ""
            if figure == "τ" and args.target and slope > 0:
                n = 2 ** ((args.target - intercept) / slope)
                where = f"{n / 1e6:.1f}M positions"
                if arch in rates:
                    hours = n * args.epochs / float(rates[arch]) / 3600
                    where += f" × {args.epochs} epochs, {hours:.0f} h at {rates[arch]}/s"
            shown = ", ".join(f"{n // 1000}k: {v:.3f}" if figure == "τ" else f"{n // 1000}k: {v:.1f}" for n, v in pts)
            step = f"{slope:+.3f}" if figure == "τ" else f"{slope:+.1f}"
            print(f"| {arch} | {figure} | {shown} | {step} | {where} |")


if __name__ == "__main__":
    main()
