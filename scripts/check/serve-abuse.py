#!/usr/bin/env python3
"""A bounded adversarial run against `chessgraph serve`, on loopback only.

Starts `BIN --db DB serve --addr 127.0.0.1:0` (its temporary directory a fresh one) and,
for --seconds, at the same time attacks past every cap the server claims:

- connections: --slow connections that send a header a byte every 2 s and never finish,
  and --silent ones that send nothing (300: more than the 256 the server holds), each
  reopened as soon as the server closes it;
- oversize: headers of 64 KiB, 101 header fields, `Content-Length: 99999999999999` and
  2^64 - 1, a 1 MiB body (each answer must carry a JSON error);
- 500 API requests, 8 at a time: searches, stats, positions; every fourth a costly SQL
  condition, in turn a three-way join of all positions (time limit) and conditions that
  sort or deduplicate a cross join (temporary storage); a `printf` one;
- a burst of --burst (2,000) costly requests from 64 threads at once;
- first, on the idle server, player specs that name files (a FIFO, /dev/stdin,
  /dev/zero, /etc/shadow, a readable file, a missing one, as cnn:model=, policy:model=,
  mcts:net= and logistic:model=) or ask past a cap (simulations, hash, iterations,
  rollout, depth): each must be refused (400) within 5 s with the same answer whatever
  the file, and an engine game must move after them;
- nine games of 30 s a move against the engine (more engine time than a client may have),
  then 30 s games from six more loopback addresses (127.0.0.2 to .7, the same client:
  all must be refused), then 50 games with capped players (engine:hash=64, minimax:depth=8,
  mcts:iterations=200000, random, greedy; 200 ms a move) and a move in each;
- after the load, a move against each of four engine:hash=64 players (one per built-in
  evaluator), with the resident memory after each and idle: what the engine keeps;

while monitors fetch `GET /` and `GET /api/info` every 250 ms each and sample the
server's resident memory and the bytes of the files it holds open besides the database
(its temporary files). Prints the latency of `GET /` and `/api/info` (median, p95, max,
how many took 1 s or more or failed), the statuses of each attack, the peak resident
memory and temporary disk, whether the server stayed up, and the database's sha256 before
and after. Exit status 1 if the page or `/api/info` ever took 1 s or more or failed, the
server died, the database changed, a file-naming or capped spec was not refused at once
(or its answer told files apart, or the engine stopped moving), or another loopback
address started a game past the client's budget.

Usage: scripts/check/serve-abuse.py [--bin target/release/chessgraph] [--db DB] [--seconds 60]
Without --db, the shared 200k sample is imported and analyzed into
target/serve-abuse.db first (about 10 s with a release build).
"""

import argparse
import hashlib
import tempfile
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def request(addr, method, path, body=None, headers=None, timeout=30, source=None):
    """One request on a new connection (from the local address `source`, if given);
    returns (status, body bytes)."""
    host, port = addr
    s = socket.create_connection((host, port), timeout=timeout,
                                 source_address=(source, 0) if source else None)
    try:
        head = f"{method} {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n"
        data = b"" if body is None else json.dumps(body).encode()
        if method != "GET":
            head += "Content-Type: application/json\r\n"
        for k, v in (headers or {}).items():
            head += f"{k}: {v}\r\n"
        head += f"Content-Length: {len(data)}\r\n\r\n"
        s.sendall(head.encode() + data)
        chunks = []
        while True:
            c = s.recv(65536)
            if not c:
                break
            chunks.append(c)
        raw = b"".join(chunks)
        status = int(raw.split(b" ", 2)[1]) if raw.startswith(b"HTTP/") else 0
        return status, raw.split(b"\r\n\r\n", 1)[-1]
    finally:
        s.close()


def temp_bytes(pid, db):
    """Bytes of the regular files `pid` holds open, the database (and its -wal, -shm)
    aside: its temporary files, deleted or not."""
    total = 0
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return 0
    for fd in fds:
        path = f"/proc/{pid}/fd/{fd}"
        try:
            target = os.readlink(path)
            if not target.startswith("/") or target.startswith(os.path.realpath(db)):
                continue
            st = os.stat(path)
            if (st.st_mode & 0o170000) == 0o100000:
                total += st.st_size
        except OSError:
            pass
    return total


def latency_line(name, samples):
    ok = sorted(t for t in samples if t is not None)
    bad = sum(1 for t in samples if t is None or t >= 1.0)
    if not ok:
        return f"{name}: {len(samples)} fetches, none answered", bad
    p95 = ok[min(len(ok) - 1, int(0.95 * len(ok)))]
    return (f"{name}: {len(samples)} fetches, median {statistics.median(ok) * 1000:.1f} ms, "
            f"p95 {p95 * 1000:.1f} ms, max {ok[-1] * 1000:.1f} ms; {bad} took 1 s or more or failed"), bad


def rss_mib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


class Run:
    def __init__(self, addr, pid, seconds, db):
        self.addr, self.pid, self.db = addr, pid, db
        self.end = time.monotonic() + seconds
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.page = []  # (seconds or None)
        self.info = []  # GET /api/info: seconds, or None when not 200
        self.info_status = {}
        self.burst = {}  # status -> count
        self.long_games = []  # statuses of the nine 30 s games, then of a random game
        self.peak_temp = 0
        self.api = {}  # status -> count
        self.costly = []  # seconds of the costly condition
        self.oversize = {}  # kind -> statuses
        self.games = {}  # status -> count
        self.other_addresses = {}  # status -> count
        self.peak_rss = 0

    def count(self, table, key):
        with self.lock:
            table[key] = table.get(key, 0) + 1

    def monitor(self, path="/"):
        while not self.stop.is_set():
            t = time.monotonic()
            try:
                status, _ = request(self.addr, "GET", path, timeout=30)
                took = time.monotonic() - t if status == 200 else None
            except OSError:
                status, took = 0, None
            with self.lock:
                (self.page if path == "/" else self.info).append(took)
                if path != "/":
                    self.info_status[status] = self.info_status.get(status, 0) + 1
            time.sleep(0.25)

    def sampler(self):
        while not self.stop.is_set():
            rss, temp = rss_mib(self.pid), temp_bytes(self.pid, self.db)
            with self.lock:
                self.peak_rss = max(self.peak_rss, rss)
                self.peak_temp = max(self.peak_temp, temp)
            time.sleep(0.05)

    def slowloris(self, n, silent):
        socks = []
        while not self.stop.is_set():
            slow = sum(1 for e in socks if e[1])
            while len(socks) < n + silent:
                try:
                    s = socket.create_connection(self.addr, timeout=5)
                    if slow < n:
                        socks.append([s, b"GET /api/info HTTP/1.1\r\nHost: x\r\nX-a: ", 0, 0.0])
                        slow += 1
                    else:
                        socks.append([s, b"", 0, 0.0])
                except OSError:
                    break
            alive = []
            now = time.monotonic()
            for entry in socks:
                s, text, i, due = entry
                try:
                    if text and now >= due:
                        s.send(text[i % len(text):i % len(text) + 1])
                        entry[2] += 1
                        entry[3] = now + 2
                    # A closed connection reads as b"" (or an answer); reopen it.
                    s.setblocking(False)
                    try:
                        if s.recv(1024) == b"":
                            raise OSError("closed")
                        raise OSError("answered")
                    except BlockingIOError:
                        pass
                    alive.append(entry)
                except OSError:
                    s.close()
            socks = alive
            # Closed ones are reopened within 0.2 s; the slow ones send a byte every 2 s.
            self.stop.wait(0.2)
        for s, _, _, _ in socks:
            s.close()

    def oversize_run(self):
        host, port = self.addr
        kinds = {
            "64 KiB header": f"GET / HTTP/1.1\r\nHost: {host}:{port}\r\nX-Big: {'x' * 65536}\r\n\r\n".encode(),
            "Content-Length 99999999999999": (
                f"POST /api/play HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                f"Content-Length: 99999999999999\r\n\r\n{{}}"
            ).encode(),
            "Content-Length 2^64-1": (
                f"POST /api/play HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                f"Content-Length: 18446744073709551615\r\n\r\n{{}}"
            ).encode(),
            "101 header fields": (
                f"GET /api/info HTTP/1.1\r\nHost: {host}:{port}\r\n"
                + "".join(f"X-{i}: a\r\n" for i in range(100)) + "\r\n"
            ).encode(),
            "1 MiB body": (
                f"POST /api/play HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {1 << 20}\r\n\r\n"
            ).encode() + b" " * (1 << 20),
        }
        while not self.stop.is_set():
            for kind, raw in kinds.items():
                try:
                    s = socket.create_connection(self.addr, timeout=10)
                    try:
                        s.sendall(raw)
                    except OSError:
                        pass
                    reply = b""
                    while len(reply) < 4096:
                        chunk = s.recv(4096)
                        if not chunk:
                            break
                        reply += chunk
                    s.close()
                    status = int(reply.split(b" ", 2)[1]) if reply.startswith(b"HTTP/") else 0
                    if status and not reply.split(b"\r\n\r\n", 1)[-1].startswith(b'{"error"'):
                        status = f"{status} without a JSON error"
                except (OSError, ValueError, IndexError):
                    status = 0
                with self.lock:
                    self.oversize.setdefault(kind, {}).setdefault(status, 0)
                    self.oversize[kind][status] += 1
            self.stop.wait(1)

    def api_requests(self, total=500, parallel=8):
        costly = [
            "/api/db/positions?where=" + urllib.parse.quote(c) for c in COSTLY_TIME
        ] + ["/api/db/heatmap?where=" + urllib.parse.quote(c) for c in COSTLY_TEMP]
        printf = "length(printf('%.*c', 20000000 + p.id, 'x')) > 0"
        paths = [
            "/api/db/positions?where=" + urllib.parse.quote("phase > 20 AND eval_cp > 100"),
            "/api/db/stats",
            "/api/db/positions/random",
            "/api/position?fen=" + urllib.parse.quote("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"),
            "/api/db/positions?where=" + urllib.parse.quote(printf),
            "/api/info",
        ]
        next_i = [0]

        def worker():
            while not self.stop.is_set():
                with self.lock:
                    i = next_i[0]
                    next_i[0] += 1
                if i >= total:
                    return
                path = costly[(i // 4) % len(costly)] if i % 4 == 0 else paths[i % len(paths)]
                t = time.monotonic()
                try:
                    status, _ = request(self.addr, "GET", path, timeout=60)
                except OSError:
                    status = 0
                if i % 4 == 0:
                    with self.lock:
                        self.costly.append(time.monotonic() - t)
                self.count(self.api, status)

        threads = [threading.Thread(target=worker) for _ in range(parallel)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    def burst_run(self, total, parallel=64):
        """`total` costly requests from `parallel` threads at once."""
        paths = ["/api/db/positions?where=" + urllib.parse.quote(c) for c in COSTLY_TIME + COSTLY_TEMP]
        paths += ["/api/db/heatmap", "/api/db/stats", "/api/db/report"]
        left = [total]

        def worker():
            while not self.stop.is_set():
                with self.lock:
                    if left[0] == 0:
                        return
                    left[0] -= 1
                    i = left[0]
                try:
                    status, _ = request(self.addr, "GET", paths[i % len(paths)], timeout=60)
                except OSError:
                    status = 0
                self.count(self.burst, status)

        threads = [threading.Thread(target=worker, daemon=True) for _ in range(parallel)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    def long_games_run(self):
        """Nine games of 30 s a move (the engine's queue holds eight), then a random one."""
        body = {"player": "engine", "movetime_ms": 30000, "color": "black"}
        for _ in range(9):
            try:
                status, _ = request(self.addr, "POST", "/api/play", body)
            except OSError:
                status = 0
            self.long_games.append(status)
        try:
            status, _ = request(self.addr, "POST", "/api/play", {"player": "random", "color": "black"})
        except OSError:
            status = 0
        self.long_games.append(f"random {status}")

    def other_addresses_run(self):
        """After the long games: 30 s games from six more loopback addresses, which are
        the same client (its budget is spent) and must all be refused."""
        body = {"player": "engine", "movetime_ms": 30000, "color": "black"}
        for last in range(2, 8):
            try:
                status, _ = request(self.addr, "POST", "/api/play", body, source=f"127.0.0.{last}")
            except OSError:
                status = 0
            self.count(self.other_addresses, status)

    def games_run(self, n=50):
        players = ["engine:hash=64", "minimax:depth=8", "mcts:iterations=200000", "random", "greedy"]
        for i in range(n):
            if self.stop.is_set():
                return
            body = {"player": players[i % len(players)], "movetime_ms": 200, "color": "white"}
            try:
                status, data = request(self.addr, "POST", "/api/play", body)
                self.count(self.games, status)
                if status == 201:
                    game = json.loads(data)
                    move = random.choice(game["legal"])
                    status, _ = request(self.addr, "POST", f"/api/play/{game['id']}/move", {"uci": move})
                    self.count(self.games, f"move {status}")
            except (OSError, ValueError, KeyError):
                self.count(self.games, 0)
            time.sleep(0.1)


def file_specs(addr, tmp):
    """Player specs that name files (a FIFO, /dev/stdin, /dev/zero, a root-only file, a
    readable one, a missing one) or ask past a cap, on the idle server: each must be
    refused (400) at once, with the same message whatever the file is, and an engine
    game must move after them (the engine thread was never handed a file).
    Returns (results, one message per kind, moved)."""
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    secret = os.path.join(tmp, "secret.json")
    with open(secret, "w") as f:
        f.write("{}")
    paths = [fifo, "/dev/stdin", "/dev/zero", "/etc/shadow", secret, "/no/such/file"]
    results = []  # (spec, status, seconds)
    messages = {}  # kind -> messages with the path replaced
    specs = [(kind, path) for kind in ["cnn:model=", "policy:model=", "mcts:net=", "logistic:model="]
             for path in paths]
    specs += [(s, None) for s in ["mcts:net=x.safetensors,simulations=1000000", "engine:hash=16384",
                                  "mcts:iterations=1000000", "mcts:rollout=1000", "minimax:depth=30"]]
    for kind, path in specs:
        spec = kind + (path or "")
        t = time.monotonic()
        try:
            status, body = request(addr, "POST", "/api/play",
                                   {"player": spec, "movetime_ms": 100, "color": "black"}, timeout=10)
        except OSError:
            status, body = 0, b""
        results.append((spec, status, time.monotonic() - t))
        if path:
            try:
                message = json.loads(body)["error"].replace(path, "PATH")
            except (ValueError, KeyError):
                message = None
            messages.setdefault(kind, set()).add(message)
    moved = False
    try:
        status, body = request(addr, "POST", "/api/play",
                               {"player": "engine", "movetime_ms": 100, "color": "black"}, timeout=10)
        if status == 201:
            game = json.loads(body)["id"]
            deadline = time.monotonic() + 10
            while not moved and time.monotonic() < deadline:
                _, body = request(addr, "GET", f"/api/play/{game}", timeout=10)
                moved = bool(json.loads(body)["moves"])
                time.sleep(0.1)
            request(addr, "DELETE", f"/api/play/{game}", timeout=10)
    except (OSError, ValueError, KeyError):
        pass
    return results, messages, moved


def held_players(addr, pid):
    """After the load: one move each against four engine:hash=64 players (one per
    built-in evaluator, so four players to keep), the resident memory after each, and
    after 2 s idle: what the engine thread keeps between games."""
    held = []
    for evaluator in ["material", "simplified", "seed003", "nnue"]:
        body = {"player": f"engine:hash=64,evaluator={evaluator}", "movetime_ms": 200, "color": "black"}
        try:
            status, data = request(addr, "POST", "/api/play", body, timeout=30)
            if status == 201:
                game = json.loads(data)["id"]
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline:
                    _, data = request(addr, "GET", f"/api/play/{game}", timeout=30)
                    if json.loads(data)["moves"]:
                        break
                    time.sleep(0.1)
        except (OSError, ValueError, KeyError):
            status = 0
        held.append((f"{evaluator} ({status})", rss_mib(pid)))
    time.sleep(2)
    held.append(("idle", rss_mib(pid)))
    return held


# Conditions that run into their time limit.
COSTLY_TIME = ["(SELECT count(*) FROM positions a, positions b, positions c) > 0"]
# Conditions that sort or deduplicate a cross join: gigabytes of temporary storage.
_PAIR = "a.fen||b.fen||a.fen||b.fen||a.fen||b.fen"
COSTLY_TEMP = [
    f"(SELECT max(x) FROM (SELECT {_PAIR} AS x FROM positions a, positions b ORDER BY x DESC)) IS NOT NULL",
    f"(SELECT count(DISTINCT {_PAIR}) FROM positions a, positions b) > 0",
    f"(SELECT x FROM (SELECT {_PAIR} AS x FROM positions a, positions b ORDER BY x LIMIT 1 OFFSET 5000000)) IS NOT NULL",
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "target/release/chessgraph"))
    ap.add_argument("--db")
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--slow", type=int, default=100, help="slowloris connections")
    ap.add_argument("--silent", type=int, default=300, help="connections that send nothing")
    ap.add_argument("--burst", type=int, default=2000, help="costly requests sent at once")
    ap.add_argument("--no-file-specs", action="store_true",
                    help="skip the specs that name files (for a build whose engine thread opens them and hangs)")
    args = ap.parse_args()

    db = args.db or os.path.join(ROOT, "target/serve-abuse.db")
    if not os.path.exists(db):
        # The shared data beside the checkout (or beside its worktrees' folder).
        sample = next((p for p in (os.path.join(ROOT, up, "shared/data/positions-200k.csv.zst")
                                   for up in ("..", "../..")) if os.path.exists(p)), None)
        if sample is None:
            sys.exit("no shared/data/positions-200k.csv.zst beside the checkout: pass --db")
        subprocess.run([args.bin, "--db", db, "import", sample], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([args.bin, "--db", db, "analyze"], check=True, stdout=subprocess.DEVNULL)
    before = sha(db)

    tmp = tempfile.mkdtemp(prefix="serve-abuse-")
    env = dict(os.environ, TMPDIR=tmp, SQLITE_TMPDIR=tmp)
    server = subprocess.Popen(
        [args.bin, "--db", db, "serve", "--addr", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    line = server.stdout.readline()
    hostport = line.strip().rsplit("http://", 1)[-1].strip("/")
    host, port = hostport.rsplit(":", 1)
    # The deadline's precision, on an otherwise idle server: the costly condition alone.
    costly = "/api/db/positions?where=" + urllib.parse.quote(
        "(SELECT count(*) FROM positions a, positions b, positions c) > 0")
    alone = []
    for _ in range(5):
        t = time.monotonic()
        status, _ = request((host, int(port)), "GET", costly, timeout=60)
        alone.append((status, time.monotonic() - t))
    if args.no_file_specs:
        specs, spec_messages, spec_moved = [], {}, True
    else:
        specs, spec_messages, spec_moved = file_specs((host, int(port)), tempfile.mkdtemp(prefix="serve-abuse-files-"))
    run = Run((host, int(port)), server.pid, args.seconds, db)
    started = time.monotonic()
    threads = [
        threading.Thread(target=run.monitor),
        threading.Thread(target=run.monitor, args=("/api/info",)),
        threading.Thread(target=run.sampler),
        threading.Thread(target=run.slowloris, args=(args.slow, args.silent)),
        threading.Thread(target=run.oversize_run),
    ]
    loads = [
        threading.Thread(target=run.api_requests),
        threading.Thread(target=run.burst_run, args=(args.burst,)),
        threading.Thread(target=lambda: (run.long_games_run(), run.other_addresses_run(), run.games_run())),
    ]
    for t in threads + loads:
        t.daemon = True
        t.start()
    while time.monotonic() < run.end and server.poll() is None:
        time.sleep(0.5)
    run.stop.set()
    for t in threads + loads:
        t.join(timeout=15)
    held = held_players((host, int(port)), server.pid) if server.poll() is None else []
    run.peak_rss = max([run.peak_rss] + [mib for _, mib in held])
    alive = server.poll() is None
    server.kill()
    server.wait()
    after = sha(db)

    page_line, page_bad = latency_line("GET /", run.page)
    info_line, info_bad = latency_line("GET /api/info", run.info)
    print(f"binary: {args.bin}")
    print(f"database: {os.path.basename(db)}; run {time.monotonic() - started:.0f} s; "
          f"{args.slow} slowloris + {args.silent} silent connections, reopened as closed")
    print(page_line)
    print(info_line + f"; statuses {dict(sorted(run.info_status.items()))}")
    print(f"API requests: {dict(sorted(run.api.items(), key=str))}")
    print(f"burst of {args.burst}: {dict(sorted(run.burst.items(), key=str))}")
    print("costly condition alone (2 s limit): " + ", ".join(f"{st} in {t:.3f} s" for st, t in alone))
    if run.costly:
        print(f"costly conditions under load, with waiting for a worker: median {statistics.median(run.costly):.2f} s, "
              f"max {max(run.costly):.2f} s over {len(run.costly)}")
    print(f"oversize: {json.dumps(run.oversize)}")
    print(f"nine 30 s games, then a random one: {run.long_games}")
    print(f"30 s games from 127.0.0.2 to .7 after them (the same client): "
          f"{dict(sorted(run.other_addresses.items(), key=str))}")
    print(f"games: {dict(sorted(run.games.items(), key=str))}")
    spec_statuses = {}
    for _, status, _ in specs:
        spec_statuses[status] = spec_statuses.get(status, 0) + 1
    slowest = max(specs, key=lambda r: r[2], default=("none", 0, 0.0))
    specs_ok = all(status == 400 and t < 5 for _, status, t in specs)
    one_message = all(len(m) == 1 for m in spec_messages.values())
    print(f"{len(specs)} player specs naming files or past a cap: {spec_statuses}; slowest "
          f"{slowest[2]:.3f} s ({slowest[0]}); the same answer whatever the file: "
          f"{'yes' if one_message else 'NO'}; an engine game moved after them: {'yes' if spec_moved else 'NO'}")
    for spec, status, t in specs:
        if status != 400 or t >= 5:
            print(f"  NOT REFUSED AT ONCE: {spec}: {status} in {t:.3f} s")
    print("resident memory after a move of each of four engine:hash=64 players, then idle: "
          + ", ".join(f"{what} {mib} MiB" for what, mib in held))
    print(f"peak resident memory: {run.peak_rss} MiB; peak temporary disk: {run.peak_temp / 2**20:.1f} MiB; "
          f"server {'stayed up' if alive else 'DIED'}")
    print(f"database sha256 before {before}\n                after  {after} "
          f"({'unchanged' if before == after else 'CHANGED'})")
    left = os.listdir(tmp)
    print(f"temporary directory: {len(left)} files left")
    budget_ok = 201 not in run.other_addresses
    sys.exit(0 if alive and page_bad == 0 and info_bad == 0 and before == after and specs_ok
             and one_message and spec_moved and budget_ok else 1)


if __name__ == "__main__":
    main()
