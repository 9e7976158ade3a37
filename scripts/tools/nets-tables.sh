#!/usr/bin/env bash
# The neural-network study's τ table, repeated on one split: builds one database of the
# shared Stockfish-labelled data (the 200k and 700k self-play sets with their games, and
# the 1.29M positions with Stockfish's depth-8 best move), trains the four networks of the
# studies on it (`train cnn`), then measures every value network beside material, the
# shipped NNUE and the graph-features study's seed003 with `rate evaluator` on one sample of the test
# part. Policy figures (top-1/top-3 agreement with the stored best move) are the
# `test part:` lines of the training logs.
#
# Everything goes to OUT (default target/nets-tables/): nets.db, ARCH.safetensors,
# ARCH.log, eval.txt, and summary.txt (the figures the docs quote).
#
# Sizes (environment): TRAIN (training positions per network, default 200000), EPOCHS
# (default 3), EVAL_SAMPLE (test positions `rate evaluator` measures, default 20000), ARCHS (default
# all four), EVAL (0: train only). A network already trained in OUT is kept, so runs with
# different sizes per architecture add up. On 2 cores the defaults take about two hours.
set -euo pipefail
cd "$(dirname "$0")/../.."
data=${DATA:-../shared/data}
out=${1:-target/nets-tables}
train=${TRAIN:-200000}
epochs=${EPOCHS:-3}
sample=${EVAL_SAMPLE:-20000}
archs=${ARCHS:-cnn-study cnn-eval resnet-policy policy-value}
cargo build --release --quiet
bin=${CARGO_TARGET_DIR:-$PWD/target}/release/chessgraph
mkdir -p "$out"
db=$out/nets.db
cg() { "$bin" --db "$db" "$@"; }
if [[ ! -f $db ]]; then
    start=$(date +%s)
    cg import --quiet "$data/positions-200k.csv.zst" "$data/games-200k.pgn.zst" \
        "$data/selfplay-700k.csv.zst" "$data/selfplay-700k.pgn.zst" "$data/bestmoves-sfd8.epd.zst"
    echo "database built in $(( $(date +%s) - start )) s"
fi
for arch in $archs; do
    [[ -f $out/$arch.safetensors && -f $out/$arch.done ]] && continue
    cg train cnn --arch "$arch" --out "$out/$arch.safetensors" --train-positions "$train" \
        --valid-positions 20000 --epochs "$epochs" --quiet | tee "$out/$arch.log"
    touch "$out/$arch.done"
done
[[ ${EVAL:-1} == 0 ]] && exit 0
value=material,seed003,nnue
for arch in cnn-study cnn-eval policy-value; do
    [[ -f $out/$arch.safetensors ]] && value+=",$out/$arch.safetensors"
done
cg rate evaluator --evaluator "$value" --sample "$sample" --quiet | tee "$out/eval.txt"
{
    echo "== eval on $sample test positions"
    cat "$out/eval.txt"
    for arch in $archs; do
        echo "== $arch"
        grep -E "^training|^kept|^wrote|positions \(" "$out/$arch.log" || true
    done
} > "$out/summary.txt"
echo "summary in $out/summary.txt"
