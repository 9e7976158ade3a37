#!/usr/bin/env bash
# Regenerates the committed reports/ from the current code: runs scripts/run-sample.sh into
# target/reports-run/ (MATCH_GAMES=200 by default, as the committed match) and copies its
# evaluator, heatmaps, match PGN and report into reports/. About 15 minutes on 2 cores,
# most of it the match. scripts/check/reports.sh (run by CI) checks that the
# deterministic parts of reports/ are what the code makes.
set -euo pipefail
cd "$(dirname "$0")/../.."
MATCH_GAMES=${MATCH_GAMES:-200} scripts/run-sample.sh target/reports-run
cp target/reports-run/evaluator.json target/reports-run/report.md reports/
rm -rf reports/heatmaps && cp -r target/reports-run/heatmaps reports/heatmaps
[[ -f target/reports-run/match-tuned-seed003.pgn ]] && cp target/reports-run/match-tuned-seed003.pgn reports/
echo "reports/ regenerated; review with git diff"
