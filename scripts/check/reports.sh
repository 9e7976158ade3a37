#!/usr/bin/env bash
# Checks that the committed reports/ are what the current code makes of the shared sample:
# runs scripts/run-sample.sh without the match (MATCH_GAMES=0) into target/reports-check/
# and compares the deterministic parts (scripts/check/compare-reports.py). CI runs it; after a
# change that moves a figure, scripts/tools/make-reports.sh regenerates reports/.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p target
MATCH_GAMES=0 scripts/run-sample.sh target/reports-check > target/reports-check.log 2>&1 ||
    { cat target/reports-check.log >&2; exit 1; }
python3 scripts/check/compare-reports.py reports target/reports-check
