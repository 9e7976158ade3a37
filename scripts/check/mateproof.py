"""Minimax proof of mates with python-chess boards, shared by mate-keys.py and
uci-mate.py."""

def mates(board, n):
    """Side to move mates in at most n moves."""
    for move in board.legal_moves:
        # The mating move itself must give check.
        if n == 1 and not board.gives_check(move):
            continue
        board.push(move)
        ok = mated(board, n)
        board.pop()
        if ok:
            return True
    return False


def mated(board, n):
    """Side to move is mated within n moves of the opponent (counting the last one)."""
    if board.is_checkmate():
        return True
    if n == 1 or board.is_stalemate():
        return False
    for reply in board.legal_moves:
        board.push(reply)
        ok = mates(board, n - 1)
        board.pop()
        if not ok:
            return False
    return True
