#!/usr/bin/env bash
# Mate-solving benchmark: runs `chessgraph solve` (release build) on the full shared puzzle
# sets and prints, per set, solved/total and median/max time per N (the summary block of
# `chessgraph solve`). Per-puzzle reports go to $OUT (default target/solve-bench/).
#
#   scripts/bench/solve.sh [--movetime MS]
#
# Single-threaded; the full run takes a few seconds of CPU on the reference machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
DATA=${DATA:-../shared/data/puzzles}
OUT=${OUT:-target/solve-bench}
mkdir -p "$OUT"
cargo build --release --quiet
BIN=${CARGO_TARGET_DIR:-$PWD/target}/release/chessgraph
for set in mate-in-2-games.pgn composed-problems.epd; do
    input="$DATA/$set"
    if [[ ! -f $input ]]; then
        echo "== $set: not found under $DATA, skipped"
        continue
    fi
    start=$(date +%s.%N)
    "$BIN" solve --input "$input" "$@" > "$OUT/$set.txt"
    end=$(date +%s.%N)
    echo "== $set ($(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }') s wall, reports in $OUT/$set.txt)"
    # The summary starts at the "solved x/y" line.
    sed -n '/^solved [0-9]*\/[0-9]*/,$p' "$OUT/$set.txt"
    grep -E '^ *[0-9]+ +[0-9]+  (solved-alt|timeout|no-mate|refuted|unverified) ' "$OUT/$set.txt" \
        | sed 's/^/   /' || true
done
