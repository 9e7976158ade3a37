#!/usr/bin/env bash
# Runs the README's Usage block top to bottom, as written, on a fresh database: the block is
# cut from README.md (the first ```sh block after "## Usage"), and run with `set -e` in a
# new directory beside the project (so `../shared/data` resolves as from the project root;
# `tests` is linked in), with the release binary first on the PATH, then checks that it
# wrote nothing outside `out/` but the database. CI runs this.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
cargo build --release
block=$(awk '/^## Usage/{u=1} u&&/^```sh/{b=1; next} b&&/^```/{exit} b' README.md)
[[ -n $block ]] || { echo "no Usage block in README.md" >&2; exit 1; }
work=$(mktemp -d "$root/../readme-usage.XXXXXX")
logs=$(mktemp -d)
trap 'rm -rf "$work" "$logs"' EXIT
ln -s "$root/tests" "$work/tests"
bin=$(mktemp -d)
ln -s "${CARGO_TARGET_DIR:-$root/target}/release/chessgraph" "$bin/chessgraph"
cd "$work"
export PATH="$bin:$PATH"
n=0
while IFS= read -r line; do
    [[ -z ${line// } ]] && continue
    n=$((n + 1))
    echo "+ $line"
    # Each line is one command, run through bash exactly as a user would paste it.
    bash -e -o pipefail -c "$line" > "$logs/$n.txt" 2>&1 || {
        echo "README Usage line $n failed:" >&2
        cat "$logs/$n.txt" >&2
        exit 1
    }
done <<< "$block"
# Everything but the database goes under out/ (ignored by git), so a reader's clone stays
# clean.
stray=$(find . -mindepth 1 -maxdepth 1 ! -name out ! -name tests ! -name 'chessgraph.db*' | sort)
if [[ -n $stray ]]; then
    echo "README Usage block wrote outside out/:" >&2
    echo "$stray" >&2
    exit 1
fi
echo "README Usage block: $n commands ran, all output under out/"
