#!/usr/bin/env bash
# Regenerates the neural evaluator's data and network, end to end, with chessgraph alone
# (plus Debian's stockfish as the labeller):
#   1. import the shared Stockfish-labelled positions (200k + 699k, with their games);
#   2. datagen: self-play games of the tuned linear evaluator at 5,000 nodes per move;
#   3. label: Stockfish 15.1 scores every generated position at 5,000 nodes;
#   4. train: 768 -> 256 -> 1 on Stockfish's labels (the generated positions' own search
#      score where Stockfish has not labelled them yet), chosen by validation loss;
#   5. eval: the new network beside the linear evaluators on the shared sample's test part.
# Every step is resumable: killed and run again, it goes on where it stopped.
#
# Usage: scripts/nnue-data.sh [GAMES]   (default 20000)
# Env:   DATA_DIR (default ~/data/chessgraph), JOBS (default: all cores), EPOCHS (default 20)
# Time on the 2-core machine, both cores: datagen ~800 positions/s (about 75 kept per
# game), label ~170 positions/s, train ~300k positions/s per epoch. 20,000 games give
# about 1.5M positions: datagen ~30 min, label ~2.5 h, train ~2 min.
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-20000}
dir=${DATA_DIR:-$HOME/data/chessgraph}
jobs=${JOBS:-$(nproc)}
epochs=${EPOCHS:-20}
shared=../shared/data
mkdir -p "$dir"
cargo build --release
cg() { target/release/chessgraph "$@"; }
db="$dir/nnue.db"
sample="$dir/sample.db"

cg --db "$db" import "$shared/positions-200k.csv.zst" "$shared/games-200k.pgn.zst" \
    "$shared/selfplay-700k.csv.zst" "$shared/selfplay-700k.pgn.zst"
cg --db "$db" datagen --games "$games" --nodes 5000 --threads "$jobs" \
    --evaluator reports/evaluator.json
cg --db "$db" label --engine /usr/games/stockfish --name stockfish --nodes 5000 \
    --jobs "$jobs" --source datagen
cg --db "$db" train --labels stockfish,imported --epochs "$epochs" --out "$dir/nnue-new.nnue"

# The bar is measured on the shared sample's own database, as every other figure.
cg --db "$sample" import "$shared/positions-200k.csv.zst" "$shared/games-200k.pgn.zst"
cg --db "$sample" eval --evaluator material,seed003,reports/evaluator.json,nnue,"$dir/nnue-new.nnue"
echo "to ship it: cp $dir/nnue-new.nnue assets/nnue/chessgraph.nnue && cargo build --release"
