#!/usr/bin/env bash
# Benchmark of the data spine: import + analyze of the shared 200k-position CSV on a
# fresh database. Prints wall seconds and rows/s for each step and for both together.
set -euo pipefail
cd "$(dirname "$0")/../.."
data=${1:-../shared/data/positions-200k.csv.zst}
runs=${RUNS:-3}
cargo build --release --quiet
bin=${CARGO_TARGET_DIR:-$PWD/target}/release/chessgraph
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "input: $data ($(nproc) cores), $runs runs"
for i in $(seq "$runs"); do
    db="$tmp/bench-$i.db"
    t0=$(date +%s.%N)
    $bin --db "$db" import --quiet "$data" >/dev/null
    t1=$(date +%s.%N)
    $bin --db "$db" analyze --quiet >/dev/null
    t2=$(date +%s.%N)
    rows=$($bin --db "$db" stats --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["sources"][0]["rows_read"])')
    positions=$($bin --db "$db" stats --json | python3 -c 'import json,sys; s=json.load(sys.stdin); print(s["analyzed"], s["edges"])')
    python3 - "$t0" "$t1" "$t2" "$rows" $positions <<'PY'
import sys
t0, t1, t2 = map(float, sys.argv[1:4]); rows = int(sys.argv[4]); pos, edges = int(sys.argv[5]), int(sys.argv[6])
imp, ana = t1 - t0, t2 - t1
print(f"import {imp:5.2f} s ({rows/imp:,.0f} rows/s) | analyze {ana:5.2f} s ({pos/ana:,.0f} positions/s, {edges:,} edges) | total {imp+ana:5.2f} s")
PY
    rm -f "$db" "$db"-wal "$db"-shm
done
