#!/usr/bin/env bash
# SPRT of one UCI engine against another: `chessgraph match --sprt` until the test decides
# (H1 accepted: NEW is better by the bounds; H0 accepted: it is not) or SPRT_GAMES games.
#
# Usage: scripts/sprt.sh NEW OLD [extra match args]
#   NEW, OLD: engine command lines, split at spaces (a path, or e.g.
#   "chessgraph engine --evaluator material"; `chessgraph` means the program itself).
#   Extra arguments go to `chessgraph match` (e.g. --option1 Hash=16 --openings book.epd).
# Environment: SPRT_TC (clock, default 1+0.01), SPRT_BOUNDS (default elo0=0,elo1=10),
#   SPRT_GAMES (cap, default 20000), CHESSGRAPH (the binary, default target/release/chessgraph,
#   built if missing), SPRT_LOG (the full output, default a temporary file).
#
# `match` plays one game at a time (it has no concurrency), so this runs one game at once;
# `chessgraph tournament --engine new=NEW --engine old=OLD --gauntlet new --sprt ...
# --concurrency 2` runs the same test two games at a time.
# Openings: the default book (assets/openings/balanced.epd), each played with both colours.
#
# How long: a test ends when the evidence is strong enough. Each pair moves the LLR by at
# most about ln(L(elo1) / L(elo0)) (0.03 for [0, 10]), so even a large difference needs
# about 200 games: on the 2-core development machine at 1+0.01, `chessgraph engine`
# against `chessgraph engine --evaluator material` (+293 +- 55 Elo) passed [0, 10] after
# 208 games in 7 minutes. Engines a few Elo apart take thousands of games (hours).
# The status line goes to standard error every 10 s; the verdict is printed last.
set -euo pipefail
if [[ $# -lt 2 ]]; then
    sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
new=$1 old=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
cg=${CHESSGRAPH:-$root/target/release/chessgraph}
if [[ ! -x $cg ]]; then
    (cd "$root" && cargo build --release)
fi
log=${SPRT_LOG:-$(mktemp -t sprt.XXXXXX)}
"$cg" match --engine1 "$new" --engine2 "$old" --names new,old \
    --tc "${SPRT_TC:-1+0.01}" --games "${SPRT_GAMES:-20000}" \
    --sprt "${SPRT_BOUNDS:-elo0=0,elo1=10}" --quiet "$@" >"$log"
sed -n '/^new: /,$p' "$log"   # the summary; its last line is the verdict
echo "(full output: $log)" >&2
