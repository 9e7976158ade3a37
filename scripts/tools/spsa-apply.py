#!/usr/bin/env python3
"""Writes an SPSA tune's values into the search's constants as their new defaults:

    python3 scripts/tools/spsa-apply.py RUN/values.txt [--params crates/engine/src/search/params.rs]

`values.txt` is what `chessgraph tune spsa` writes (`name, value` a line, as OpenBench
prints a tune's result). Each value is rounded to the nearest integer and must lie in the
constant's range in params.rs; a name params.rs lacks is an error. The file is rewritten
in place and every change is printed (`name: old -> new`); then build, bench (the
signature changes) and test the build against the one before by SPRT (docs/tuning.md).
"""

import argparse
import math
import pathlib
import re
import sys

# `name = value, min..=max, c_end c;` inside the params! block.
LINE = re.compile(r"^\s*([a-z_][a-z0-9_]*) = (-?\d+), (-?\d+)\.\.=(-?\d+), c_end ")


def round_half_away(x):
    """Rounds as the tuner sends an integer option (Rust's `f64::round`): halves away
    from zero, where Python's `round` takes them to the even neighbour."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def read_values(path):
    values = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 2:
            sys.exit(f"{path}:{number}: expected `name, value`, found {line!r}")
        try:
            values[parts[0]] = round_half_away(float(parts[1]))
        except ValueError:
            sys.exit(f"{path}:{number}: {parts[1]!r} is not a number")
    return values


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("values", type=pathlib.Path)
    ap.add_argument(
        "--params",
        type=pathlib.Path,
        default=pathlib.Path("crates/engine/src/search/params.rs"),
    )
    args = ap.parse_args()
    values = read_values(args.values)
    lines = args.params.read_text().splitlines(keepends=True)
    seen = set()
    for i, line in enumerate(lines):
        m = LINE.match(line)
        if not m or m.group(1) not in values:
            continue
        name, (old, lo, hi) = m.group(1), map(int, m.group(2, 3, 4))
        new = values[name]
        if not lo <= new <= hi:
            sys.exit(f"{args.values}: {name} = {new} is outside {lo}..={hi}")
        seen.add(name)
        if new != old:
            lines[i] = line.replace(f"{name} = {old},", f"{name} = {new},", 1)
            print(f"{name}: {old} -> {new}")
    missing = sorted(set(values) - seen)
    if missing:
        sys.exit(f"{args.params}: no constant named {', '.join(missing)}")
    args.params.write_text("".join(lines))
    print(f"{len(seen)} constants read, {args.params} written")


if __name__ == "__main__":
    main()
