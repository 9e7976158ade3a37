#!/usr/bin/env bash
# The main job on the shared sample: build; import the 200k Stockfish-labelled positions and
# the PGN of their games (for results); analyze; the study's regression; tune an evaluator;
# compare it with the built-ins on the held-out test part; draw the heatmaps; solve the
# shared mate puzzles; benchmark the engine; play the tuned evaluator against the study's
# bot; write the report. Outputs go to reports/ (committed: what the tool makes of the
# shared sample). MATCH_GAMES (default 40) sets the match length.
# Usage: scripts/run-sample.sh [DB]   (default chessgraph.db in the project root)
set -euo pipefail
cd "$(dirname "$0")/.."
db=${1:-chessgraph.db}
data=../shared/data
cargo build --release   # shows its progress: a first build takes minutes on 2 cores
cg() { target/release/chessgraph --db "$db" "$@"; }
cg import "$data/positions-200k.csv.zst" "$data/games-200k.pgn.zst"
cg analyze
cg stats
mkdir -p reports
cg fit linear
cg fit logistic
cg tune --quiet --name tuned --out reports/evaluator.json
cg eval --evaluator material,seed003,tuned
cg heatmap --out-dir reports/heatmaps
for puzzles in "$data"/puzzles/*.pgn "$data"/puzzles/*.epd; do
    [[ -f $puzzles ]] || continue
    cg solve --input "$puzzles" | sed -n '/^solved [0-9]*\/[0-9]*/,$p'
done
cg bench --evaluator tuned | tail -3
cg bench --evaluator seed003 | tail -3
cg match --engine1 "chessgraph --db $db engine --evaluator tuned" \
    --engine2 "chessgraph engine --evaluator seed003" --names tuned,seed003 \
    --games "${MATCH_GAMES:-40}" --tc 1+0.01 --quiet --pgn reports/match-tuned-seed003.pgn
cg report --title "shared 200k sample" --heatmaps heatmaps --out reports/report.md
echo "wrote reports/evaluator.json, reports/heatmaps/, reports/match-tuned-seed003.pgn, reports/report.md"
