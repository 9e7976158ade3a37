#!/usr/bin/env bash
# Scale figures: import, analyze and export of N distinct positions (default 1,000,000) in
# the Lichess evaluation database format, with wall time, CPU time and peak memory from
# /usr/bin/time -v, the bytes per position in SQLite (with all edges, attacks only and no
# edges) and in Parquet, and the README's DuckDB recipes timed on the Parquet files
# against chessgraph's own heatmap and fit.
#
# The positions: the shared 200k and 700k sets (about 706k distinct) and then their
# colour-flipped twins (scripts/fixtures/scale-data.py), written as .jsonl.zst.
#
# Usage: scripts/bench/scale.sh [N]    (needs ../shared/data, zstd, python3; DuckDB for the
# recipes: pip install duckdb). About 3 minutes on the idle 2-core machine; the work
# directory (target/bench-scale, ~2 GB) is kept for inspection.
set -euo pipefail
cd "$(dirname "$0")/../.."
count=${1:-1000000}
work=target/bench-scale
cargo build --release --quiet
cg=${CARGO_TARGET_DIR:-$PWD/target}/release/chessgraph
rm -rf "$work"
mkdir -p "$work"

# Runs a command under /usr/bin/time -v; prints "name: wall s, user s, sys s, peak MB" and
# the command's last output line.
timed() {
    local name=$1
    shift
    /usr/bin/time -v "$@" > "$work/$name.out" 2> "$work/$name.time"
    awk -v name="$name" -F': ' '
        /Elapsed \(wall clock\)/ { n = split($2, t, ":"); wall = (n == 3) ? t[1] * 3600 + t[2] * 60 + t[3] : t[1] * 60 + t[2] }
        /User time/ { user = $2 }
        /System time/ { sys = $2 }
        /Maximum resident/ { rss = $2 / 1024 }
        END { printf "%-14s wall %7.1f s  user %7.1f s  sys %5.1f s  peak %6.0f MB\n", name, wall, user, sys, rss }
    ' "$work/$name.time"
    tail -n 1 "$work/$name.out" | sed 's/^/               /'
}

size() { stat -c %s "$1"; }
per() { awk -v b="$1" -v n="$2" 'BEGIN { printf "%.0f", b / n }'; }

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
echo "data: $count positions"
python3 scripts/fixtures/scale-data.py --count "$count" \
    ../shared/data/positions-200k.csv.zst ../shared/data/selfplay-700k.csv.zst \
    | zstd -q -T2 -o "$work/scale.jsonl.zst"
echo "input: $(size "$work/scale.jsonl.zst") bytes (.jsonl.zst)"

timed import "$cg" --db "$work/all.db" import --quiet "$work/scale.jsonl.zst"
positions=$(sqlite3 "$work/all.db" "SELECT count(*) FROM position_rows" 2>/dev/null \
    || python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM position_rows').fetchone()[0])" "$work/all.db")
cp "$work/all.db" "$work/none.db"
cp "$work/all.db" "$work/attacks.db"
imported=$(size "$work/all.db")

timed analyze-all "$cg" --db "$work/all.db" analyze --quiet
timed analyze-attacks "$cg" --db "$work/attacks.db" analyze --quiet --edges attacks
timed analyze-none "$cg" --db "$work/none.db" analyze --quiet --edges none
timed export "$cg" --db "$work/none.db" export data --out "$work/parquet" --quiet
cat "$work/export.out"

echo
echo "bytes per position ($positions positions):"
echo "  SQLite after import:            $(per "$imported" "$positions")"
for m in all attacks none; do
    printf "  SQLite analyzed, --edges %-7s %s\n" "$m:" "$(per "$(size "$work/$m.db")" "$positions")"
done
parquet=$(du -sb "$work/parquet" | cut -f1)
echo "  Parquet, all tables:            $(per "$parquet" "$positions")"
for t in positions features edges labels splits; do
    b=$(cat "$work"/parquet/"$t"-*.parquet | wc -c)
    printf "    %-10s %s\n" "$t" "$(per "$b" "$positions")"
done

echo
timed heatmap "$cg" --db "$work/none.db" heatmap --out-dir "$work/heatmaps"
"$cg" --db "$work/none.db" fit linear --json > "$work/fit.json"
timed fit "$cg" --db "$work/none.db" fit linear
if python3 -c "import duckdb" 2>/dev/null; then
    python3 scripts/check/parquet.py --db "$work/none.db" --dir "$work/parquet" --recipes-only \
        --heatmap-csv "$work/heatmaps/heatmap.csv" --fit-json "$work/fit.json"
else
    echo "skipped: the DuckDB recipes (pip install duckdb)"
fi
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
