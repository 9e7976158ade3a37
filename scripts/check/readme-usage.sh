#!/usr/bin/env bash
# Runs the README's two command blocks top to bottom, as written, each on a fresh
# directory, with the release binary first on the PATH, and checks that they wrote
# nothing outside `out/` but the database:
# - the Quick start block (the second ```sh block after "## Quick start"), in a directory
#   with no `../shared` beside it: it must work from a clone alone (`tests` is linked in);
# - the Usage block (the first ```sh block after "## Usage"), in a new directory beside
#   the project, so that `../shared/data` resolves as from the project root.
# CI runs this.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
# CHESSGRAPH_BIN names an executable already built (CI's test build) instead of the release one.
if [[ -n ${CHESSGRAPH_BIN:-} ]]; then
    exe=$(realpath "$CHESSGRAPH_BIN")
else
    cargo build --release
    exe=${CARGO_TARGET_DIR:-$root/target}/release/chessgraph
fi
bin=$(mktemp -d)
ln -s "$exe" "$bin/chessgraph"
export PATH="$bin:$PATH"
logs=$(mktemp -d)
dirs=("$bin" "$logs")
trap 'rm -rf "${dirs[@]}"' EXIT

# The `nth` ```sh block after the heading `heading`.
block() {
    awk -v h="$1" -v n="$2" '$0 == h {u=1} u && /^```sh/ {k++; if (k == n) {b=1; next}} b && /^```/ {exit} b' README.md
}

# Runs each line of block text $2 (named $1) through bash, in directory $3.
run() {
    local name=$1 text=$2 work=$3 n=0
    [[ -n $text ]] || { echo "no $name block in README.md" >&2; exit 1; }
    ln -s "$root/tests" "$work/tests"
    while IFS= read -r line; do
        [[ -z ${line// } ]] && continue
        n=$((n + 1))
        echo "+ $line"
        # Each line is one command, run exactly as a user would paste it.
        (cd "$work" && bash -e -o pipefail -c "$line") > "$logs/$name-$n.txt" 2>&1 || {
            echo "README $name line $n failed:" >&2
            cat "$logs/$name-$n.txt" >&2
            exit 1
        }
    done <<< "$text"
    # Everything but the database goes under out/ (ignored by git), so a reader's clone
    # stays clean.
    stray=$(cd "$work" && find . -mindepth 1 -maxdepth 1 ! -name out ! -name tests ! -name 'chessgraph.db*' | sort)
    if [[ -n $stray ]]; then
        echo "README $name block wrote outside out/:" >&2
        echo "$stray" >&2
        exit 1
    fi
    echo "README $name block: $n commands ran, all output under out/"
}

quick=$(mktemp -d /tmp/readme-quick.XXXXXX)
dirs+=("$quick")
[[ ! -e $quick/../shared ]] || { echo "$quick/../shared exists: not a clone alone" >&2; exit 1; }
run "Quick start" "$(block '## Quick start' 2)" "$quick"

usage=$(mktemp -d "$root/../readme-usage.XXXXXX")
dirs+=("$usage")
run Usage "$(block '## Usage' 1)" "$usage"
