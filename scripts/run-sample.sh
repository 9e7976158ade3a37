#!/usr/bin/env bash
# The main job on the shared sample: build; import the 200k Stockfish-labelled positions and
# the PGN of their games (for results); analyze; the graph-features study's regression; tune an evaluator;
# compare it with the built-ins on the held-out test part; draw the heatmaps; solve the
# shared mate puzzles; benchmark the engine; play the tuned evaluator against the graph-features study's
# bot; write the report.
#
# Everything goes into a fresh output folder (default target/sample/, replaced at each run;
# the database is OUT/sample.db), never over the committed reports/:
#   OUT/evaluator.json, OUT/heatmaps/, OUT/match-tuned-seed003.pgn, OUT/report.md
# scripts/tools/make-reports.sh copies a run into reports/.
#
# MATCH_GAMES (default 40) sets the match length; 0 skips the match. CHESSGRAPH_BIN names
# an executable already built to run instead of building the release one.
# Usage: scripts/run-sample.sh [OUT]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/sample}
data=../shared/data
if [[ -n ${CHESSGRAPH_BIN:-} ]]; then
    bin=$(realpath "$CHESSGRAPH_BIN")
else
    cargo build --release   # shows its progress: a first build takes minutes on 2 cores
    bin=${CARGO_TARGET_DIR:-$PWD/target}/release/chessgraph
fi
rm -rf "$out"
mkdir -p "$out"
db=$out/sample.db
cg() { "$bin" --db "$db" "$@"; }
cg import "$data/positions-200k.csv.zst" "$data/games-200k.pgn.zst"
cg analyze
cg stats
cg fit linear
cg fit logistic
cg tune --quiet --name tuned --out "$out/evaluator.json"
cg rate evaluator --evaluator material,seed003,tuned
cg heatmap --out-dir "$out/heatmaps"
for puzzles in "$data"/puzzles/*.pgn "$data"/puzzles/*.epd; do
    [[ -f $puzzles ]] || continue
    cg solve --input "$puzzles" | sed -n '/^solved [0-9]*\/[0-9]*/,$p'
done
cg bench --evaluator tuned | tail -3
cg bench --evaluator seed003 | tail -3
if [[ ${MATCH_GAMES:-40} != 0 ]]; then
    cg match --engine1 "$bin --db $db engine --evaluator tuned" \
        --engine2 "$bin engine --evaluator seed003" --names tuned,seed003 \
        --games "${MATCH_GAMES:-40}" --tc 1+0.01 --quiet --pgn "$out/match-tuned-seed003.pgn"
fi
cg report --title "shared 200k sample" --heatmaps heatmaps --out "$out/report.md"
echo "wrote $out/: evaluator.json, heatmaps/, report.md$([[ ${MATCH_GAMES:-40} != 0 ]] && echo ', match-tuned-seed003.pgn')"
