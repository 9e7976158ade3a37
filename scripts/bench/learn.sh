#!/usr/bin/env bash
# Benchmark of the learning commands on the shared sample: one fresh database (import of
# the 200k CSV and the PGN of its games, for results; analyze), then each of fit linear,
# fit logistic, tune, heatmap and eval timed RUNS times. Prints wall seconds per run and
# the key figures of the last run (coefficients, τ on the held-out test part).
set -euo pipefail
cd "$(dirname "$0")/../.."
data=${DATA:-../shared/data}
runs=${RUNS:-3}
cargo build --release --quiet
bin=${CARGO_TARGET_DIR:-$PWD/target}/release/chessgraph
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db="$tmp/learn.db"
cg() { "$bin" --db "$db" "$@"; }
cg import --quiet "$data/positions-200k.csv.zst" "$data/games-200k.pgn.zst" >/dev/null
cg analyze --quiet >/dev/null
echo "database: $(cg stats --json | python3 -c 'import json,sys; s=json.load(sys.stdin); print(s["positions"], "positions,", s["analyzed"], "analyzed")') ($(nproc) cores), $runs runs"
time_it() { # label, command...
    local label=$1; shift
    local times=()
    for i in $(seq "$runs"); do
        local t0 t1
        t0=$(date +%s.%N)
        "$@" > "$tmp/out.txt"
        t1=$(date +%s.%N)
        times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')")
    done
    printf '%-14s %s s\n' "$label" "${times[*]}"
}
time_it "fit linear" cg fit linear
time_it "fit logistic" cg fit logistic
time_it "tune" cg tune --quiet --name bench --replace --out "$tmp/tuned.json"
time_it "heatmap" cg heatmap --out-dir "$tmp/hm"
time_it "eval (test)" cg rate evaluator --evaluator material,seed003,"$tmp/tuned.json"
echo
echo "== fit linear (the graph-features study's regression)"
cg fit linear
echo
echo "== tune (last run)"
cg tune --quiet --name bench-last --out "$tmp/tuned.json" | grep -v '^step'
echo
echo "== eval on the held-out test part"
cg rate evaluator --evaluator material,seed003,"$tmp/tuned.json"
