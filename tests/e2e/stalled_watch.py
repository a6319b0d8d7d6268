#!/usr/bin/env python3
"""Stalled watchers under write load (issue 20): clients that open a watch and stop reading must not make the
server's memory grow without bound; they are closed once they stay stalled, and a client that keeps reading
still gets every event.

usage: stalled_watch.py URL TOKEN PID   (prints "ok - ..." / "FAIL - ..." lines, exits 1 on a failure)"""
import http.client
import json
import os
import socket
import ssl
import sys
import threading
import time
import urllib.parse

URL, TOKEN, PID = sys.argv[1], sys.argv[2], int(sys.argv[3])
u = urllib.parse.urlparse(URL)
HOST, PORT, TLS = u.hostname, u.port, u.scheme == "https"
CTX = ssl.create_default_context()
CTX.check_hostname = False
CTX.verify_mode = ssl.CERT_NONE
NS = "default"
VALUE = "x" * 10000  # 10 kB per object
INITIAL = 300        # 3 MB of initial list, above the per-watcher high-water mark
WRITES = 1500        # 15 MB of events per watcher
STALLED = int(os.environ.get("STALLED", "20"))
failures = 0


def report(ok, name, detail=""):
    global failures
    print(("ok   - " if ok else "FAIL - ") + name + ("" if ok else "  " + detail), flush=True)
    if not ok:
        failures += 1


def rss_kb():
    with open(f"/proc/{PID}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def conn():
    if TLS:
        return http.client.HTTPSConnection(HOST, PORT, context=CTX, timeout=30)
    return http.client.HTTPConnection(HOST, PORT, timeout=30)


def call(c, method, path, body=None):
    h = {"Authorization": "Bearer " + TOKEN, "Content-Type": "application/json"}
    c.request(method, path, body=json.dumps(body) if body is not None else None, headers=h)
    r = c.getresponse()
    data = r.read()
    return r.status, data


def cm(name, i):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"v": VALUE, "i": str(i)}}


def raw_watch(query):
    """A watch that is never read: a tiny receive buffer so the server's side fills quickly."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect((HOST, PORT))
    if TLS:
        s = CTX.wrap_socket(s, server_hostname=HOST)
    req = (f"GET /api/v1/namespaces/{NS}/configmaps?watch=1&{query} HTTP/1.1\r\nHost: {HOST}\r\n"
           f"Authorization: Bearer {TOKEN}\r\n\r\n")
    s.sendall(req.encode())
    return s


def writer(idx, n, out):
    c = conn()
    ok = 0
    for i in range(n):
        st, _ = call(c, "PUT", f"/api/v1/namespaces/{NS}/configmaps/w{idx}", cm(f"w{idx}", i))
        ok += st == 200
    out.append(ok)


c = conn()
for i in range(INITIAL):
    st, body = call(c, "POST", f"/api/v1/namespaces/{NS}/configmaps", cm(f"init-{i}", i))
    if st != 201:
        report(False, "create initial objects", f"{st} {body[:200]!r}")
        sys.exit(1)
for k in range(4):
    call(c, "POST", f"/api/v1/namespaces/{NS}/configmaps", cm(f"w{k}", -1))
st, body = call(c, "GET", f"/api/v1/namespaces/{NS}/configmaps?limit=1")
rv = json.loads(body)["metadata"]["resourceVersion"]

# a watcher that keeps reading: it must see every update
seen = {"n": 0}


def reader():
    rc = conn()
    rc.request("GET", f"/api/v1/namespaces/{NS}/configmaps?watch=1&resourceVersion={rv}&timeoutSeconds=120",
               headers={"Authorization": "Bearer " + TOKEN})
    r = rc.getresponse()
    while True:
        line = r.readline()
        if not line:
            break
        if b'"MODIFIED"' in line:
            seen["n"] += 1
            if seen["n"] == 4 * (WRITES // 4):
                break


rt = threading.Thread(target=reader, daemon=True)
rt.start()
time.sleep(0.5)
base = rss_kb()
stalled = [raw_watch("") for _ in range(STALLED // 2)]  # with the initial list
stalled += [raw_watch(f"resourceVersion={rv}") for _ in range(STALLED - len(stalled))]
time.sleep(0.5)
t0 = time.time()
oks = []
ws = [threading.Thread(target=writer, args=(k, WRITES // 4, oks)) for k in range(4)]
for w in ws:
    w.start()
peak = base
while any(w.is_alive() for w in ws):
    peak = max(peak, rss_kb())
    time.sleep(0.1)
for w in ws:
    w.join()
elapsed = time.time() - t0
peak = max(peak, rss_kb())
growth_mb = (peak - base) / 1024
unbounded_mb = STALLED * WRITES * len(VALUE) / 1e6
print(f"# {STALLED} stalled watchers, {sum(oks)} writes of 10 kB in {elapsed:.1f} s: VmRSS {base // 1024} MB -> "
      f"peak {peak // 1024} MB (+{growth_mb:.0f} MB; unbounded queues would hold ~{unbounded_mb:.0f} MB)", flush=True)
report(sum(oks) == 4 * (WRITES // 4), "every write succeeded", f"{sum(oks)}")
RSS_BOUND_MB = int(os.environ.get("RSS_BOUND_MB", "120"))
if RSS_BOUND_MB:
    report(growth_mb < RSS_BOUND_MB, "server RSS stays bounded with stalled watchers under write load",
           f"+{growth_mb:.0f} MB")
else:
    print("# RSS bound not checked: sanitizer build", flush=True)
rt.join(timeout=20)
report(seen["n"] == 4 * (WRITES // 4), "a watcher that reads sees every event", f"{seen['n']}")

# stalled watchers are closed (after 10 s blocked): reading one now drains what was queued, then EOF
time.sleep(max(0.0, 12 - elapsed))
closed = 0
for s in stalled[:4]:
    s.settimeout(5)
    tail = b""
    try:
        while True:
            d = s.recv(1 << 20)
            tail = (tail + d)[-16:]
            if not d or tail.endswith(b"\r\n0\r\n\r\n"):  # EOF or the last chunk of the response
                closed += 1
                break
    except (socket.timeout, ssl.SSLError, OSError):
        pass
report(closed == 4, "stalled watchers are closed by the server (the client re-lists)", f"{closed} of 4 closed")
for s in stalled:
    s.close()

# the server still serves
st, _ = call(conn(), "GET", "/readyz")
report(st == 200, "the server stays ready")
sys.exit(1 if failures else 0)
