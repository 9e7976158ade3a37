#!/usr/bin/env python3
"""chessgraph under Debian's PolyGlot adapter (xboard/CECP protocol), checked with python-chess.

Writes a PolyGlot ini whose EngineCommand is `target/release/chessgraph engine`, starts
`polyglot INI` and speaks xboard to it the way a GUI does: `xboard`, `protover 2` (waits
for `feature done=1`), `new`, a time control, `time`/`otim`, `usermove`, `go`, `force`,
`setboard`, `ping`, `?` (move now), `quit`. The script plays the other side with random
legal moves (seeded) and checks that every `move` the engine sends is legal
(python-chess), that it answers within its clock, that `ping N` gets `pong N`, and that
`?` ends a long think with a move.

Games: engine Black under `level 40 0:20 0` (moves to go), engine White under
`level 0 0:02 1` (increment), engine Black under `st 1` (fixed time per move; PolyGlot
takes whole seconds), and positions set with `setboard`. PolyGlot's own log (kept in
target/) shows the UCI side; the script counts the kinds of `go` it sent.

    cargo build --release
    python3 scripts/check/polyglot.py [--polyglot /usr/games/polyglot] [--plies 80]

Prints one line per game and a summary; exit status 1 on any failure.
"""

import argparse
import os
import queue
import random
import subprocess
import sys
import tempfile
import threading
import time

import chess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHESSGRAPH = os.path.join(ROOT, "target", "release", "chessgraph")


class Failure(Exception):
    pass


class Xboard:
    def __init__(self, polyglot, ini, log, cwd):
        # In `cwd`: PolyGlot opens polyglot.log in its working directory before it reads
        # the ini's LogFile.
        self.proc = subprocess.Popen([polyglot, ini], cwd=cwd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, bufsize=1)
        self.lines = queue.Queue()
        self.log = log
        threading.Thread(target=self._reader, daemon=True).start()

    def _reader(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, line):
        self.log.append("> " + line)
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def expect(self, pred, timeout, what):
        """Reads lines until pred(line) is true; returns that line."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Failure(f"timeout waiting for {what}")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                raise Failure(f"timeout waiting for {what}")
            if line is None:
                raise Failure(f"polyglot exited while waiting for {what}")
            self.log.append("< " + line)
            if line.startswith(("Error", "Illegal move", "tellusererror")):
                raise Failure(f"unexpected {line!r} while waiting for {what}")
            if pred(line):
                return line

    def move(self, board, timeout):
        line = self.expect(lambda l: l.startswith("move ") or l.startswith("resign"),
                           timeout, "a move")
        if line.startswith("resign"):
            raise Failure("engine resigned (PolyGlot Resign should be off)")
        text = line.split()[1]
        try:
            m = chess.Move.from_uci(text)
        except ValueError:
            raise Failure(f"unparsable move {text!r}")
        if m not in board.legal_moves:
            raise Failure(f"illegal move {text} in {board.fen()}")
        return m


def play(xb, rng, engine_color, level, plies, fen=None):
    """One game; the script plays random legal moves for the other side."""
    board = chess.Board(fen) if fen else chess.Board()
    xb.send("new")
    xb.send("force")
    if fen:
        xb.send(f"setboard {fen}")
    xb.send(level["cmd"])
    xb.send("post")
    clock = level.get("base")  # engine clock in seconds, if the level has one
    inc = level.get("inc", 0.0)
    engine_moves = 0
    longest = 0.0
    started = False
    while not board.is_game_over(claim_draw=True) and len(board.move_stack) < plies:
        if board.turn == engine_color:
            if clock is not None:
                xb.send(f"time {max(int(clock * 100), 1)}")
                xb.send(f"otim {max(int(clock * 100), 1)}")
            t0 = time.monotonic()
            if not started:
                xb.send("go")
                started = True
            limit = (clock + 5) if clock is not None else level["per_move"] + 5
            m = xb.move(board, timeout=limit)
            elapsed = time.monotonic() - t0
            longest = max(longest, elapsed)
            if clock is not None:
                clock -= elapsed
                if clock < 0:
                    raise Failure(f"engine lost on time ({clock * 1000:.0f} ms) in {board.fen()}")
                clock += inc
            elif elapsed > level["per_move"] + 0.5:
                raise Failure(f"took {elapsed:.2f} s with {level['cmd']}")
            board.push(m)
            engine_moves += 1
        else:
            m = rng.choice(list(board.legal_moves))
            if started:
                if clock is not None:
                    xb.send(f"time {max(int(clock * 100), 1)}")
                    xb.send(f"otim {max(int(clock * 100), 1)}")
                xb.send(f"usermove {m.uci()}")
            else:
                # In force mode the move is only recorded.
                xb.send(f"usermove {m.uci()}")
            board.push(m)
    xb.send("force")
    n = rng.randint(1, 10_000)
    xb.send(f"ping {n}")
    xb.expect(lambda l: l.strip() == f"pong {n}", 30, f"pong {n}")
    result = board.result(claim_draw=True)
    return engine_moves, longest, result


def move_now(xb):
    """`?` during a long think must make the engine move at once."""
    board = chess.Board()
    xb.send("new")
    xb.send("force")
    xb.send("st 1000")
    xb.send("go")
    time.sleep(0.5)
    t0 = time.monotonic()
    xb.send("?")
    xb.move(board, timeout=10)
    return time.monotonic() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--polyglot", default="/usr/games/polyglot")
    ap.add_argument("--engine", default=CHESSGRAPH, help="chessgraph binary")
    ap.add_argument("--plies", type=int, default=80, help="plies per game (default 80)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--log", default=os.path.join(ROOT, "target", "polyglot-check.log"),
                    help="transcript of the xboard session")
    ap.add_argument("--polyglot-log", default=os.path.join(ROOT, "target", "polyglot-check.polyglot.log"),
                    help="PolyGlot's own log (both protocols)")
    args = ap.parse_args()
    args.polyglot_log = os.path.abspath(args.polyglot_log)
    if os.path.exists(args.polyglot_log):
        os.remove(args.polyglot_log)
    if not os.path.exists(args.polyglot):
        print(f"{args.polyglot} not found (apt-get install polyglot)")
        sys.exit(1)
    rng = random.Random(args.seed)
    log = []
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        ini = os.path.join(tmp, "chessgraph.ini")
        with open(ini, "w") as f:
            f.write("[PolyGlot]\n"
                    "EngineName = chessgraph\n"
                    f"EngineCommand = {os.path.abspath(args.engine)} engine\n"
                    f"EngineDir = {tmp}\n"
                    "Book = false\n"
                    "Resign = false\n"
                    "Log = true\n"
                    f"LogFile = {args.polyglot_log}\n"
                    "[Engine]\n"
                    "Hash = 16\n")
        xb = Xboard(args.polyglot, ini, log, tmp)
        try:
            xb.send("xboard")
            xb.send("protover 2")
            xb.expect(lambda l: "done=1" in l, 30, "feature done=1")
            print("handshake: feature done=1")
            games = [
                ("engine Black, level 40 0:20 0", chess.BLACK,
                 {"cmd": "level 40 0:20 0", "base": 20.0}, None),
                ("engine White, level 0 0:02 1", chess.WHITE,
                 {"cmd": "level 0 0:02 1", "base": 2.0, "inc": 1.0}, None),
                ("engine Black, st 1", chess.BLACK, {"cmd": "st 1", "per_move": 1.0}, None),
                ("setboard middlegame, engine White, st 1", chess.WHITE,
                 {"cmd": "st 1", "per_move": 1.0},
                 "r1bq1rk1/ppp1nppp/4n3/3p3Q/3P4/1BP1B3/PP1N2PP/R4RK1 w - - 1 16"),
                ("setboard endgame, engine Black, st 1", chess.BLACK,
                 {"cmd": "st 1", "per_move": 1.0}, "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 0 11"),
                ("setboard mate in 2, engine White, st 1", chess.WHITE,
                 {"cmd": "st 1", "per_move": 1.0}, "kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1"),
            ]
            for name, color, level, fen in games:
                try:
                    n, longest, result = play(xb, rng, color, level, args.plies, fen)
                    print(f"ok   {name}: {n} engine moves, all legal; longest think "
                          f"{longest * 1000:.0f} ms; {result}")
                except Failure as e:
                    failures += 1
                    print(f"FAIL {name}: {e}")
                    break
            if not failures:
                try:
                    dt = move_now(xb)
                    print(f"ok   '?' (move now) during st 1000: a legal move after {dt * 1000:.0f} ms")
                except Failure as e:
                    failures += 1
                    print(f"FAIL '?' (move now): {e}")
            xb.send("quit")
            try:
                xb.proc.wait(timeout=10)
                print(f"ok   quit: polyglot exited with {xb.proc.returncode}")
                if xb.proc.returncode != 0:
                    failures += 1
            except subprocess.TimeoutExpired:
                failures += 1
                print("FAIL quit: polyglot still running after 10 s")
                xb.proc.kill()
        finally:
            with open(args.log, "w") as f:
                f.write("\n".join(log) + "\n")
    kinds = {}
    if os.path.exists(args.polyglot_log):
        with open(args.polyglot_log, errors="replace") as f:
            for line in f:
                if "Adapter->Engine: go" not in line:
                    continue
                words = line.split("Adapter->Engine: ")[1].split()
                kind = "go " + " ".join(w for w in words[1:] if not w.lstrip("-").isdigit())
                kinds[kind] = kinds.get(kind, 0) + 1
        print("UCI go commands PolyGlot sent to chessgraph: "
              + "; ".join(f"{k} x{v}" for k, v in sorted(kinds.items())))
    print(f"{'all checks passed' if not failures else f'{failures} failure(s)'}; "
          f"transcript in {args.log}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
