#!/usr/bin/env bash
# SPRT of one UCI engine against another: `chessgraph tournament --sprt` until the test
# decides (H1 accepted: NEW is better by the bounds; H0 accepted: it is not) or SPRT_GAMES
# games.
#
# Usage: scripts/tools/sprt.sh NEW OLD [extra tournament args]
#   NEW, OLD: engine command lines, split at spaces (e.g. "/tmp/new/chessgraph engine";
#   `chessgraph` as the first word means the program running the test).
#   Extra arguments go to `chessgraph tournament` (e.g. --option new:Threads=2).
# Environment: SPRT_TC (clock, default 1+0.01), SPRT_BOUNDS (default elo0=0,elo1=10),
#   SPRT_GAMES (cap, default 20000), SPRT_CONCURRENCY (games at once, default 2),
#   SPRT_BOOK (openings: `balanced`, the default, `unbalanced`, or an EPD/FEN file),
#   SPRT_DB (where the games are stored, default a temporary file; the same DB and
#   SPRT_NAME resume a test), CHESSGRAPH (the binary, default target/release/chessgraph,
#   built if missing).
#
# Each game has one engine thinking at a time, so SPRT_CONCURRENCY=2 keeps two cores busy;
# use 1 when an engine searches with two threads. Openings, each played with both
# colours: assets/openings/balanced.epd (within ±80 cp), or with SPRT_BOOK=unbalanced
# assets/openings/unbalanced.epd (one side ahead by 90-160 cp), where fewer pairs are
# drawn both ways, so a test decides in fewer games.
#
# How long: a test ends when the evidence is strong enough. Each pair moves the LLR by at
# most about ln(L(elo1) / L(elo0)) (0.03 for [0, 10]), so even a large difference needs
# about 200 games: at 1+0.01 two games at a time take about 1 s a game on the 2-core
# development machine (a change 44 Elo worse failed after 276 games in under 5 minutes;
# see docs/engine.md, Search changes). Engines a few Elo apart take thousands of games.
set -euo pipefail
if [[ $# -lt 2 ]]; then
    sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
new=$1 old=$2
shift 2
root=$(cd "$(dirname "$0")/../.." && pwd)
cg=${CHESSGRAPH:-$root/target/release/chessgraph}
if [[ ! -x $cg ]]; then
    (cd "$root" && cargo build --release)
fi
db=${SPRT_DB:-$(mktemp -t sprt.XXXXXX.db)}
book=${SPRT_BOOK:-balanced}
case $book in
balanced | unbalanced) book=$root/assets/openings/$book.epd ;;
esac
"$cg" tournament --db "$db" --name "${SPRT_NAME:-sprt}" \
    --engine "new=$new" --engine "old=$old" --gauntlet new \
    --tc "${SPRT_TC:-1+0.01}" --games "${SPRT_GAMES:-20000}" \
    --concurrency "${SPRT_CONCURRENCY:-2}" \
    --sprt "${SPRT_BOUNDS:-elo0=0,elo1=10}" --openings "$book" --quiet "$@"
echo "(games stored in $db)" >&2
