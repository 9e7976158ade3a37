#!/usr/bin/env bash
# Speeds of the studies' networks at their default sizes: training positions/s per
# architecture (one epoch on TRAIN positions, measuring left out), batched inference
# positions/s (the test part), the engine's nodes/s on a value network (`bench`), the
# PUCT player's simulations/s, and each command's peak memory (GNU time's maximum RSS).
# Run it on an idle machine. Usage: scripts/bench/nets.sh   (TRAIN=20000 by default)
set -euo pipefail
cd "$(dirname "$0")/../.."
data=${DATA:-../shared/data}
train=${TRAIN:-20000}
cargo build --release --quiet
bin=${CARGO_TARGET_DIR:-$PWD/target}/release/chessgraph
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db=$tmp/nets.db
cg() { "$bin" --db "$db" "$@"; }
peak() { # command... : runs it, prints its output, then its peak memory
    /usr/bin/time -f "peak memory %M KiB" "$@" 2> "$tmp/time.txt"
    tail -1 "$tmp/time.txt"
}
# head closes the pipe early: zstdcat's broken pipe is expected, the line count is checked.
zstdcat "$data/bestmoves-sfd8.epd.zst" 2> /dev/null | head -n 200000 > "$tmp/bm.epd" || true
[[ $(wc -l < "$tmp/bm.epd") == 200000 ]]
cg import --quiet "$tmp/bm.epd" > /dev/null
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "database: 200,000 positions with Stockfish's depth-8 best move and score"
for arch in cnn-study cnn-eval resnet-policy policy-value; do
    echo "== $arch (default size), $train training positions, 1 epoch"
    peak "$bin" --db "$db" train cnn --arch "$arch" --out "$tmp/$arch.safetensors" --train-positions "$train" \
        --valid-positions 2000 --epochs 1 --quiet | grep -E "^epoch|^kept|^peak"
done
echo "== engine on cnn-study (bench, depth 3)"
peak "$bin" --db "$db" bench --evaluator "$tmp/cnn-study.safetensors" --depth 3 | grep -E "Nodes searched|Nodes/second|^peak"
for sims in 10 100 800; do
    echo "== PUCT on policy-value, $sims simulations from the start position"
    printf 'uci\nposition startpos\ngo\n' > "$tmp/uci.txt"
    { cat "$tmp/uci.txt"; sleep $(( sims / 100 + 3 )); echo quit; } | peak "$bin" engine --player "mcts:net=$tmp/policy-value.safetensors,simulations=$sims" \
        | grep -E "^info depth|^peak" | sed -E 's/ pv .*//'
done
