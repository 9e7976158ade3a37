#!/usr/bin/env bash
# The main job on the shared sample: build, import the 200k Stockfish-labelled positions and
# the PGN of their games, analyze them, and print what the database holds.
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
