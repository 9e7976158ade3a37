#!/usr/bin/env bash
# Regenerates the PUC-Rio players study's tournament with chessgraph's players: a round robin of
# random, greedy, minimax (depth 4), MCTS (3,000 iterations), the logistic move classifier,
# the engine with seed003 and with the tuned evaluator, and Debian's Stockfish 15.1 at two
# UCI_Elo levels as anchors; then each player's accuracy on the shared mates in two.
#
# Usage: scripts/strength/study-tournament.sh [GAMES_PER_PAIR]   (default 8)
# Env:   DATA_DIR (default ~/data/chessgraph), MOVETIME (ms per move, default 100)
# Needs /usr/games/stockfish (apt-get install stockfish) for the anchors.
# Time on the 2-core machine: 36 pairs x 8 games at 100 ms a move, two games at once,
# about 25 minutes; the mate-in-two runs about 2 minutes. Resumable (the tournament is
# stored in the database; run the script again after a kill).
set -euo pipefail
cd "$(dirname "$0")/../.."
games=${1:-8}
movetime=${MOVETIME:-100}
dir=${DATA_DIR:-$HOME/data/chessgraph}/study
shared=../shared/data
mkdir -p "$dir"
cargo build --release --quiet
cg() { "${CARGO_TARGET_DIR:-$PWD/target}"/release/chessgraph "$@"; }
db="$dir/study.db"

if [[ ! -s "$db" ]]; then
    cg --db "$db" import --quiet "$shared/positions-200k.csv.zst" "$shared/games-200k.pgn.zst"
fi
# The move classifier, trained on the winners' moves of the shared sample's games.
if [[ ! -s "$dir/moves.json" ]]; then
    cg --db "$db" train moves --out "$dir/moves.json"
fi

players=(
    "random=random:seed=1"
    "greedy=greedy:evaluator=seed003"
    "minimax-4=minimax:depth=4,evaluator=seed003"
    "mcts-3000=mcts:iterations=3000,evaluator=seed003"
    "logistic=logistic:model=$dir/moves.json"
    "engine-seed003=engine:evaluator=seed003"
    "engine-tuned=engine:evaluator=reports/evaluator.json"
)
args=()
for p in "${players[@]}"; do args+=(--player "$p"); done
for elo in 1350 2000; do
    args+=(--engine "sf$elo=/usr/games/stockfish"
        --option "sf$elo:UCI_LimitStrength=true" --option "sf$elo:UCI_Elo=$elo"
        --option "sf$elo:Threads=1" --option "sf$elo:Hash=16")
done

cg --db "$db" tournament --name study "${args[@]}" --games "$games" --movetime "$movetime" \
    --max-moves 100 --concurrency 2 --anchor sf1350=1350 --pgn "$dir/study.pgn" --quiet \
    | tee "$dir/study-tournament.txt"

# The PUC-Rio study's mate-in-two column: each player's first move on the shared mates in two,
# refereed by the mate search.
echo
echo "| player | mates in two solved (of 166) |"
echo "| --- | --- |"
for p in "${players[@]}"; do
    name=${p%%=*}
    spec=${p#*=}
    solved=$(cg --db "$db" solve --player "$spec" --movetime "$movetime" --quiet --json \
        --input "$shared/puzzles/mate-in-2-games.pgn" |
        python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["solved"])')
    echo "| $name | $solved |"
done | tee "$dir/study-mate-in-two.txt"
