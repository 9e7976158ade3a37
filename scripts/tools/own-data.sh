#!/usr/bin/env bash
# The engine's own data at scale, as engine authors make it, and a network trained on it:
#   1. datagen: PROCS processes (default: one a core) play the built-in network against
#      itself at NODES soft nodes a move (no new iteration once past them; default 5,000),
#      8 random opening plies, each its own seed and source, all into one database
#      (DATA_DIR/own.db); each plays GAMES games. Resumable: the same command again goes on
#      where each process stopped. Rate on the idle 2-core machine (2026-12-03), new
#      positions a second: at 5,000 soft nodes (the iteration past them finishes) one
#      process 76, two ~175, so 30M positions take ~48 hours; at 2,500 one 195, two ~290
#      (~29 hours). docs/nnue.md#datagen has the commands.
#   2. the shared 1.3M positions of the same kind (selfplay-own-5k.epd.zst) are imported
#      into the same database first;
#   3. export bullet: the positions as the bullet trainer's records (DATA_DIR/own.bin);
#   4. train nnue: the threat inputs (2,304) -> HIDDEN -> 1 on the engine's scores blended with the game result
#      (LAMBDA, default 0.25), seed 1;
#   5. rate: the new network beside the built-in one on the shared sample's test part.
# Games decide whether it is better: the SPRT command it prints.
#
# Usage: scripts/tools/own-data.sh
# Env:   DATA_DIR (default ~/data/chessgraph), GAMES (per process, default 100000), PROCS
#        (default nproc), NODES (default 5000), SEED (default 20261203), HIDDEN (default
#        512), LAMBDA (0.25), THREADS (training threads, default nproc)
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${DATA_DIR:-$HOME/data/chessgraph}
games=${GAMES:-100000}
procs=${PROCS:-$(nproc)}
nodes=${NODES:-5000}
seed=${SEED:-20261203}
hidden=${HIDDEN:-512}
lambda=${LAMBDA:-0.25}
threads=${THREADS:-$(nproc)}
shared=../shared/data
db="$dir/own.db"
mkdir -p "$dir"
# Built for this machine's CPU, in its own target folder so the other builds stay as they
# are (the Makefile builds the engine alone the same way): the same games and positions,
# ~7 % faster (docs/nnue.md#datagen).
native="${CARGO_TARGET_DIR:-$PWD/target}/native"
RUSTFLAGS="-C target-cpu=native" cargo build --release --bin chessgraph --target-dir "$native"
cg() { "$native"/release/chessgraph "$@"; }

if [[ ! -f "$db" ]]; then
    cg --db "$db" import "$shared/selfplay-own-5k.epd.zst"
fi
pids=()
for i in $(seq 0 $((procs - 1))); do
    cg --db "$db" datagen --games "$games" --nodes "$nodes" --threads 1 --seed $((seed + i)) \
        --quiet >"$dir/own-datagen-$i.log" 2>&1 &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
tail -n 1 "$dir"/own-datagen-*.log
cg --db "$db" export bullet --out "$dir/own.bin"
out="$dir/own-h$hidden-l$lambda.nnue"
cg --db "$db" train nnue --hidden "$hidden" --lambda "$lambda" --threads "$threads" --seed 1 \
    --out "$out"
if [[ ! -f "$dir/sample.db" ]]; then
    cg --db "$dir/sample.db" import "$shared/positions-200k.csv.zst"
fi
cg --db "$dir/sample.db" rate evaluator --part test --evaluator nnue,"$out"
cat <<EOT
to test it in games against the built-in network:
  $native/release/chessgraph --db $dir/sprt.db tournament --name own-h$hidden \\
    --player new=engine:evaluator=$out --player nnue=engine:evaluator=nnue --gauntlet new \\
    --sprt elo0=0,elo1=10 --tc 3+0.03 --openings assets/openings/unbalanced.epd \\
    --syzygy $shared/syzygy --draw
EOT
