#!/usr/bin/env bash
# The engine as an OpenBench worker builds and benches it (docs/openbench.md): `make -j
# EXE=NAME` at the repository's root, then `./NAME bench` in two processes at once. Both
# outputs must read, by the worker's rule, as the same node signature and a speed, and the
# signature must be `chessgraph bench`'s. Then a UCI handshake with no arguments, and the
# tuning build with spsa-apply.py. CI runs this; CHESSGRAPH_BIN names the chessgraph
# executable to compare with (else the release build is made).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
if [[ -n ${CHESSGRAPH_BIN:-} ]]; then
    tool=$(realpath "$CHESSGRAPH_BIN")
else
    cargo build --release --bin chessgraph
    tool=${CARGO_TARGET_DIR:-$root/target}/release/chessgraph
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

if ! make -j EXE=chessgraph-ob-test >"$dir/make.log" 2>&1; then
    tail -30 "$dir/make.log"
    echo "make EXE=... failed" >&2
    exit 1
fi
mv chessgraph-ob-test "$dir/engine"
(cd "$dir" && ./engine bench >a.txt) &
(cd "$dir" && ./engine bench >b.txt) &
wait

# The worker's reading: lines from the last up, non-alphanumerics as spaces, the first
# node count and speed found (written from its rule).
python3 - "$dir/a.txt" "$dir/b.txt" "$("$tool" --db "$dir/none.db" bench --json)" <<'PY'
import json, re, sys

def reading(text):
    nodes = nps = None
    for line in reversed(text.strip().split("\n")):
        line = re.sub(r"[^a-zA-Z0-9 ]+", " ", line)
        n = re.search(r"(\d+\s+nodes)|(nodes\s+\d+)|(nodes searched\s+\d+)", line, re.I)
        s = re.search(r"(\d+\s+nps)|(nps\s+\d+)|(nodes second\s+\d+)", line, re.I)
        nodes = nodes or (n and n.group())
        nps = nps or (s and s.group())
    num = lambda m: int(re.search(r"\d+", m).group()) if m else None
    return num(nodes), num(nps)

a, b = (reading(open(p).read()) for p in sys.argv[1:3])
signature = json.loads(sys.argv[3])["nodes"]
assert a[0] == b[0] == signature, f"benches {a[0]} and {b[0]}, chessgraph bench {signature}"
assert a[1] and b[1], f"no speed read: {a} {b}"
print(f"openbench: make and bench read as {a[0]} nodes, {a[1]} and {b[1]} nps (chessgraph bench: {signature})")
PY
# The engine's entry for an OpenBench server: valid, building from the root with the
# toolchain the workspace asks for.
python3 - scripts/openbench/chessgraph.json <<'PY'
import json, re, sys
entry = json.load(open(sys.argv[1]))
build = entry["build"]
assert build["path"] == "" and "Linux" in build["systems"], build
toolchain = re.search(r'rust-version = "([\d.]+)"', open("Cargo.toml").read()).group(1)
assert build["compilers"] == [f"cargo>={toolchain}.0"], (build["compilers"], toolchain)
assert {"default", "STC", "LTC"} <= set(entry["test_presets"]), entry["test_presets"].keys()
PY
test ! -e "$dir/none.db" || { echo "bench created a database" >&2; exit 1; }

printf 'uci\nisready\nposition startpos\ngo nodes 1000\nisready\nquit\n' | "$dir/engine" >"$dir/uci.txt"
for line in uciok readyok 'option name Threads' bestmove; do
    grep -q "$line" "$dir/uci.txt" || { echo "no '$line' from the engine:"; cat "$dir/uci.txt"; exit 1; } >&2
done
echo "openbench: the engine speaks UCI without arguments"

# The tuning build (make tune, for OpenBench's SPSA tunes as for chessgraph's) and a tune's
# result written back as the search's defaults (scripts/tools/spsa-apply.py) on a copy of
# params.rs: every constant the engine prints is found there, the two values changed are
# the two lines changed (-240.4 rounds to -240), and a value outside its range is refused.
if ! make -j tune EXE="$dir/tune" >"$dir/make-tune.log" 2>&1; then
    tail -30 "$dir/make-tune.log"; echo "make tune EXE=... failed" >&2; exit 1
fi
"$dir/tune" spsa | awk -F', ' '
    $1 == "rfp_margin" { $3 = $3 + 7 } $1 == "cmp_limit" { $3 = $3 - 240.4 }
    { print $1 ", " $3 }' >"$dir/values.txt"
cp crates/engine/src/search/params.rs "$dir/params.rs"
python3 scripts/tools/spsa-apply.py "$dir/values.txt" --params "$dir/params.rs" >"$dir/apply.txt"
grep -q "^$(wc -l <"$dir/values.txt") constants read" "$dir/apply.txt" || { cat "$dir/apply.txt"; exit 1; } >&2
changed=$(diff crates/engine/src/search/params.rs "$dir/params.rs" | grep -c '^>' || true)
grep -q '^    rfp_margin = 97, ' "$dir/params.rs" && grep -q '^    cmp_limit = -240, ' "$dir/params.rs" \
    && [[ $changed == 2 ]] || { echo "spsa-apply changed $changed lines:"; diff crates/engine/src/search/params.rs "$dir/params.rs"; exit 1; } >&2
echo "rfp_margin, 500" >"$dir/bad.txt"
if python3 scripts/tools/spsa-apply.py "$dir/bad.txt" --params "$dir/params.rs" 2>"$dir/err.txt"; then
    echo "spsa-apply took a value outside its range" >&2; exit 1
fi
grep -q "outside 30..=200" "$dir/err.txt" || { cat "$dir/err.txt"; exit 1; } >&2
echo "openbench: a tune's values are written back into params.rs"
