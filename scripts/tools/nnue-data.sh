#!/usr/bin/env bash
# Regenerates the neural evaluator's data and network, end to end, with chessgraph (plus
# Debian's stockfish and python-chess for the self-play games):
#   1. import the shared Stockfish-labelled positions (200k + 699k, with their games);
#   2. Stockfish self-play from the 699k set's book starts, each with 3 random first moves
#      (scripts/fixtures/sf-selfplay.py, one process per core, 5,000 nodes per move, SF_GAMES games
#      in all), imported as labelled games: positions of the kind the shared sample's test
#      part holds, each labelled with the search score of the move played;
#   3. datagen: the built-in network's own games at 2,500 nodes per move (DATAGEN_GAMES),
#      every kept position labelled by Stockfish at depth DEPTH (`label --option Hash=1`);
#   4. train: 2,304 (pieces + threats) -> HIDDEN (512) -> 1 with the `train` defaults (batch
#      1,024, 40 epochs, weight decay 0.3), Stockfish's label where `label` made one;
#   5. eval: the new network beside the linear evaluators on the shared sample's valid part
#      (for choosing), then its test part (once, for the figures).
# Every step is resumable: killed and run again, it goes on where it stopped.
#
# Usage: scripts/tools/nnue-data.sh
# Env:   DATA_DIR (default ~/data/chessgraph), JOBS (default: all cores), SF_GAMES (default
#        3600; 0 skips the step), DATAGEN_GAMES (default 24000; 0 skips), DEPTH (default 4),
#        HIDDEN (default 512)
# DEPTH 8 instead of 4 gave no better network on 894k generated positions (2026-11-26, two
# seeds; docs/log/nnue.md) and labels at 341 positions/s instead of 2,635.
# Time on the 2-core machine (2026-11-25, both cores): Stockfish self-play ~150 positions/s
# per process (~120 plies a game): 3,600 games ~ 434k positions ~ 25 min; datagen 1,374
# kept positions/s: 24,000 games ~ 2M positions ~ 25 min; label 2,316 positions/s at depth
# 4 ~ 15 min; train ~10 min for H = 512 (170k positions/s on one thread; H = 256: 374k).
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${DATA_DIR:-$HOME/data/chessgraph}
jobs=${JOBS:-$(nproc)}
depth=${DEPTH:-4}
sf_games=${SF_GAMES:-3600}
datagen_games=${DATAGEN_GAMES:-24000}
hidden=${HIDDEN:-512}
shared=../shared/data
mkdir -p "$dir"
cargo build --release
cg() { "${CARGO_TARGET_DIR:-$PWD/target}"/release/chessgraph "$@"; }
db="$dir/nnue.db"
sample="$dir/sample.db"

cg --db "$db" import "$shared/positions-200k.csv.zst" "$shared/games-200k.pgn.zst" \
    "$shared/selfplay-700k.csv.zst" "$shared/selfplay-700k.pgn.zst"
labels=imported
if [[ "$sf_games" -gt 0 ]]; then
    mkdir -p "$dir/sfgen"
    pids=()
    for ((p = 0; p < jobs; p++)); do
        python3 scripts/fixtures/sf-selfplay.py --out "$dir/sfgen/part$p.pgn" --part "$p" --parts "$jobs" \
            --seed 11 --variants 3 --max-games $((sf_games / jobs)) \
            2> "$dir/sfgen/part$p.log" & pids+=($!)
    done
    wait "${pids[@]}"
    for ((p = 0; p < jobs; p++)); do cg --db "$db" import "$dir/sfgen/part$p.pgn"; done
fi
if [[ "$datagen_games" -gt 0 ]]; then
    cg --db "$db" datagen --games "$datagen_games" --nodes 2500 --threads "$jobs" --evaluator nnue --seed 7
    cg --db "$db" label --engine /usr/games/stockfish --name "sf-d$depth" --depth "$depth" \
        --option Hash=1 --jobs "$jobs" --source datagen
    labels="sf-d$depth,imported"
fi
cg --db "$db" train nnue --labels "$labels" --hidden "$hidden" --out "$dir/nnue-new.nnue"

# τ is measured on the shared sample's own database, as every other figure.
cg --db "$sample" import "$shared/positions-200k.csv.zst" "$shared/games-200k.pgn.zst"
cg --db "$sample" rate evaluator --part valid --evaluator nnue,"$dir/nnue-new.nnue"
cg --db "$sample" rate evaluator --evaluator material,seed003,reports/evaluator.json,nnue,"$dir/nnue-new.nnue"
echo "to ship it: zstd -19 -f $dir/nnue-new.nnue -o assets/nnue/chessgraph.nnue.zst && cargo build --release"
