#!/usr/bin/env bash
# The main job on the shared sample: build; import the 200k Stockfish-labelled positions and
# the PGN of their games (for results); analyze; the study's regression; tune an evaluator;
# compare it with the built-ins on the held-out test part; draw the heatmaps; write the
# report. Outputs go to reports/ (committed: what the tool makes of the shared sample).
# Usage: scripts/run-sample.sh [DB]   (default chessgraph.db in the project root)
set -euo pipefail
cd "$(dirname "$0")/.."
db=${1:-chessgraph.db}
data=../shared/data
cargo build --release --quiet
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
cg report --title "shared 200k sample" --heatmaps heatmaps --out reports/report.md
echo "wrote reports/evaluator.json, reports/heatmaps/, reports/report.md"
