#!/usr/bin/env bash
# The best-move suite fixture (18 positions, 10 of them from Win At Chess) with the engine
# at 100 ms a position, as the README's figure: prints the solve table. The verdicts of
# the same run are checked against python-chess by scripts/golden_suite.py.
# Usage: scripts/wac.sh [EVALUATOR]   (default seed003, as the figure)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release
target/release/chessgraph --db target/wac.db solve --input tests/fixtures/suite-bestmove.epd \
    --movetime 100 --evaluator "${1:-seed003}"
