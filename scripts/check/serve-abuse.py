#!/usr/bin/env python3
"""A bounded adversarial run against `chessgraph serve`, on loopback only.

Starts `BIN --db DB serve --addr 127.0.0.1:0` and, for --seconds, at the same time:

- slowloris: --slow connections that send a header a byte every 2 s and never finish
  (reopened when the server closes them), and as many that send nothing;
- oversize: headers of 64 KiB, `Content-Length: 99999999999999`, a 1 MiB body;
- 500 API requests, 8 at a time: searches, stats, positions and a costly SQL condition
  (a three-way join of all positions) every fourth request, and a `printf` one;
- 50 games with capped players (engine:hash=64, minimax:depth=8, mcts:iterations=200000,
  200 ms a move) and a move in each;

while a monitor fetches `GET /` every 250 ms. Prints the latency of `GET /` (median, p95,
max, and how many took over 1 s or failed), the statuses of the API requests, the
server's peak resident memory, whether it stayed up, and whether the database's bytes
changed. Exit status 1 if the page ever took 1 s or more, or the server died.

Usage: scripts/check/serve-abuse.py [--bin target/release/chessgraph] [--db DB] [--seconds 60]
Without --db, the shared 200k sample is imported and analyzed into
target/serve-abuse.db first (about 10 s with a release build).
"""

import argparse
import hashlib
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


def request(addr, method, path, body=None, headers=None, timeout=30):
    """One request on a new connection; returns (status, body bytes)."""
    host, port = addr
    s = socket.create_connection((host, port), timeout=timeout)
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
    def __init__(self, addr, pid, seconds):
        self.addr, self.pid = addr, pid
        self.end = time.monotonic() + seconds
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.page = []  # (seconds or None)
        self.api = {}  # status -> count
        self.costly = []  # seconds of the costly condition
        self.oversize = {}  # kind -> statuses
        self.games = {}  # status -> count
        self.peak_rss = 0

    def count(self, table, key):
        with self.lock:
            table[key] = table.get(key, 0) + 1

    def monitor(self):
        while not self.stop.is_set():
            t = time.monotonic()
            try:
                status, _ = request(self.addr, "GET", "/", timeout=10)
                took = time.monotonic() - t if status == 200 else None
            except OSError:
                took = None
            with self.lock:
                self.page.append(took)
                self.peak_rss = max(self.peak_rss, rss_mib(self.pid))
            time.sleep(0.25)

    def slowloris(self, n):
        socks = []
        while not self.stop.is_set():
            while len(socks) < n:
                try:
                    s = socket.create_connection(self.addr, timeout=5)
                    s.setblocking(False)
                    socks.append([s, b"GET /api/info HTTP/1.1\r\nHost: x\r\nX-a: ", 0])
                    socks.append([socket.create_connection(self.addr, timeout=5), b"", 0])
                except OSError:
                    break
            alive = []
            for entry in socks:
                s, text, i = entry
                try:
                    if text:
                        s.send(text[i % len(text):i % len(text) + 1])
                        entry[2] += 1
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
            self.stop.wait(2)
        for s, _, _ in socks:
            s.close()

    def oversize_run(self):
        host, port = self.addr
        kinds = {
            "64 KiB header": f"GET / HTTP/1.1\r\nHost: {host}:{port}\r\nX-Big: {'x' * 65536}\r\n\r\n".encode(),
            "Content-Length 99999999999999": (
                f"POST /api/play HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                f"Content-Length: 99999999999999\r\n\r\n{{}}"
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
                    reply = s.recv(64)
                    s.close()
                    status = int(reply.split(b" ", 2)[1]) if reply.startswith(b"HTTP/") else 0
                except (OSError, ValueError, IndexError):
                    status = 0
                with self.lock:
                    self.oversize.setdefault(kind, {}).setdefault(status, 0)
                    self.oversize[kind][status] += 1
            self.stop.wait(1)

    def api_requests(self, total=500, parallel=8):
        costly = "(SELECT count(*) FROM positions a, positions b, positions c) > 0"
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
                path = ("/api/db/positions?where=" + urllib.parse.quote(costly)) if i % 4 == 0 else paths[i % len(paths)]
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "target/release/chessgraph"))
    ap.add_argument("--db")
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--slow", type=int, default=100, help="slowloris connections (and as many silent ones)")
    args = ap.parse_args()

    db = args.db or os.path.join(ROOT, "target/serve-abuse.db")
    if not os.path.exists(db):
        sample = os.path.join(ROOT, "../shared/data/positions-200k.csv.zst")
        subprocess.run([args.bin, "--db", db, "import", sample], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([args.bin, "--db", db, "analyze"], check=True, stdout=subprocess.DEVNULL)
    before = sha(db)

    server = subprocess.Popen(
        [args.bin, "--db", db, "serve", "--addr", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
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
    run = Run((host, int(port)), server.pid, args.seconds)
    started = time.monotonic()
    threads = [
        threading.Thread(target=run.monitor),
        threading.Thread(target=run.slowloris, args=(args.slow,)),
        threading.Thread(target=run.oversize_run),
    ]
    loads = [threading.Thread(target=run.api_requests), threading.Thread(target=run.games_run)]
    for t in threads + loads:
        t.daemon = True
        t.start()
    while time.monotonic() < run.end and server.poll() is None:
        time.sleep(0.5)
    run.stop.set()
    for t in threads + loads:
        t.join(timeout=15)
    alive = server.poll() is None
    server.kill()
    server.wait()
    after = sha(db)

    page = run.page
    ok = sorted(t for t in page if t is not None)
    slow = sum(1 for t in page if t is None or t >= 1.0)
    print(f"binary: {args.bin}")
    print(f"database: {os.path.basename(db)}; run {time.monotonic() - started:.0f} s; "
          f"{args.slow} slowloris + {args.slow} silent connections")
    if ok:
        p95 = ok[min(len(ok) - 1, int(0.95 * len(ok)))]
        print(f"GET /: {len(page)} fetches, median {statistics.median(ok) * 1000:.1f} ms, "
              f"p95 {p95 * 1000:.1f} ms, max {ok[-1] * 1000:.1f} ms; {slow} took 1 s or more or failed")
    else:
        print(f"GET /: {len(page)} fetches, none answered")
    print(f"API requests: {dict(sorted(run.api.items(), key=str))}")
    print("costly condition alone (2 s limit): " + ", ".join(f"{st} in {t:.3f} s" for st, t in alone))
    if run.costly:
        print(f"costly condition under load, with waiting for a worker: median {statistics.median(run.costly):.2f} s, "
              f"max {max(run.costly):.2f} s over {len(run.costly)}")
    print(f"oversize: {json.dumps(run.oversize)}")
    print(f"games: {dict(sorted(run.games.items(), key=str))}")
    print(f"peak resident memory: {run.peak_rss} MiB; server {'stayed up' if alive else 'DIED'}; "
          f"database {'unchanged' if before == after else 'CHANGED'}")
    sys.exit(0 if alive and slow == 0 and before == after else 1)


if __name__ == "__main__":
    main()
