#!/usr/bin/env bash
# The self-play loop the neural-network study could not afford, and its Elo curve: from a
# policy-value network (generation 0), `train selfplay` plays and trains GENERATIONS
# generations, then a round robin of every generation (each pair GAMES games from the book
# openings, PUCT with SIMULATIONS per move) rates them by maximum likelihood, generation 0
# anchored at 0.
#
# Usage: scripts/strength/selfplay-elo.sh GEN0_MODEL
# Env: OUT (default target/selfplay), GENERATIONS (4), SELFPLAY_GAMES (40 per generation),
#      SIMULATIONS (32 per move, in self-play and in the games), GAMES (10 per pair).
# Writes OUT/gen-*.{pgn,jsonl,safetensors} (resumable), OUT/selfplay.log, OUT/elo.db,
# OUT/elo.pgn and OUT/elo.txt (the cross table and the ratings).
set -euo pipefail
cd "$(dirname "$0")/../.."
gen0=$(realpath "$1")
out=${OUT:-target/selfplay}
generations=${GENERATIONS:-4}
sims=${SIMULATIONS:-32}
cargo build --release --quiet
bin=${CARGO_TARGET_DIR:-$PWD/target}/release/chessgraph
mkdir -p "$out"
start=$(date +%s)
"$bin" train selfplay --init "$gen0" --out-dir "$out" --generations "$generations" \
    --games "${SELFPLAY_GAMES:-40}" --simulations "$sims" --quiet | tee -a "$out/selfplay.log"
echo "self-play: $(( $(date +%s) - start )) s" | tee -a "$out/selfplay.log"
args=()
for g in $(seq 0 "$generations"); do
    args+=(--player "gen$g=mcts:net=$out/gen-$g.safetensors,simulations=$sims")
done
"$bin" --db "$out/elo.db" tournament --name selfplay "${args[@]}" --games "${GAMES:-10}" \
    --movetime 5000 --max-moves 150 --concurrency 2 --anchor gen0=0 --pgn "$out/elo.pgn" \
    --quiet | tee "$out/elo.txt"
