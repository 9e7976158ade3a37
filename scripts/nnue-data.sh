#!/usr/bin/env bash
# Regenerates the neural evaluator's data and network, end to end, with chessgraph alone
# (plus Debian's stockfish as the labeller):
#   1. import the shared Stockfish-labelled positions (200k + 699k, with their games);
#   2. Stockfish self-play from the 699k set's book starts (scripts/sf-selfplay.py, one
#      process per core, SF_GAMES games in all; python-chess), imported as labelled games:
#      positions of the kind the shared sample's test part holds;
#   3. datagen: self-play games of the built-in network at 2,500 nodes per move;
#   4. label: Stockfish 15.1 scores every generated position with a depth-4 search
#      (Hash 1 MiB, so that `ucinewgame` before each position is cheap);
#   5. train: 2,304 (pieces + threats) -> 256 -> 1 on Stockfish's labels (the imported
#      Stockfish labels where it has not labelled them), weight decay 0.05, chosen by
#      validation loss;
#   6. eval: the new network beside the linear evaluators on the shared sample's test part.
# Every step is resumable: killed and run again, it goes on where it stopped.
#
# Usage: scripts/nnue-data.sh [GAMES]   (default 20000)
# Env:   DATA_DIR (default ~/data/chessgraph), JOBS (default: all cores), EPOCHS (default 40),
#        DEPTH (Stockfish's depth per position, default 4), SF_GAMES (Stockfish self-play
#        games, default 2000; 0 skips the step)
# Time on the 2-core machine, both cores: datagen ~1,000 kept positions/s (about 80 kept
# per game), label ~2,500 positions/s at depth 4 (~1,100 at depth 6), train ~450k
# positions/s per epoch. 20,000 games give about 1.6M positions: datagen ~30 min,
# label ~12 min, train ~10 min for 40 epochs over 2.3M positions. Stockfish self-play:
# ~80 positions/s per process on an idle core (5,000 nodes per move, ~135 plies a game):
# 2,000 games ~ 270k positions ~ 30 min on two cores.
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-20000}
dir=${DATA_DIR:-$HOME/data/chessgraph}
jobs=${JOBS:-$(nproc)}
epochs=${EPOCHS:-40}
depth=${DEPTH:-4}
shared=../shared/data
mkdir -p "$dir"
cargo build --release
cg() { target/release/chessgraph "$@"; }
db="$dir/nnue.db"
sample="$dir/sample.db"

cg --db "$db" import "$shared/positions-200k.csv.zst" "$shared/games-200k.pgn.zst" \
    "$shared/selfplay-700k.csv.zst" "$shared/selfplay-700k.pgn.zst"
sf_games=${SF_GAMES:-2000}
if [[ "$sf_games" -gt 0 ]]; then
    mkdir -p "$dir/sfgen"
    pids=()
    for ((p = 0; p < jobs; p++)); do
        python3 scripts/sf-selfplay.py --out "$dir/sfgen/part$p.pgn" --part "$p" --parts "$jobs" \
            --max-games $((sf_games / jobs)) 2> "$dir/sfgen/part$p.log" & pids+=($!)
    done
    wait "${pids[@]}"
    for ((p = 0; p < jobs; p++)); do cg --db "$db" import "$dir/sfgen/part$p.pgn"; done
fi
cg --db "$db" datagen --games "$games" --nodes 2500 --threads "$jobs" --evaluator nnue --seed 7
cg --db "$db" label --engine /usr/games/stockfish --name "sf-d$depth" --depth "$depth" \
    --option Hash=1 --jobs "$jobs" --source datagen
cg --db "$db" train --labels "sf-d$depth,imported" --epochs "$epochs" --batch 4096 --weight-decay 0.05 \
    --out "$dir/nnue-new.nnue"

# The bar is measured on the shared sample's own database, as every other figure.
cg --db "$sample" import "$shared/positions-200k.csv.zst" "$shared/games-200k.pgn.zst"
cg --db "$sample" eval --evaluator material,seed003,reports/evaluator.json,nnue,"$dir/nnue-new.nnue"
echo "to ship it: zstd -19 -f $dir/nnue-new.nnue -o assets/nnue/chessgraph.nnue.zst && cargo build --release"
