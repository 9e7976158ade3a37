#!/usr/bin/env bash
# The network in play, from the balanced openings at 5 s + 50 ms on the release build:
#   scripts/strength/nnue-matches.sh tuned      nnue against the tuned linear evaluator
#                                      (reports/evaluator.json), 200 games, ~20 min
#   scripts/strength/nnue-matches.sh glaurung   nnue against Debian's Glaurung 2.2 (Threads=1),
#                                      100 games, ~10 min (apt-get install glaurung)
# Both engines play on one core each (--concurrency 2 plays two games at once on the
# two cores of the machine); run it on an otherwise idle machine. The tournament goes
# into target/nnue-matches.db (resumable) and its PGN into target/nnue-matches-NAME.pgn.
# Adjudication: the draw rule (from move 40, 8 moves each within +-10 cp) and the 3-4-piece
# tables of ../shared/data/syzygy.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release
mkdir -p target
cg() {
    "${CARGO_TARGET_DIR:-$PWD/target}"/release/chessgraph --db target/nnue-matches.db "$@" \
        --draw --syzygy ../shared/data/syzygy
}
case "${1:-}" in
    tuned)
        cg tournament --name nnue-tuned --player nnue=engine:evaluator=nnue \
            --player tuned=engine:evaluator=reports/evaluator.json \
            --games 200 --tc 5+0.05 --concurrency 2 --pgn target/nnue-matches-tuned.pgn ;;
    glaurung)
        cg tournament --name nnue-glaurung --player nnue=engine:evaluator=nnue \
            --engine glaurung=/usr/games/glaurung --option glaurung:Threads=1 \
            --games 100 --tc 5+0.05 --concurrency 2 --pgn target/nnue-matches-glaurung.pgn ;;
    *) echo "usage: scripts/strength/nnue-matches.sh tuned|glaurung" >&2; exit 2 ;;
esac
