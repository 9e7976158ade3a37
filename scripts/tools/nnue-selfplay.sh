#!/usr/bin/env bash
# The next network from the one before's own games, end to end:
#   1. the shared data's database and network (scripts/tools/nnue-shared.sh: sh-l0, the
#      built-in `nnue` it replaces), unless DATA_DIR already holds them;
#   2. datagen: GAMES games of that network against itself at 2,500 nodes a move, 8 random
#      opening plies, seed SEED (30,000 games: 2.51M new positions kept, ~37 min on both
#      cores of the 2-core machine);
#   3. label: Stockfish 15.1 at depth 4 for every new position (`label --option Hash=1`,
#      ~12.5 min on both cores, 3,365 positions/s);
#   4. train: 2,304 -> 512 -> 1 on all of it (Stockfish's depth-4 label where `label` made
#      one, the imported label elsewhere; 5.6M training positions), the `train` defaults
#      (output scale QB 128), seed 1, THREADS threads (~19 min with one thread beside
#      another run);
#   5. eval: the new network beside the built-in one on the shared sample's valid part.
# Every step is resumable. Games decide whether it is better: the SPRT command it prints.
#
# Usage: scripts/tools/nnue-selfplay.sh
# Env:   DATA_DIR (default ~/data/chessgraph), GAMES (default 30000), SEED (default
#        20261128), THREADS (default 1)
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${DATA_DIR:-$HOME/data/chessgraph}
games=${GAMES:-30000}
seed=${SEED:-20261128}
threads=${THREADS:-1}
shared=../shared/data
db="$dir/shared-nnue.db"
player="$dir/nnue-shared-l0.nnue"
out="$dir/nnue-selfplay-$seed.nnue"
if [[ ! -f "$player" ]]; then
    DATA_DIR="$dir" scripts/tools/nnue-shared.sh
fi
cargo build --release
cg() { "${CARGO_TARGET_DIR:-$PWD/target}"/release/chessgraph "$@"; }

cg --db "$db" datagen --games "$games" --nodes 2500 --threads "$(nproc)" --evaluator "$player" \
    --seed "$seed"
cg --db "$db" label --engine /usr/games/stockfish --name sf-d4 --depth 4 --option Hash=1 \
    --jobs "$(nproc)" --source datagen
cg --db "$db" train nnue --labels sf-d4,imported --hidden 512 --threads "$threads" --seed 1 \
    --out "$out"
cg --db "$dir/sample.db" rate evaluator --part valid --evaluator nnue,"$out"
cat <<EOT
to test it in games (about 0.25 games a second on two cores):
  ${CARGO_TARGET_DIR:-$PWD/target}/release/chessgraph --db $dir/sprt.db tournament --name selfplay-$seed \\
    --player new=engine:evaluator=$out --player nnue=engine:evaluator=nnue --gauntlet new \\
    --sprt elo0=0,elo1=10 --tc 3+0.03 --concurrency 2 --openings assets/openings/unbalanced.epd \\
    --syzygy $shared/syzygy --draw
to ship it: zstd -19 -f $out -o assets/nnue/chessgraph.nnue.zst && cargo build --release
EOT
