#!/usr/bin/env bash
# Loading the Lichess evaluation database: `import` and `analyze --edges none` of N
# distinct positions in its format (.jsonl.zst), then the same in one pass (`import
# --analyze`, into a second database), beside DuckDB's plain load of the same
# file (`CREATE TABLE ... AS SELECT fen, cp, mate FROM read_json(...)`) timed in the same
# run as the anchor. For each step: wall and CPU time, peak memory, positions per second
# and bytes per position on disk (and where they go, table by table, from SQLite's
# dbstat); then the ratio to DuckDB and the projection to the whole database
# (190,987,505 positions, its January 2025 card).
#
# Usage: scripts/bench/lichess-load.sh [N...]   (default: 5000000 20000000)
# Needs ../shared/data, zstd, python3 with python-chess (positions beyond the 9M colour
# flips need it) and duckdb (pip install chess duckdb). The data (from the shared sets,
# their flips, mirrors and one-move continuations: scripts/fixtures/scale-data.py) is
# written once per N into target/bench-load and kept (about 27 bytes per position). Each step's output stays in target/bench-load/N/.
set -euo pipefail
cd "$(dirname "$0")/../.."
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(5000000 20000000)
work=$PWD/target/bench-load
lichess=190987505
cargo build --release --quiet
cg=${CARGO_TARGET_DIR:-$PWD/target}/release/chessgraph
mkdir -p "$work"
shared=../shared/data
sources=("$shared/positions-200k.csv.zst" "$shared/selfplay-700k.csv.zst"
    "$shared/datagen-1.9m-sfd4.epd.zst" "$shared/datagen-1.9m-sfd4-2.epd.zst")

# Runs a command under /usr/bin/time -v into DIR/NAME.{out,time}; sets wall, cpu, peak.
timed() {
    local dir=$1 name=$2
    shift 2
    /usr/bin/time -v "$@" > "$dir/$name.out" 2> "$dir/$name.time"
    read -r wall cpu peak < <(awk -F': ' '
        /Elapsed \(wall clock\)/ { n = split($2, t, ":"); wall = (n == 3) ? t[1] * 3600 + t[2] * 60 + t[3] : t[1] * 60 + t[2] }
        /User time/ { cpu += $2 }
        /System time/ { cpu += $2 }
        /Maximum resident/ { peak = $2 / 1024 }
        END { printf "%.1f %.1f %.0f\n", wall, cpu, peak }' "$dir/$name.time")
}

row() { # name wall cpu peak bytes positions
    awk -v name="$1" -v wall="$2" -v cpu="$3" -v peak="$4" -v bytes="$5" -v n="$6" -v all="$lichess" 'BEGIN {
        printf "| %s | %.1f s | %.1f s | %d MB | %.0fk/s | %s | %.0f min, %.0f GB |\n",
            name, wall, cpu, peak, n / wall / 1000, (bytes > 0 ? sprintf("%.0f", bytes / n) : ""),
            wall * all / n / 60, bytes * all / n / 1e9 }'
}

echo "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo), load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
for n in "${sizes[@]}"; do
    dir=$work/$n
    mkdir -p "$dir"
    data=$work/lichess-$n.jsonl.zst
    if [[ ! -s $data ]]; then
        python3 scripts/fixtures/scale-data.py --count "$n" "${sources[@]}" \
            | zstd -q -T2 -o "$data.part"
        mv "$data.part" "$data"
    fi
    echo
    echo "## $n positions asked for ($(stat -c %s "$data") bytes of .jsonl.zst)"
    echo
    echo "| step | wall | CPU | peak memory | positions/s | bytes/position | projected to 191M |"
    echo "| --- | --- | --- | --- | --- | --- | --- |"
    rm -f "$dir"/duck.db "$dir"/cg.db* "$dir"/cg1.db*
    timed "$dir" duckdb python3 - "$data" "$dir/duck.db" <<'PY'
import duckdb, sys
con = duckdb.connect(sys.argv[2])
con.execute("SET threads = 2")
con.execute(f"""CREATE TABLE evals AS SELECT fen, evals[1].pvs[1].cp AS cp,
    evals[1].pvs[1].mate AS mate FROM read_json('{sys.argv[1]}', format = 'newline_delimited')""")
con.close()
PY
    # The shared data gives fewer distinct positions than the largest sizes ask for:
    # every rate is over the rows the file holds.
    held=$(python3 -c "import duckdb, sys; print(duckdb.connect(sys.argv[1], read_only=True).execute('SELECT count(*) FROM evals').fetchone()[0])" "$dir/duck.db")
    duck_wall=$wall
    row "DuckDB $(python3 -c 'import duckdb; print(duckdb.__version__)'): load" "$wall" "$cpu" "$peak" "$(stat -c %s "$dir/duck.db")" "$held"
    timed "$dir" import "$cg" --db "$dir/cg.db" import --quiet "$data"
    read -r import_wall import_cpu import_peak <<< "$wall $cpu $peak"
    row "chessgraph: import" "$wall" "$cpu" "$peak" "$(stat -c %s "$dir/cg.db")" "$held"
    timed "$dir" analyze "$cg" --db "$dir/cg.db" analyze --quiet --edges none
    row "chessgraph: analyze --edges none" "$wall" "$cpu" "$peak" "$(stat -c %s "$dir/cg.db")" "$held"
    both=$(awk -v a="$import_wall" -v b="$wall" 'BEGIN { print a + b }')
    row "chessgraph: import + analyze" "$both" "$(awk -v a="$import_cpu" -v b="$cpu" 'BEGIN { print a + b }')" \
        "$(( import_peak > peak ? import_peak : peak ))" "$(stat -c %s "$dir/cg.db")" "$held"
    rm -f "$dir"/cg1.db*
    timed "$dir" import-analyze "$cg" --db "$dir/cg1.db" import --quiet --analyze "$data"
    one_wall=$wall
    row "chessgraph: import --analyze (one pass)" "$wall" "$cpu" "$peak" "$(stat -c %s "$dir/cg1.db")" "$held"
    python3 - "$dir/cg.db" <<'PY'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
n = con.execute("SELECT count(*) FROM position_rows").fetchone()[0]
rows = con.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
print("\nbytes per position by table and index (dbstat): " + ", ".join(
    f"{name} {size / n:.0f}" for name, size in rows if size / n >= 1))
PY
    awk -v c="$import_wall" -v b="$both" -v d="$duck_wall" 'BEGIN {
        printf "\nimport / DuckDB load: %.1f×; import + analyze / DuckDB load: %.1f×", c / d, b / d }'
    awk -v o="$one_wall" -v d="$duck_wall" 'BEGIN { printf "; import --analyze / DuckDB load: %.1f×\n", o / d }'
done
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
