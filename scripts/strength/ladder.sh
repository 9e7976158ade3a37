#!/usr/bin/env bash
# Rating ladder: a gauntlet of `chessgraph engine` against Debian's chess engines, rated on
# the scale of Stockfish's UCI_Elo (Stockfish with UCI_LimitStrength at several levels).
#
# Usage: scripts/strength/ladder.sh [extra tournament args]   (e.g. --pgn ladder.pgn)
# Environment: LADDER_TC (clock, default 5+0.05), LADDER_GAMES (games per pair, default 100),
#   LADDER_CONCURRENCY (games at once, default 1), LADDER_DB (default target/ladder/ladder.db),
#   LADDER_OPPONENTS (default "stockfish glaurung toga2 ethereal phalanx"; `stockfish`
#   means every level of LADDER_ELOS), LADDER_ELOS (Stockfish UCI_Elo levels, default
#   "1500 1800 2100 2400 2700"), LADDER_ANCHOR (the level whose rating is fixed at its
#   UCI_Elo, default the middle one), LADDER_NAME (stored tournament, default ladder-TC),
#   LADDER_INSTALL=1 (as root: apt-get install the missing engines), CHESSGRAPH (the binary).
#
# Engines come from Debian (apt-get install stockfish glaurung toga2 ethereal-chess phalanx
# polyglot); missing ones are skipped with a message, or installed with LADDER_INSTALL=1 as
# root. Each opponent must answer `uci` with `uciok` first. Phalanx speaks only xboard; it
# is tried through polyglot and skipped when that handshake fails. Every engine gets one
# thread, a 16 MiB hash, no own book and no pondering where it has those options.
# `tournament --anchor` fixes one player's rating, so one Stockfish level is the anchor and
# the others are fitted like any opponent: their fitted values beside their nominal UCI_Elo
# check the scale. The tournament is stored in LADDER_DB under LADDER_NAME: running the
# script again plays only the missing games (a larger LADDER_GAMES adds games).
# Adjudication: the draw rule (`tournament --draw`: from move 40, 8 moves each within
# +-10 cp) and, where ../shared/data/syzygy is beside the project, the 3-4-piece tables;
# no move limit.
# Prints the tournament's cross table and ratings, then a Markdown table of the results.
set -euo pipefail
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
    sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
fi
root=$(cd "$(dirname "$0")/../.." && pwd)
cg=${CHESSGRAPH:-${CARGO_TARGET_DIR:-$root/target}/release/chessgraph}
if [[ ! -x $cg ]]; then
    (cd "$root" && cargo build --release)
fi
tc=${LADDER_TC:-5+0.05}
games=${LADDER_GAMES:-100}
concurrency=${LADDER_CONCURRENCY:-1}
db=${LADDER_DB:-$root/target/ladder/ladder.db}
name=${LADDER_NAME:-ladder-$tc}
read -r -a opponents <<<"${LADDER_OPPONENTS:-stockfish glaurung toga2 ethereal phalanx}"
read -r -a elos <<<"${LADDER_ELOS:-1500 1800 2100 2400 2700}"
anchor=${LADDER_ANCHOR:-${elos[$((${#elos[@]} / 2))]}}
dir=$(dirname "$db")
mkdir -p "$dir"

# Debian package and program of each opponent.
package() {
    case $1 in
    ethereal) echo ethereal-chess ;;
    *) echo "$1" ;;
    esac
}
program() {
    case $1 in
    ethereal) echo ethereal-chess ;;
    *) echo "$1" ;;
    esac
}
# The path of program $2 from package $1: on the PATH, in /usr/games, or in `dpkg -L`.
find_program() {
    local path
    if path=$(command -v "$2" 2>/dev/null) || path=$(command -v "/usr/games/$2" 2>/dev/null); then
        echo "$path"
        return 0
    fi
    dpkg -L "$1" 2>/dev/null | grep -m1 -E "/(s?bin|games)/$2\$"
}

# Missing packages: installed with LADDER_INSTALL=1 as root, otherwise named.
missing=()
for o in "${opponents[@]}"; do
    p=$(package "$o")
    find_program "$p" "$(program "$o")" >/dev/null || missing+=("$p")
    if [[ $o == phalanx ]] && ! find_program polyglot polyglot >/dev/null; then
        missing+=(polyglot)
    fi
done
if ((${#missing[@]})); then
    if [[ ${LADDER_INSTALL:-0} == 1 && $(id -u) == 0 ]]; then
        echo "installing ${missing[*]}" >&2
        apt-get update -qq
        apt-get install -y -qq "${missing[@]}" >&2
    else
        echo "missing: ${missing[*]} (apt-get install ${missing[*]}, or LADDER_INSTALL=1 as" \
            "root); their engines are skipped" >&2
    fi
fi

# The `uci` answer of a command (empty when it does not start).
uci_answer() {
    { printf 'uci\n'; sleep 1; printf 'quit\n'; } | timeout 10 "$@" 2>&1 || true
}

args=(--engine "chessgraph=chessgraph engine")
players=()   # "NAME NOMINAL" for the table, in order
declare -A label
for o in "${opponents[@]}"; do
    bin=$(find_program "$(package "$o")" "$(program "$o")") || continue
    cmd=("$bin")
    if [[ $o == phalanx ]]; then
        pg=$(find_program polyglot polyglot) || continue
        # A fixed path, so the stored player's definition stays the same between runs.
        ini=$dir/phalanx-polyglot.ini
        printf '[PolyGlot]\nEngineCommand = %s\nEngineDir = .\nBook = false\nLog = false\n' \
            "$bin" >"$ini"
        cmd=("$pg" "$ini")
    fi
    answer=$(uci_answer "${cmd[@]}")
    if [[ $answer != *uciok* ]]; then
        why=$(grep -m1 -i -E 'error|not a uci' <<<"$answer" || true)
        echo "skipping $o: \`${cmd[*]}\` does not answer uci with uciok${why:+ ($why)}" >&2
        continue
    fi
    opts=()
    for kv in Threads=1 Hash=16 OwnBook=false Ponder=false; do
        if grep -q "^option name ${kv%%=*} " <<<"$answer"; then opts+=("$kv"); fi
    done
    if [[ $o == stockfish ]]; then
        range=$(grep -m1 '^option name UCI_Elo ' <<<"$answer" || true)
        if [[ -z $range ]]; then
            echo "skipping stockfish: no UCI_Elo option" >&2
            continue
        fi
        lo=$(awk '{for (i = 1; i < NF; i++) if ($i == "min") print $(i + 1)}' <<<"$range")
        hi=$(awk '{for (i = 1; i < NF; i++) if ($i == "max") print $(i + 1)}' <<<"$range")
        for elo in "${elos[@]}"; do
            if ((elo < lo || elo > hi)); then
                echo "skipping UCI_Elo $elo: outside Stockfish's range $lo-$hi" >&2
                continue
            fi
            n=sf$elo
            args+=(--engine "$n=${cmd[*]}" --option "$n:UCI_LimitStrength=true"
                --option "$n:UCI_Elo=$elo")
            for kv in "${opts[@]}"; do args+=(--option "$n:$kv"); done
            players+=("$n $elo")
            label[$n]="Stockfish $(sed -n 's/^id name Stockfish //p' <<<"$answer") UCI_Elo $elo"
        done
    else
        args+=(--engine "$o=${cmd[*]}")
        for kv in "${opts[@]}"; do args+=(--option "$o:$kv"); done
        players+=("$o -")
        label[$o]=$(sed -n 's/^id name //p' <<<"$answer" | head -n1)
    fi
done
if ((${#players[@]} == 0)); then
    echo "no opponent found: nothing to play" >&2
    exit 1
fi
anchor_args=()
if [[ -n ${label[sf$anchor]:-} ]]; then
    anchor_args=(--anchor "sf$anchor=$anchor")
else
    echo "no Stockfish at UCI_Elo $anchor: the ratings average 0 instead of being anchored" >&2
fi

adjudication=(--draw)
if [[ -d $root/../shared/data/syzygy ]]; then
    adjudication+=(--syzygy "$root/../shared/data/syzygy")
fi
run=("$cg" tournament --db "$db" --name "$name" "${args[@]}" --gauntlet chessgraph
    --games "$games" --tc "$tc" --concurrency "$concurrency" "${anchor_args[@]}" "${adjudication[@]}")
echo "tournament $name in $db: chessgraph against ${#players[@]} opponents," \
    "$games games per pair at $tc, $concurrency at once" >&2
"${run[@]}" "$@"
# The same tournament again, now complete: nothing is played, the standings as JSON.
json=$("${run[@]}" --quiet --json "$@")

if ! command -v jq >/dev/null; then
    echo "jq not found (apt-get install jq): no Markdown table" >&2
    exit 0
fi
rating() { # the fitted rating of player $1, as text
    jq -r --arg n "$1" '.standings.ranking[] | select(.name == $n) |
        if .status == "rated" then "\(.elo | round) ± \(.ci95 | round)"
        elif .status == "above" then (if .lower then "≥ \(.lower | round)" else "+inf" end)
        elif .status == "below" then (if .upper then "≤ \(.upper | round)" else "-inf" end)
        elif .status == "not_comparable" then "?" else "-" end' <<<"$json"
}
score() { # points/games of player $1 against chessgraph, and the percentage
    jq -r --arg n "$1" '.standings as $s | ($s.names | index($n)) as $i |
        ($s.names | index("chessgraph")) as $c | $s.cross[$i][$c] |
        if . == null then "-" else
        "\(.points)/\(.games) (\(.points / .games * 1000 | round / 10) %)" end' <<<"$json"
}
rev=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
echo
echo "chessgraph $rev against Debian's engines: $games games per pair at $tc," \
    "$(jq -r .games <<<"$json") games stored; ratings by tournament's maximum-likelihood" \
    "fit, 95 % intervals${anchor_args:+, sf$anchor fixed at $anchor}."
echo
echo "| engine | nominal Elo | its score vs chessgraph | fitted Elo |"
echo "| --- | --- | --- | --- |"
for p in "${players[@]}"; do
    n=${p% *} nominal=${p#* }
    if [[ $n == "sf$anchor" && -n ${anchor_args[*]} ]]; then
        fitted="$anchor (anchor)"
    else
        fitted=$(rating "$n")
    fi
    echo "| ${label[$n]} | $nominal | $(score "$n") | $fitted |"
done
cgline=$(jq -r '.standings.ranking[] | select(.name == "chessgraph") |
    "\(.points)/\(.games) (\(.score * 1000 | round / 10) %)"' <<<"$json")
echo "| **chessgraph engine** | - | $cgline in all | **$(rating chessgraph)** |"
