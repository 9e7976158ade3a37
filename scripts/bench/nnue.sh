#!/usr/bin/env bash
# Speed figures of the neural evaluator's pipeline, on this machine (run it idle):
#   - bench: nodes/s of the search with the linear evaluator and with the built-in network;
#   - inference: full refreshes and incremental updates per second (examples/nnue_bench);
#   - datagen: kept positions per second at 5,000 nodes per move, all cores;
#   - train: training positions per second for H = 256, all cores (one epoch on the shared
#     sample's training part);
#   - label: positions per second with Debian's Stockfish at 5,000 nodes, one engine per core
#     (skipped without /usr/games/stockfish).
# Usage: scripts/bench/nnue.sh   (needs ../shared/data; about two minutes)
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release --quiet
cargo build --release --quiet --example nnue_bench
release=${CARGO_TARGET_DIR:-$PWD/target}/release
cg=$release/chessgraph
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for e in seed003 nnue; do
    for run in 1 2 3; do
        echo "bench $e run $run: $($cg bench --evaluator "$e" | grep -E 'Nodes(/second| searched)' | tr -s ' ' | tr '\n' ' ')"
    done
done
"$release"/examples/nnue_bench
$cg --db "$work/g.db" datagen --games 100 --nodes 5000 --evaluator reports/evaluator.json --quiet | tail -1
$cg --db "$work/s.db" import --quiet ../shared/data/positions-200k.csv.zst ../shared/data/games-200k.pgn.zst > /dev/null
$cg --db "$work/s.db" train nnue --epochs 1 --out "$work/t.nnue" --quiet | tail -1
if [[ -x /usr/games/stockfish ]]; then
    $cg --db "$work/g.db" label --engine /usr/games/stockfish --limit 3000 --quiet | tail -1
fi
