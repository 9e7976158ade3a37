#!/usr/bin/env bash
# Makes the shipped network from ../shared/data alone, end to end:
#   1. import the shared Stockfish-labelled positions (200k + 699k, with their games) and
#      both generated sets (the built-in network's own games, Stockfish 15.1 depth-4
#      labels): 4,488,647 labelled positions, 3,588,727 in the train part (~20 s);
#   2. train: 2,304 (pieces + threats) -> 512 -> 1 (output scale QB 64, as then) with the
#      `train` defaults (batch 1,024, 40 epochs, weight decay 0.3, lambda 0: the labels
#      only), seed 1, THREADS threads
#      (~9 min with one thread per run on the 2-core machine; the result depends on the
#      thread count, not on the machine);
#   3. eval: the new network beside the built-in one on the shared sample's valid part.
# Games decide whether it is better: the SPRT command it prints.
#
# Usage: scripts/tools/nnue-shared.sh
# Env:   DATA_DIR (default ~/data/chessgraph), THREADS (default 1), LAMBDA (default 0)
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${DATA_DIR:-$HOME/data/chessgraph}
threads=${THREADS:-1}
lambda=${LAMBDA:-0}
shared=../shared/data
mkdir -p "$dir"
cargo build --release
cg() { "${CARGO_TARGET_DIR:-$PWD/target}"/release/chessgraph "$@"; }
db="$dir/shared-nnue.db"
sample="$dir/sample.db"
out="$dir/nnue-shared-l$lambda.nnue"

cg --db "$db" import "$shared/positions-200k.csv.zst" "$shared/games-200k.pgn.zst" \
    "$shared/selfplay-700k.csv.zst" "$shared/selfplay-700k.pgn.zst" \
    "$shared/datagen-1.9m-sfd4.epd.zst" "$shared/datagen-1.9m-sfd4-2.epd.zst"
cg --db "$db" train nnue --labels imported --hidden 512 --qb 64 --lambda "$lambda" --threads "$threads" \
    --seed 1 --out "$out"
cg --db "$sample" import "$shared/positions-200k.csv.zst" "$shared/games-200k.pgn.zst"
cg --db "$sample" rate evaluator --part valid --evaluator nnue,"$out"
cat <<EOT
to test it in games (about 0.25 games a second on two cores):
  ${CARGO_TARGET_DIR:-$PWD/target}/release/chessgraph --db $dir/sprt.db tournament --name new-net \\
    --player new=engine:evaluator=$out --player nnue=engine:evaluator=nnue --gauntlet new \\
    --sprt elo0=0,elo1=10 --tc 3+0.03 --concurrency 2 --openings assets/openings/unbalanced.epd \\
    --syzygy $shared/syzygy --draw
to ship it: zstd -19 -f $out -o assets/nnue/chessgraph.nnue.zst && cargo build --release
EOT
