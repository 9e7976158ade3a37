#!/usr/bin/env python3
"""Makes and checks tests/fixtures/lichess-puzzles.csv, and python-chess's golden verdicts.

The fixture is in the exact format of the Lichess puzzle database
(https://database.lichess.org/#puzzles): header
`PuzzleId,FEN,Moves,Rating,RatingDeviation,Popularity,NbPlays,Themes,GameUrl,OpeningTags`;
the FEN is the position before the opponent's move, the first of `Moves` (UCI); the
puzzle starts after it and the solver must find every other move.

There is no Lichess data here, so the positions and lines come from the shared data
(../shared/data), and the metadata is invented (see tests/fixtures/lichess-puzzles.md):

- mates: the last moves of games-200k games that end in checkmate (Stockfish 15.1
  self-play): the loser's move into a forced mate (its `[%eval #N]`), then the game's
  mating line. Mates in 1 and 2 are also proved here by brute force.
- advantage/crushing: a level position from a games-200k game (|eval| <= 0.8), an
  opponent's move that hangs material (chosen here; Stockfish self-play seldom blunders),
  then Stockfish 15.1's punishment (/usr/games/stockfish, depth 14): every player move the
  only winning one (+2.5 or more, the second best 2 pawns worse), 1 to 3 moves long.
- historic mates in two from puzzles/mate-in-2-games.pgn: the position has no game move
  before it, so the opponent's move is reconstructed: a legal move of one of the
  opponent's pieces that leads to exactly that position (the real game's move is unknown).

    scripts/make_lichess_puzzles.py make --out tests/fixtures/lichess-puzzles.csv
    scripts/make_lichess_puzzles.py check tests/fixtures/lichess-puzzles.csv

`golden` scores lists of player moves the way `chessgraph solve` says it scores Lichess
puzzles: each of the player's moves must be the line's move, except that a move that
checkmates wins at once (Lichess accepts any mating move). The lists come from
`chessgraph solve --json` outputs (their `puzzles`: id and played moves) and from
hand-made variations of every line (the line itself; a wrong first move; a right first
move then a wrong one; another mating last move where there is one).
tests/golden/lichess-verdicts.csv was made by

    cargo build
    B=target/debug/chessgraph
    F=tests/fixtures/lichess-puzzles.csv
    $B --db /tmp/g.db solve --input $F --depth 3 --json > /tmp/engine.json
    $B --db /tmp/g.db solve --input $F --player random:seed=1 --json > /tmp/random.json
    scripts/make_lichess_puzzles.py golden $F /tmp/engine.json /tmp/random.json \\
        --out tests/golden/lichess-verdicts.csv
"""

import argparse
import csv
import hashlib
import io
import json
import random
import re
import subprocess
import sys

import chess
import chess.engine
import chess.pgn

HEADER = [
    "PuzzleId", "FEN", "Moves", "Rating", "RatingDeviation", "Popularity", "NbPlays",
    "Themes", "GameUrl", "OpeningTags",
]
SHARED = "../shared/data"
DEPTH = 14


# ---------------------------------------------------------------------------------------
# Reading and checking a puzzle file, independently of chessgraph.

def read_puzzles(path):
    """{id: (line, board before, moves)} and the bad lines {line: reason}."""
    puzzles, bad = {}, {}
    with open(path, newline="", encoding="utf-8") as f:
        text = f.read()
    for number, row in enumerate(text.split("\n"), 1):
        if not row:
            continue
        fields = next(csv.reader([row]))
        if number == 1 and fields == HEADER:
            continue
        try:
            pid, board, moves = check_row(fields)
        except ValueError as e:
            bad[number] = str(e)
            continue
        puzzles[pid] = (number, board, moves)
    return puzzles, bad


def check_row(fields):
    if len(fields) != len(HEADER):
        raise ValueError(f"{len(fields)} columns")
    pid, fen, moves, rating = fields[:4]
    try:
        board = chess.Board(fen)
    except ValueError:
        raise ValueError("bad FEN")
    if not board.is_valid():
        raise ValueError("bad FEN")
    try:
        int(rating)
    except ValueError:
        raise ValueError("bad rating")
    ucis = moves.split()
    if len(ucis) < 2 or len(ucis) % 2:
        raise ValueError("odd line")
    b = board.copy()
    line = []
    for u in ucis:
        m = chess.Move.from_uci(u) if re.fullmatch(r"[a-h][1-8][a-h][1-8][qrbn]?", u) else None
        if m is None or m not in b.legal_moves:
            raise ValueError("illegal move")
        line.append(m)
        b.push(m)
    return pid, board, line


# ---------------------------------------------------------------------------------------
# The verdicts.

def judge(board, line, played):
    """(solved, right): the player's moves are line[1], line[3], ...; each must be the
    line's move, or a checkmate (which ends the puzzle, won)."""
    b = board.copy()
    b.push(line[0])
    right = 0
    for k, move in enumerate(played):
        expected = line[1 + 2 * k]
        assert move in b.legal_moves, (b.fen(), move)
        if move == expected:
            right += 1
            b.push(move)
            if b.is_checkmate():
                return True, right
            if 2 + 2 * k < len(line):
                b.push(line[2 + 2 * k])
            continue
        b.push(move)
        if b.is_checkmate():
            return True, right + 1
        return False, right
    return right == len(line) // 2, right


def variations(board, line):
    """Hand-made move lists: the line, a wrong first move, right then wrong, another mate."""
    player = line[1::2]
    out = [list(player)]
    b = board.copy()
    b.push(line[0])
    for k in range(len(player)):
        others = sorted((m for m in b.legal_moves if m != player[k]), key=lambda m: m.uci())
        quiet = [m for m in others if not gives_mate(b, m)]
        mates = [m for m in others if gives_mate(b, m)]
        if k < 2 and quiet:
            out.append(player[:k] + [quiet[len(quiet) // 2]])
        if mates:
            out.append(player[:k] + [mates[0]])
        b.push(player[k])
        if 2 + 2 * k < len(line):
            b.push(line[2 + 2 * k])
    return out


def gives_mate(board, move):
    board.push(move)
    mate = board.is_checkmate()
    board.pop()
    return mate


def golden(args):
    puzzles, bad = read_puzzles(args.csv)
    lists, sources = [], []
    for run in args.runs:
        data = json.load(open(run))
        sources.append(f"{data['player']} depth={data['depth']} movetime_ms={data['movetime_ms']}")
        for f in data["files"]:
            for p in f["puzzles"]:
                lists.append((p["id"], p["played"]))
    sources.append("hand-made: each line, a wrong first move, right then wrong, other mates")
    for pid, (_, board, line) in puzzles.items():
        for v in variations(board, line):
            lists.append((pid, [m.uci() for m in v]))
    rows, seen = [], set()
    for pid, played in lists:
        key = (pid, " ".join(played))
        if key in seen:
            continue
        seen.add(key)
        number, board, line = puzzles[pid]
        solved, right = judge(board, line, [chess.Move.from_uci(u) for u in played])
        rows.append((number, pid, key[1], str(solved).lower(), right))
    rows.sort(key=lambda r: (r[0], r[2]))
    with open(args.out, "w") as out:
        out.write(f"# python-chess {chess.__version__} verdicts (scripts/make_lichess_puzzles.py golden) on {args.csv}\n")
        for s in sources:
            out.write(f"# moves: {s}\n")
        out.write("# bad lines: " + " ".join(f"{n}={bad[n].replace(' ', '_')}" for n in sorted(bad)) + "\n")
        out.write("line,id,played,solved,right\n")
        for r in rows:
            out.write(",".join(str(x) for x in r) + "\n")
    print(f"{len(rows)} verdicts, {len(puzzles)} puzzles, {len(bad)} bad lines -> {args.out}", file=sys.stderr)


# ---------------------------------------------------------------------------------------
# Making the fixture.

def pawns(comment):
    """A `[%eval]` in centipawns, White's view; mates as (+/-)100000 - N."""
    m = re.search(r"\[%eval (#?)(-?[\d.]+)\]", comment or "")
    if not m:
        return None
    v = float(m.group(2))
    if m.group(1):
        return (100000 - abs(int(v))) * (1 if v > 0 else -1)
    return int(round(v * 100))


def mate_in(board, n):
    """Whether the side to move forces mate in at most n (n <= 2), by brute force."""
    for m in board.legal_moves:
        board.push(m)
        ok = board.is_checkmate() or (n > 1 and not board.is_game_over() and all(
            forced(board, r, n - 1) for r in list(board.legal_moves)))
        board.pop()
        if ok:
            return True
    return False


def forced(board, reply, n):
    board.push(reply)
    ok = mate_in(board, n)
    board.pop()
    return ok


def mates_from_games(games):
    """(n, board before, line, game, ply) for mates in n = 1..5 at the end of games."""
    found = []
    for gi, game in enumerate(games):
        nodes = list(game.mainline())
        if not nodes or not nodes[-1].board().is_checkmate():
            continue
        for n in range(1, 6):
            start = len(nodes) - (2 * n - 1)  # index of the player's first move
            if start < 1:
                continue
            m1 = nodes[start - 1]
            ev = pawns(m1.comment)
            winner = nodes[-1].parent.board().turn
            want = (100000 - n) * (1 if winner == chess.WHITE else -1)
            if ev != want:
                continue
            board = m1.parent.board()
            line = [m1.move] + [x.move for x in nodes[start:]]
            found.append((n, board, line, gi, start))
    return found


VALUE = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 0}


def hangs(board):
    """Whether the side to move can capture a piece undefended or worth more than the capturer."""
    for m in board.legal_moves:
        victim = board.piece_at(m.to_square)
        if victim is None or VALUE[victim.piece_type] < 3:
            continue
        attacker = board.piece_at(m.from_square)
        if not board.attackers(victim.color, m.to_square) or VALUE[victim.piece_type] > VALUE[attacker.piece_type]:
            return True
    return False


def best_two(engine, board):
    """Stockfish's best move, its score and the second best's (cp, side to move)."""
    infos = engine.analyse(board, chess.engine.Limit(depth=DEPTH), multipv=2)
    scores = [i["score"].relative for i in infos]
    best = infos[0]["pv"][0]
    second = scores[1] if len(scores) > 1 else None
    return best, scores[0], second


def unique(score, second):
    """A winning move that no other move comes close to (as Lichess's generator asks)."""
    if score.is_mate():
        return False
    cp = score.score()
    return cp >= 250 and (second is None or second.is_mate() and second.mate() < 0
                          or not second.is_mate() and second.score() <= cp - 200)


def blunder_puzzles(games, engine, counts):
    """{k: [(board before, line, game, ply, cp after)]}: a level position from a game, an
    opponent's move that hangs material, and Stockfish's punishment, k player moves long,
    each the only winning move (the line stops before a move that is not)."""
    found = {k: [] for k in counts}
    longest = max(counts)
    for gi in range(0, len(games), 11):
        nodes = list(games[gi].mainline())
        for i in range(16, len(nodes) - 1, 12):
            ev = pawns(nodes[i].comment)
            if ev is None or abs(ev) > 80:
                continue
            board = nodes[i].board()
            tries = [m for m in sorted(board.legal_moves, key=lambda m: m.uci()) if hangs(after_move(board, m))]
            for m1 in tries[:3]:
                line, pos, cp = [m1], after_move(board, m1), 0
                for j in range(longest):
                    best, score, second = best_two(engine, pos)
                    if not unique(score, second):
                        break
                    line.append(best)
                    cp = score.score()
                    pos.push(best)
                    if j == longest - 1 or pos.is_game_over():
                        break
                    reply = engine.analyse(pos, chess.engine.Limit(depth=DEPTH))["pv"][0]
                    line.append(reply)
                    pos.push(reply)
                if len(line) % 2:
                    line.pop()
                k = len(line) // 2
                if k and len(found[k]) < counts[k]:
                    found[k].append((board, line, gi, i, cp))
                    break
        if all(len(found[k]) >= counts[k] for k in counts):
            break
    return found


def after_move(board, move):
    b = board.copy(stack=False)
    b.push(move)
    return b


def retro_moves(board):
    """Legal non-capturing moves of the side not to move that lead to `board`, sorted."""
    mover = not board.turn
    out = []
    for to in chess.SquareSet(board.occupied_co[mover]):
        piece = board.piece_at(to)
        if piece.piece_type == chess.KING and board.has_castling_rights(mover):
            continue
        if piece.piece_type == chess.PAWN:
            step = -8 if mover == chess.WHITE else 8
            origins = [to + step] if 0 <= to + step < 64 else []
            if chess.square_rank(to) == (3 if mover == chess.WHITE else 4):
                origins.append(to + 2 * step)
        else:
            origins = list(board.attacks(to))
        for fr in origins:
            if board.piece_at(fr) is not None:
                continue
            prev = board.copy(stack=False)
            prev.remove_piece_at(to)
            prev.set_piece_at(fr, piece)
            prev.turn = mover
            prev.ep_square = None
            prev.halfmove_clock = 0
            prev.fullmove_number = 30
            move = chess.Move(fr, to)
            if not prev.is_valid() or move not in prev.legal_moves:
                continue
            after = prev.copy()
            after.push(move)
            if after.board_fen() == board.board_fen() and after.castling_rights == board.castling_rights \
                    and after.ep_square is None and board.ep_square is None:
                out.append((move.uci(), prev, move))
    out.sort(key=lambda x: x[0])
    return out


def historic_mates(path, count):
    games = []
    with open(path) as f:
        while (g := chess.pgn.read_game(f)) is not None:
            games.append(g)
    found = []
    for gi in range(0, len(games), 7):
        game = games[gi]
        board = game.board()
        solution = [n.move for n in game.mainline()]
        if len(solution) != 3 or not mate_in(board.copy(), 2):
            continue
        retro = retro_moves(board)
        quiet = [r for r in retro if prev_piece(r) != chess.PAWN] or retro
        if not quiet:
            continue
        _, prev, move = quiet[len(quiet) // 2]
        found.append((prev, [move] + solution, game))
        if len(found) == count:
            break
    return found


def prev_piece(r):
    _, prev, move = r
    return prev.piece_at(move.from_square).piece_type


def phase(board):
    """Lichess-style phase theme: opening (early), endgame (little material), middlegame."""
    heavy = sum(len(board.pieces(t, c)) * v for t, v in ((chess.QUEEN, 9), (chess.ROOK, 5),
                (chess.BISHOP, 3), (chess.KNIGHT, 3)) for c in (chess.WHITE, chess.BLACK))
    if board.fullmove_number <= 12 and heavy >= 60:
        return "opening"
    return "endgame" if heavy <= 26 else "middlegame"


def tactic_themes(board, line):
    """A few motifs seen in the player's moves (the invented but plausible part)."""
    themes = set()
    b = board.copy()
    b.push(line[0])
    for k, m in enumerate(line[1::2]):
        if m.promotion:
            themes.add("promotion")
        victim = b.piece_at(m.to_square)
        if k == 0 and victim and victim.piece_type != chess.PAWN and not b.attackers(not b.turn, m.to_square):
            themes.add("hangingPiece")
        b.push(m)
        mover = not b.turn
        targets = [s for s in b.attacks(m.to_square)
                   if b.piece_at(s) and b.piece_at(s).color != mover
                   and b.piece_at(s).piece_type in (chess.KING, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT)]
        if len(targets) >= 2 and b.piece_at(m.to_square).piece_type in (chess.KNIGHT, chess.PAWN, chess.QUEEN):
            themes.add("fork")
        if b.is_checkmate():
            king = b.king(b.turn)
            if chess.square_rank(king) in (0, 7) and b.piece_at(m.to_square).piece_type in (chess.ROOK, chess.QUEEN):
                themes.add("backRankMate")
        if 2 + 2 * k < len(line):
            b.push(line[2 + 2 * k])
    return themes


def length_theme(n):
    return {1: "oneMove", 2: "short", 3: "long"}.get(n, "veryLong")


def puzzle_id(text):
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    h = int(hashlib.sha1(text.encode()).hexdigest(), 16)
    return "".join(alphabet[(h >> (6 * i)) % 62] for i in range(5))


def row(rng, board, line, themes, low, high, url_ply):
    pid = puzzle_id(board.fen() + " ".join(m.uci() for m in line))
    player = "black" if board.turn == chess.WHITE else "white"
    url = f"https://lichess.org/{puzzle_id(pid)}{puzzle_id(pid[::-1])[:3]}"
    url += ("/black" if player == "black" else "") + f"#{url_ply}"
    return [
        pid, board.fen(), " ".join(m.uci() for m in line), str(rng.randrange(low, high)),
        str(rng.randrange(74, 101)), str(rng.randrange(60, 101)), str(rng.randrange(80, 40000)),
        " ".join(sorted(themes)), url, "",
    ]


def make(args):
    rng = random.Random(2024)
    text = subprocess.run(["zstd", "-dc", f"{SHARED}/games-200k.pgn.zst"], check=True,
                          capture_output=True, text=True).stdout
    pgn = io.StringIO(text)
    games = []
    while (g := chess.pgn.read_game(pgn)) is not None:
        games.append(g)
    rows = []
    # Mates from games: how many of each length, spread over the games.
    mates = mates_from_games(games)
    for n, count, (low, high) in ((1, 4, (600, 1300)), (2, 4, (1000, 1900)), (3, 3, (1500, 2300)),
                                  (4, 2, (1900, 2600)), (5, 1, (2200, 2800))):
        pool = [m for m in mates if m[0] == n]
        for j in range(count):
            _, board, line, gi, ply = pool[(j * len(pool)) // count]
            after = board.copy()
            after.push(line[0])
            if n <= 2 and not mate_in(after, n):
                raise SystemExit(f"game {gi}: no forced mate in {n}")
            themes = {"mate", f"mateIn{n}", length_theme(n), phase(board)} | tactic_themes(board, line)
            rows.append(row(rng, board, line, themes, low, high, ply + games[gi].board().ply()))
    # Blunders punished: one, two and three player moves.
    engine = chess.engine.SimpleEngine.popen_uci(args.stockfish)
    engine.configure({"Threads": 1, "Hash": 16})
    found = blunder_puzzles(games, engine, {1: 4, 2: 6, 3: 2})
    engine.quit()
    for k, (low, high) in ((1, (800, 1600)), (2, (1200, 2200)), (3, (1700, 2700))):
        for board, line, gi, ply, ev in found[k]:
            themes = {"crushing" if ev >= 600 else "advantage", length_theme(k), phase(board)}
            rows.append(row(rng, board, line, themes | tactic_themes(board, line), low, high,
                            ply + games[gi].board().ply()))
    # Historic mates in two, with a reconstructed opponent's move.
    for prev, line, game in historic_mates(f"{SHARED}/puzzles/mate-in-2-games.pgn", 4):
        themes = {"mate", "mateIn2", "short", "master", phase(prev)} | tactic_themes(prev, line)
        rows.append(row(rng, prev, line, themes, 1300, 2100, 59))
    rng.shuffle(rows)
    # Bad rows, each made from a good one, at fixed places.
    bad = []
    r = list(rows[0]); r[0] += "x"; bad.append(r[:9])                                   # 9 columns
    r = list(rows[1]); r[0] += "x"; r[1] = r[1].replace("/", "", 1); bad.append(r)  # bad FEN
    r = list(rows[2]); r[0] += "x"; ms = r[2].split(); ms[1] = illegal(r[1], ms[:1]); r[2] = " ".join(ms); bad.append(r)
    r = list(rows[3]); r[0] += "x"; r[2] = " ".join(r[2].split()[:-1]); bad.append(r)  # odd line
    r = list(rows[4]); r[0] += "x"; r[3] = "15o0"; bad.append(r)           # bad rating
    r = list(rows[5]); r[0] += "x"; ms = r[2].split(); ms[0] = illegal(r[1], []); r[2] = " ".join(ms); bad.append(r)
    out_rows = rows[:10] + bad[:3] + rows[10:20] + bad[3:] + rows[20:]
    with open(args.out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(HEADER)
        for r in out_rows:
            w.writerow(r)
    puzzles, bad_lines = read_puzzles(args.out)
    print(f"{len(puzzles)} puzzles, bad lines {sorted(bad_lines.items())} -> {args.out}", file=sys.stderr)


def illegal(fen, moves):
    """A move in UCI syntax that is not legal after `moves` from `fen`."""
    b = chess.Board(fen)
    for u in moves:
        b.push_uci(u)
    for fr in chess.SQUARES:
        for to in chess.SQUARES:
            m = chess.Move(fr, to)
            if fr != to and b.piece_at(fr) and b.piece_at(fr).color == b.turn and m not in b.legal_moves \
                    and not b.is_pseudo_legal(m):
                return m.uci()
    raise SystemExit("no illegal move?")


def check(args):
    puzzles, bad = read_puzzles(args.csv)
    themes = {}
    with open(args.csv, newline="") as f:
        for r in list(csv.reader(f))[1:]:
            if len(r) == len(HEADER) and r[0] in puzzles:
                for t in r[7].split():
                    themes[t] = themes.get(t, 0) + 1
    print(f"{len(puzzles)} puzzles; bad lines: {sorted(bad.items())}")
    print("themes:", sorted(themes.items(), key=lambda x: (-x[1], x[0])))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("--out", required=True)
    m.add_argument("--stockfish", default="/usr/games/stockfish")
    c = sub.add_parser("check")
    c.add_argument("csv")
    g = sub.add_parser("golden")
    g.add_argument("csv")
    g.add_argument("runs", nargs="*", help="`chessgraph solve --json` outputs")
    g.add_argument("--out", required=True)
    args = ap.parse_args()
    {"make": make, "check": check, "golden": golden}[args.cmd](args)


if __name__ == "__main__":
    main()
