#!/usr/bin/env bash
# Learning curves of the studies' networks: each architecture trained on growing numbers
# of training positions (spread over the train part), each run's figures by epoch on the
# valid part and once on the test part. Uses the database scripts/tools/nets-tables.sh
# builds.
#
# Usage: scripts/tools/nets-curve.sh DB [OUT]
# Env: ARCHS (default "cnn-study cnn-eval"), SIZES (default "25000 50000 100000 200000"),
#      EPOCHS (default 4). Writes OUT/ARCH-N.log per run and OUT/curve.md (one row per run:
#      positions, the valid figures of every epoch, the kept epoch's test figures, seconds).
set -euo pipefail
cd "$(dirname "$0")/../.."
db=$(realpath "$1")
out=${2:-target/nets-curve}
mkdir -p "$out"
cargo build --release --quiet
bin=${CARGO_TARGET_DIR:-$PWD/target}/release/chessgraph
for arch in ${ARCHS:-cnn-study cnn-eval}; do
    for n in ${SIZES:-25000 50000 100000 200000}; do
        log=$out/$arch-$n.log
        [[ -s $log ]] && grep -q "^wrote" "$log" && continue
        "$bin" --db "$db" train cnn --arch "$arch" --out "$out/$arch-$n.safetensors" \
            --train-positions "$n" --valid-positions 20000 --epochs "${EPOCHS:-4}" --patience 9 \
            --quiet > "$log"
    done
done
{
    echo "| arch | training positions | valid by epoch | test (kept epoch) | seconds |"
    echo "| --- | --- | --- | --- | --- |"
    for log in "$out"/*-[0-9]*.log; do
        name=$(basename "$log" .log)
        epochs=$(grep -oE "valid loss [0-9.]+(, τ [0-9.]+)?(, top-1 [0-9.]+ %)?" "$log" \
            | sed -E 's/valid loss [0-9.]+, //; s/valid loss //' | paste -sd ' ' | sed 's/ τ/; τ/g')
        test=$(grep -oE "test part: [^(]*" "$log" | sed 's/test part: //' || true)
        secs=$(grep -oE "epochs in [0-9.]+ s" "$log" | grep -oE "[0-9.]+ s" || true)
        echo "| ${name%-*} | ${name##*-} | $epochs | $test | $secs |"
    done
} > "$out/curve.md"
cat "$out/curve.md"
