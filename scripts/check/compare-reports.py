#!/usr/bin/env python3
"""Compares the deterministic parts of two report folders (the committed reports/ and a
fresh run of scripts/run-sample.sh): the tuned evaluator's weights and measures, the
heatmap numbers and pictures, and report.md without what a rerun changes by nature
(dates, times, speeds, the match). Prints each difference; exit status 1 if any.

Usage: scripts/check/compare-reports.py COMMITTED NEW
"""

import json
import os
import re
import sys

# Columns whose values are times or speeds, masked in report tables.
VOLATILE_COLUMNS = re.compile(r"(^date$|_ms$|^nps$|^time|^ms )")


def masked_report(path):
    """report.md's lines, with dates, times and the Matches section left out."""
    out, columns, section = [], None, None
    for line in open(path, encoding="utf-8").read().splitlines():
        if line.startswith("## "):
            section = line
        if section == "## Matches" or line.startswith("Generated "):
            continue
        line = re.sub(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?Z?", "DATE", line)
        # Runs are named after the database they ran on, wherever it was.
        line = re.sub(r" on \S+\.db\b", " on DB", line)
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if columns is None or len(cells) != len(columns):
                columns = cells
            elif not set("".join(cells)) <= set("-: "):
                cells = ["~" if VOLATILE_COLUMNS.search(col) else cell for col, cell in zip(columns, cells)]
            line = "| " + " | ".join(cells) + " |"
        else:
            columns = None
        out.append(line)
    return out


def evaluator(path):
    e = json.load(open(path, encoding="utf-8"))
    e.get("provenance", {}).pop("date", None)
    e.get("provenance", {}).pop("db", None)
    return e


def match_problems(folder):
    """The committed match: its PGN's games, counted from the tuned evaluator's side, must
    be the report's Matches row (the README promises the report of that very run)."""
    pgn = f"{folder}/match-tuned-seed003.pgn"
    if not os.path.exists(pgn):
        return []
    wins = draws = losses = 0
    white = None
    for line in open(pgn, encoding="utf-8"):
        m = re.match(r'\[(White|Result) "(.*)"\]', line)
        if not m:
            continue
        if m.group(1) == "White":
            white = m.group(2)
            continue
        result = m.group(2)
        if result == "1/2-1/2":
            draws += 1
        elif (result == "1-0") == (white == "tuned"):
            wins += 1
        else:
            losses += 1
    rows = [
        line for line in open(f"{folder}/report.md", encoding="utf-8")
        if line.startswith("| tuned vs seed003")
    ]
    if not rows:
        return [f"report.md has no Matches row for {pgn} ({wins + draws + losses} games)"]
    cells = [c.strip() for c in rows[0].strip().strip("|").split("|")]
    found = tuple(int(c) for c in cells[1:5])
    want = (wins + draws + losses, wins, draws, losses)
    if found != want:
        return [f"report.md's match row says games/wins/draws/losses {found}, the PGN {want}"]
    return []


def main():
    committed, new = sys.argv[1], sys.argv[2]
    problems = match_problems(committed)
    if evaluator(f"{committed}/evaluator.json") != evaluator(f"{new}/evaluator.json"):
        problems.append("evaluator.json: the tuned weights or measures differ")
    for name in sorted(os.listdir(f"{new}/heatmaps")):
        a, b = f"{committed}/heatmaps/{name}", f"{new}/heatmaps/{name}"
        if not os.path.exists(a) or open(a, "rb").read() != open(b, "rb").read():
            problems.append(f"heatmaps/{name} differs")
    old_lines, new_lines = masked_report(f"{committed}/report.md"), masked_report(f"{new}/report.md")
    for i, (a, b) in enumerate(zip(old_lines, new_lines)):
        if a != b:
            problems.append(f"report.md line {i + 1}:\n  committed: {a}\n  now:       {b}")
    if len(old_lines) != len(new_lines):
        problems.append(f"report.md: {len(old_lines)} lines committed, {len(new_lines)} now")
    for p in problems:
        print(p)
    print(f"{len(problems)} differences between {committed} and {new}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
