#!/usr/bin/env python3
"""Slowloris (issue 20): connections that trickle request-header bytes cannot hold the server.

usage: slowloris.py URL TOKEN N [SECONDS [REPORT]]
  e2e mode (default): N hostile connections from 127.0.0.2 sending one header byte per second; asserts that
    /readyz from a new client stays fast, that the per-IP limit sheds the oldest hostile connections, that a
    client from the attackers' own address is still served, and that the header deadline (10 s) is not
    extended by trickling.
  bench mode (SECONDS given): keeps N hostile connections open (reopening those the server closes) spread over
    127.0.0.2..127.0.0.x (200 per address) for SECONDS while timing /readyz from a new connection each 100 ms;
    prints and writes the figures to REPORT."""
import os
import selectors
import socket
import ssl
import sys
import time
import urllib.parse

URL, TOKEN, N = sys.argv[1], sys.argv[2], int(sys.argv[3])
BENCH = len(sys.argv) > 4
u = urllib.parse.urlparse(URL)
HOST, PORT, TLS = u.hostname, u.port, u.scheme == "https"
CTX = ssl.create_default_context()
CTX.check_hostname = False
CTX.verify_mode = ssl.CERT_NONE
HEADER = b"GET /readyz HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 4000
failures = 0


def report(ok, name, detail=""):
    global failures
    print(("ok   - " if ok else "FAIL - ") + name + ("" if ok else "  " + detail), flush=True)
    failures += not ok


def connect(src, timeout=5):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.bind((src, 0))
    s.connect((HOST, PORT))
    if TLS:
        s = CTX.wrap_socket(s, server_hostname=HOST)
    return s


def readyz(src="127.0.0.1"):
    """Latency in ms of GET /readyz on a new connection (None on failure)."""
    t = time.perf_counter()
    try:
        s = connect(src)
        s.sendall(b"GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer " + TOKEN.encode() + b"\r\n\r\n")
        data = b""
        while True:
            d = s.recv(4096)
            if not d:
                break
            data += d
        s.close()
        if not data.startswith(b"HTTP/1.1 200"):
            return None
    except OSError:
        return None
    return (time.perf_counter() - t) * 1000


def is_closed(s):
    """The server closed (or reset) this hostile connection."""
    try:
        s.setblocking(False)
        d = s.recv(1)
        return d == b""
    except (ssl.SSLWantReadError, BlockingIOError):
        return False
    except OSError:
        return True
    finally:
        s.setblocking(True)


def pct(v, p):
    v = sorted(v) or [float("inf")]
    return v[min(len(v) - 1, int(len(v) * p / 100))]


class Hostile:
    def __init__(self, src):
        self.src = src
        self.s = connect(src)
        self.sent = 0

    def trickle(self):
        try:
            self.s.send(HEADER[self.sent % len(HEADER):self.sent % len(HEADER) + 1])
            self.sent += 1
            return True
        except OSError:
            return False


if not BENCH:
    hostile = []
    for i in range(N):
        try:
            hostile.append(Hostile("127.0.0.2"))
        except OSError:
            pass
    opened = len(hostile)
    t_last = time.time()  # the last hostile connection was accepted by now: all deadlines pass by t_last + 10 s
    open_now = sum(not is_closed(h.s) for h in hostile)
    report(opened == N, f"{N} hostile connections accepted", f"{opened}")
    report(open_now <= 256, "per-IP limit: at most 256 connections without a complete request per client IP",
           f"{open_now} open")
    lat, fails = [], 0
    t_end = time.time() + 6
    while time.time() < t_end:
        for h in hostile:
            h.trickle()
        for _ in range(5):
            ms = readyz()
            if ms is None:
                fails += 1
            else:
                lat.append(ms)
            time.sleep(0.1)
    print(f"# /readyz with {N} slowloris connections: {len(lat)} requests, p50 {pct(lat, 50):.1f} ms, "
          f"p99 {pct(lat, 99):.1f} ms, max {max(lat or [0]):.1f} ms, {fails} failed", flush=True)
    report(fails == 0 and pct(lat, 99) < 1000, "/readyz from a new client stays fast", f"p99 {pct(lat, 99):.0f} ms")
    report(readyz("127.0.0.2") is not None, "a client from the attackers' address is still served")
    # keep trickling until past the 10 s header deadline (+ the once-a-second sweep): every hostile connection
    # must be closed
    while time.time() < t_last + 12:
        for h in hostile:
            h.trickle()
        time.sleep(1)
    still = sum(not is_closed(h.s) for h in hostile)
    report(still == 0, "trickling does not extend the 10 s header deadline", f"{still} still open")
    sys.exit(1 if failures else 0)

# ---- bench ----
SECONDS = float(sys.argv[4])
REPORT = sys.argv[5] if len(sys.argv) > 5 else None
srcs = [f"127.0.0.{2 + i // 200}" for i in range(N)]
hostile = [None] * N
reopened = 0
t0 = time.time()
for i in range(N):
    try:
        hostile[i] = Hostile(srcs[i])
    except OSError:
        pass
print(f"# opened {sum(h is not None for h in hostile)} hostile connections in {time.time() - t0:.1f} s", flush=True)
lat, fails, opencounts = [], [0], []
t_end = time.time() + SECONDS


def prober():
    """/readyz on a new connection every 100 ms, on its own thread so that reopening hostile connections does
    not delay it"""
    while time.time() < t_end:
        ms = readyz()
        if ms is None:
            fails[0] += 1
        else:
            lat.append(ms)
        time.sleep(0.1)


import threading  # noqa: E402

pt = threading.Thread(target=prober)
pt.start()
next_tick = time.time()
while time.time() < t_end:
    if time.time() < next_tick:
        time.sleep(min(0.05, next_tick - time.time()))
        continue
    next_tick += 1
    alive = 0
    for i in range(N):
        h = hostile[i]
        if h is None or not h.trickle():
            if time.time() >= t_end:
                break
            try:
                hostile[i] = Hostile(srcs[i])
                reopened += 1
            except OSError:
                hostile[i] = None
                continue
        alive += 1
    opencounts.append(alive)
pt.join()
fails = fails[0]
line = (f"{N} hostile slowloris connections ({'TLS' if TLS else 'plain HTTP'}, one header byte per second, "
        f"reopened when closed: {reopened} reopens, {min(opencounts) if opencounts else 0}-"
        f"{max(opencounts) if opencounts else 0} open per tick) for {SECONDS:.0f} s: /readyz on a new connection "
        f"{len(lat)} ok / {fails} failed, p50 {pct(lat, 50):.1f} ms, p90 {pct(lat, 90):.1f} ms, "
        f"p99 {pct(lat, 99):.1f} ms, max {max(lat or [0]):.1f} ms")
print(line)
if REPORT:
    with open(REPORT, "a") as f:
        f.write(line + "\n")
