#!/usr/bin/env bash
# The core crate (chess rules, the graph and features, the packed position, the split,
# the readers) builds alone and depends on no database, network, HTTP or columnar
# library: the SQLite extension and the Python package build on it. Prints the core's
# dependency tree and fails if one of them appears in it.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo check --quiet -p chessgraph-core
tree=$(cargo tree -p chessgraph-core -e normal --prefix none --format '{p}')
forbidden=$(grep -E '^(rusqlite|libsqlite3-sys|candle-core|candle-nn|safetensors|hyper|tokio|arrow|parquet)' <<<"$tree" || true)
echo "chessgraph-core depends on $(sort -u <<<"$tree" | wc -l) crates"
if [[ -n "$forbidden" ]]; then
    echo "scripts/check/core-deps.sh: chessgraph-core depends on:" >&2
    sort -u <<<"$forbidden" >&2
    exit 1
fi
echo "none of them is rusqlite, candle, hyper, tokio, arrow or parquet"
