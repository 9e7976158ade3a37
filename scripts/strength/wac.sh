#!/usr/bin/env bash
# Best-move suites with the engine, printing the solve table:
#   scripts/strength/wac.sh [EVALUATOR]          the suite fixture (18 positions, 10 of them from Win
#                                       At Chess) at 100 ms a position, as the README's
#                                       figure (default seed003, as the figure); the
#                                       verdicts of the same run are checked against
#                                       python-chess by scripts/golden/suite.py.
#   scripts/strength/wac.sh --full [EVALUATOR]   all 300 Win At Chess positions
#                                       (tests/fixtures/wac.epd) at 1 s a position, one
#                                       thread (default nnue); about 5 minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release
mkdir -p target
if [[ ${1:-} == --full ]]; then
    "${CARGO_TARGET_DIR:-$PWD/target}"/release/chessgraph --db target/wac.db solve --input tests/fixtures/wac.epd \
        --movetime 1000 --evaluator "${2:-nnue}"
else
    "${CARGO_TARGET_DIR:-$PWD/target}"/release/chessgraph --db target/wac.db solve --input tests/fixtures/suite-bestmove.epd \
        --movetime 100 --evaluator "${1:-seed003}"
fi
