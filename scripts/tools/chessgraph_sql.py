"""chessgraph's SQL functions for Python's sqlite3, so other programs can read a chessgraph
database's views (`positions.fen`, `features.white_attacks`) without chessgraph:

    import sqlite3, chessgraph_sql
    conn = sqlite3.connect("chessgraph.db")
    chessgraph_sql.register(conn)
    conn.execute("SELECT fen, eval_cp FROM positions LIMIT 3").fetchall()

An independent reimplementation of crates/core/src/chess/packed.rs (the packed position layout) and of
the attack sets, used by scripts/check/parquet.py to read the database it compares against.
`pack_fen` and `board_key` (writing, and the position index) are not provided: write with
chessgraph.
"""

PIECES = "PNBRQKpnbrqk"


def unpack(data):
    """(board: dict square -> piece letter, white_to_move, castling letters, ep square)."""
    if data is None or len(data) < 9:
        raise ValueError("packed position shorter than 9 bytes")
    occupied = int.from_bytes(data[:8], "little")
    squares = [sq for sq in range(64) if occupied >> sq & 1]
    if len(data) != 9 + (len(squares) + 1) // 2 or data[8] > 1:
        raise ValueError("not a packed position")
    board, castling, ep = {}, "", None
    for i, sq in enumerate(squares):
        code = data[9 + i // 2] >> (4 * (i % 2)) & 15
        if code < 12:
            board[sq] = PIECES[code]
        elif code in (12, 13):
            board[sq] = "R" if code == 12 else "r"
            castling += {0: "Q", 7: "K", 56: "q", 63: "k"}[sq]
        elif code == 14:
            # The pawn that can be taken en passant; the square is the one behind it.
            white_pawn = sq // 8 == 3
            board[sq] = "P" if white_pawn else "p"
            ep = sq - 8 if white_pawn else sq + 8
        else:
            raise ValueError(f"code {code}")
    order = "KQkq"
    return board, data[8] == 0, "".join(sorted(castling, key=order.index)), ep


def board_fen(data):
    if data is None:
        return None
    board, white, castling, ep = unpack(data)
    ranks = []
    for rank in range(7, -1, -1):
        text, empty = "", 0
        for file in range(8):
            piece = board.get(rank * 8 + file)
            if piece is None:
                empty += 1
                continue
            text += (str(empty) if empty else "") + piece
            empty = 0
        ranks.append(text + (str(empty) if empty else ""))
    ep_text = "-" if ep is None else "abcdefgh"[ep % 8] + str(ep // 8 + 1)
    return f"{'/'.join(ranks)} {'w' if white else 'b'} {castling or '-'} {ep_text}"


def _steps(sq, deltas, board, slide):
    out = 0
    f0, r0 = sq % 8, sq // 8
    for df, dr in deltas:
        f, r = f0 + df, r0 + dr
        while 0 <= f < 8 and 0 <= r < 8:
            out |= 1 << (r * 8 + f)
            if not slide or (r * 8 + f) in board:
                break
            f, r = f + df, r + dr
    return out


KNIGHT = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
KING = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]
ROOK = [(1, 0), (0, 1), (-1, 0), (0, -1)]
BISHOP = [(1, 1), (-1, 1), (-1, -1), (1, -1)]


def board_attacks(data, color):
    """The squares `color` ('white' or 'black') attacks, as a signed 64-bit bitboard."""
    if data is None:
        return None
    if color not in ("white", "black"):
        raise ValueError("the color is 'white' or 'black'")
    board = unpack(data)[0]
    out = 0
    for sq, piece in board.items():
        if piece.isupper() != (color == "white"):
            continue
        kind = piece.upper()
        if kind == "P":
            out |= _steps(sq, [(-1, 1), (1, 1)] if piece == "P" else [(-1, -1), (1, -1)], board, False)
        elif kind == "N":
            out |= _steps(sq, KNIGHT, board, False)
        elif kind == "K":
            out |= _steps(sq, KING, board, False)
        else:
            deltas = (ROOK if kind in "RQ" else []) + (BISHOP if kind in "BQ" else [])
            out |= _steps(sq, deltas, board, True)
    return out - (1 << 64) if out >= 1 << 63 else out


M64 = (1 << 64) - 1


def split_part(key, seed, train_pct, valid_pct):
    """The split part of a split key (crates/core/src/split.rs): splitmix64's finalizer of the
    FNV-1a 64 hash of "SEED:KEY", modulo 100, against the proportions."""
    if key is None:
        return None
    h = 0xCBF29CE484222325
    for b in f"{seed}:{key}".encode():
        h = ((h ^ b) * 0x100000001B3) & M64
    h = ((h ^ (h >> 30)) * 0xBF58476D1CE4E5B9) & M64
    h = ((h ^ (h >> 27)) * 0x94D049BB133111EB) & M64
    bucket = (h ^ (h >> 31)) % 100
    if bucket < train_pct:
        return "train"
    return "valid" if bucket < train_pct + valid_pct else "test"


def game_key(line, white, black, event, date, start_fen):
    """The split key of a game (crates/core/src/split.rs)."""
    parts = [white, black, event, date, start_fen]
    return f"game:{line}|" + "|".join("" if p is None else p for p in parts)


def register(conn):
    """Adds board_fen(bytes), board_attacks(bytes, color), split_part(key, seed,
    train_pct, valid_pct) and game_key(line, white, black, event, date, start_fen) to a
    sqlite3 connection: what the views need."""
    conn.create_function("board_fen", 1, board_fen, deterministic=True)
    conn.create_function("board_attacks", 2, board_attacks, deterministic=True)
    conn.create_function("split_part", 4, split_part, deterministic=True)
    conn.create_function("game_key", 6, game_key, deterministic=True)
