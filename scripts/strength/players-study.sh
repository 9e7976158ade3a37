#!/usr/bin/env bash
# The PUC-Rio players study's round robin, repeated with its seven players: Naive (random),
# Minimax (alpha-beta, depth 4, moves ordered by their evaluation as the study did), MCTS
# (3,000 iterations), the logistic-regression move classifier, the CNN (one ply on the
# players study's CNN), Minimax+CNN (depth 4 on it, the same order) and Stockfish at depth 1
# and 0.1 s, as the study limited it. GAMES per pair (default 20, the
# study's) from chessgraph's balanced book openings, colours alternating, a forced draw at
# 100 moves (each side) counted apart, as the study did.
#
# Usage: scripts/strength/players-study.sh CNN_MODEL [GAMES]
#   CNN_MODEL: a cnn-study model (scripts/tools/nets-tables.sh writes one).
# Env: OUT (default target/players-study), MOVETIME (ms per move for every player,
#      default 1000; the fixed-depth players stop at their last completed depth when it
#      runs out, which only Minimax+CNN does: its depth 4 takes 1-15 s on 2 cores),
#      STOCKFISH (default /usr/games/stockfish).
# Writes OUT/study.db (the tournament, resumable), OUT/study.pgn, OUT/tournament.txt and
# OUT/pairs.md (wins, draws, losses and forced draws per pair).
set -euo pipefail
cd "$(dirname "$0")/../.."
cnn=$(realpath "$1")
games=${2:-20}
out=${OUT:-target/players-study}
movetime=${MOVETIME:-1000}
sf=${STOCKFISH:-/usr/games/stockfish}
shared=../shared/data
mkdir -p "$out"
cargo build --release --quiet
bin=${CARGO_TARGET_DIR:-$PWD/target}/release/chessgraph
db=$out/study.db
cg() { "$bin" --db "$db" "$@"; }
if [[ ! -s $db ]]; then
    cg import --quiet "$shared/positions-200k.csv.zst" "$shared/games-200k.pgn.zst"
fi
if [[ ! -s $out/moves.json ]]; then
    cg train moves --out "$out/moves.json" > /dev/null
fi
cg tournament --name players-study \
    --player "Naive=random:seed=1" \
    --player "Minimax=minimax:depth=4,order=eval,evaluator=seed003" \
    --player "MCTS=mcts:iterations=3000,evaluator=seed003" \
    --player "Logistic=logistic:model=$out/moves.json" \
    --player "CNN=cnn:model=$cnn" \
    --player "Minimax+CNN=minimax:depth=4,order=eval,evaluator=$cnn" \
    --engine "Stockfish=python3 scripts/strength/uci-go.py go_depth_1_movetime_100 $sf" \
    --games "$games" --movetime "$movetime" --max-moves 100 --concurrency 2 \
    --pgn "$out/study.pgn" --quiet | tee "$out/tournament.txt"
python3 - "$out/study.pgn" > "$out/pairs.md" <<'PY'
import collections, re, sys
text = open(sys.argv[1]).read()
games = re.findall(r'\[White "([^"]*)"\].*?\[Black "([^"]*)"\].*?\[Result "([^"]*)"\](.*?)(?=\n\n\[|\Z)', text, re.S)
pairs = collections.defaultdict(lambda: [0, 0, 0, 0])
for white, black, result, rest in games:
    a, b = sorted([white, black])
    score = {"1-0": 1, "0-1": -1}.get(result, 0) * (1 if white == a else -1)
    row = pairs[(a, b)]
    if 'Termination "adjudicated draw (ply limit)"' in rest:
        row[3] += 1
    elif score > 0:
        row[0] += 1
    elif score < 0:
        row[2] += 1
    else:
        row[1] += 1
print("| pair | wins | draws | losses | forced draws (100 moves) |")
print("| --- | --- | --- | --- | --- |")
for (a, b), (w, d, l, f) in sorted(pairs.items()):
    print(f"| {a} – {b} | {w} | {d} | {l} | {f} |")
PY
cat "$out/pairs.md"
