#!/usr/bin/env python3
"""Soak test for kgate serve (issue 20 point 9; `make soak`, not run in CI).

usage: soak.py KGATE LOADGEN [REPORT]
  SOAK_MINUTES       how long the load runs (default 30)
  SOAK_KILL_SECONDS  kill -9 and restart the server this often (default 60)
  SOAK_RSS_LIMIT_MB  the server's RSS must stay below this (default 512)

For SOAK_MINUTES it runs, against one `kgate serve` (sqlite, Secrets encrypted at rest with aescbc) on a loopback
port that survives restarts:
  - bursts of pod creates from tests/e2e/loadgen (8 keep-alive clients); after each burst every acknowledged pod
    must be listed, then the burst is deleted again (deletecollection), so the data set stays bounded;
  - two clients incrementing one ConfigMap counter with resourceVersion preconditions (409 conflicts expected):
    the stored counter may never be below the highest acknowledged value;
  - a Secret writer creating and deleting Secrets: every acknowledged create that was not deleted must read back
    with its value, every acknowledged delete must stay deleted, and the raw database must hold no plaintext value;
  - two watchers of ConfigMaps (re-list and re-watch on every end), checking resourceVersions only increase;
  - hostile clients: 40 connections trickling one header byte per second (slowloris) from 127.0.0.2, reopened
    whenever the server closes them, and 4 pod watchers that never read (stalled), replaced every 20 s;
  - every SOAK_KILL_SECONDS a kill -9 and a restart;
  - a sampler: the server's RSS and a /readyz probe on a fresh connection every 2 s.
At the end the server is killed once more, restarted, and every acknowledged write is checked. Assertions: zero lost
acknowledged writes, RSS below SOAK_RSS_LIMIT_MB, /readyz p99 < 1 s and ConfigMap update p99 < 2 s outside restarts.
The figures are printed and written to REPORT (markdown) when given. Exit status 1 on a failed assertion."""
import base64
import http.client
import json
import os
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time

KGATE, LOADGEN = sys.argv[1], sys.argv[2]
REPORT = sys.argv[3] if len(sys.argv) > 3 else None
MINUTES = float(os.environ.get("SOAK_MINUTES", "30"))
KILL_EVERY = float(os.environ.get("SOAK_KILL_SECONDS", "60"))
RSS_LIMIT_MB = float(os.environ.get("SOAK_RSS_LIMIT_MB", "512"))
CTX = ssl.create_default_context()
CTX.check_hostname = False
CTX.verify_mode = ssl.CERT_NONE

W = tempfile.mkdtemp(prefix="kgate-soak-")
D = os.path.join(W, "data")
s = socket.socket()
s.bind(("127.0.0.1", 0))
PORT = s.getsockname()[1]
s.close()
URL = "https://127.0.0.1:%d" % PORT
ENC = os.path.join(W, "enc.yaml")
with open(ENC, "w") as f:
    f.write("apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n"
            "- resources: [secrets]\n  providers:\n  - aescbc: {keys: [{name: k1, secret: %s}]}\n  - identity: {}\n"
            % base64.b64encode(os.urandom(32)).decode())

stop = threading.Event()
lock = threading.Lock()
stats = {"restarts": 0, "downtime": [], "lg_acked": 0, "lg_lost": 0, "lg_bursts": 0, "cm_acked": 0,
         "cm_conflicts": 0, "cm_max_acked": 0, "sec_created": {}, "sec_deleted": set(), "watch_events": 0,
         "watch_restarts": 0, "watch_rv_errors": 0, "slowloris_opened": 0, "stalled_opened": 0,
         "rss": [], "lifetimes": [], "readyz_ms": [], "put_ms": [], "errors": 0}
TOKEN = None


def log(msg):
    print("[%7.1f] %s" % (time.time() - T0, msg), flush=True)


class Server:
    def __init__(self):
        self.proc = None
        self.started = 0.0
        self.rss_first = None
        self.logf = open(os.path.join(W, "serve.log"), "ab")
        self.up = threading.Event()

    def start(self):
        global TOKEN
        self.proc = subprocess.Popen([KGATE, "serve", "--data-dir", D, "--secure-port", str(PORT),
                                      "--encryption-provider-config", ENC], stdout=self.logf, stderr=self.logf)
        t = time.time()
        while time.time() - t < 60:
            try:
                if TOKEN is None:
                    TOKEN = open(os.path.join(D, "admin.token")).read().strip()
                c = http.client.HTTPSConnection("127.0.0.1", PORT, context=CTX, timeout=2)
                c.request("GET", "/readyz", headers={"Authorization": "Bearer " + TOKEN})
                if c.getresponse().status == 200:
                    self.started = time.time()
                    self.rss_first = None
                    self.up.set()
                    return time.time() - t
            except (OSError, http.client.HTTPException):
                pass
            time.sleep(0.05)
        raise SystemExit("kgate serve did not become ready within 60 s; see %s/serve.log" % W)

    def rss_mb(self):
        try:
            for line in open("/proc/%d/status" % self.proc.pid):
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
        except OSError:
            return None
        return None

    def kill9(self):
        self.up.clear()
        rss = self.rss_mb()
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        return rss


srv = Server()


class Client:
    """One keep-alive HTTPS connection; reconnects after errors."""

    def __init__(self, timeout=15):
        self.c = None
        self.timeout = timeout

    def req(self, method, path, body=None):
        hdr = {"Authorization": "Bearer " + TOKEN, "Content-Type": "application/json"}
        for _ in range(2):
            try:
                if self.c is None:
                    self.c = http.client.HTTPSConnection("127.0.0.1", PORT, context=CTX, timeout=self.timeout)
                t = time.time()
                self.c.request(method, path, body=json.dumps(body) if body is not None else None, headers=hdr)
                r = self.c.getresponse()
                data = r.read()
                return r.status, data, (time.time() - t) * 1000
            except (OSError, http.client.HTTPException):
                self.c = None
                srv.up.wait(60)
        return 0, b"", 0


def bump(key, n=1):
    with lock:
        stats[key] += n


def loadgen_bursts():
    """Bursts of pod creates; after each: every acknowledged pod must be there; then delete them again."""
    cl = Client(60)
    n = 0
    while not stop.is_set():
        srv.up.wait(60)
        out = os.path.join(W, "burst-%d.txt" % n)
        with open(out, "w") as f:
            p = subprocess.Popen([LOADGEN, URL, TOKEN, "default", "8", "100", "b%d" % n], stdout=f,
                                 stderr=subprocess.DEVNULL)
            while p.poll() is None:
                if stop.is_set():
                    p.kill()
                time.sleep(0.1)
        acked = set(l.strip() for l in open(out) if l.strip())
        # check (and clean up) on a live server, after a restart if the kill hit the burst
        for _ in range(100):
            srv.up.wait(60)
            st, data, _ = cl.req("GET", "/api/v1/namespaces/default/pods?labelSelector=app%3Dload")
            if st == 200:
                break
            time.sleep(0.2)
        present = set(i["metadata"]["name"] for i in json.loads(data)["items"]) if st == 200 else set()
        lost = acked - present
        with lock:
            stats["lg_acked"] += len(acked)
            stats["lg_lost"] += len(lost)
            stats["lg_bursts"] += 1
        if lost:
            log("LOST %d acknowledged pods of burst %d, e.g. %s" % (len(lost), n, sorted(lost)[:3]))
        for _ in range(100):
            st, _, _ = cl.req("DELETE", "/api/v1/namespaces/default/pods?labelSelector=app%3Dload")
            if st == 200:
                break
            time.sleep(0.2)
        n += 1


def counter(idx):
    """Increment one ConfigMap with a resourceVersion precondition: conflicts with the other incrementer."""
    cl = Client()
    path = "/api/v1/namespaces/default/configmaps/soak-counter"
    while not stop.is_set():
        st, data, _ = cl.req("GET", path)
        if st != 200:
            time.sleep(0.1)
            continue
        obj = json.loads(data)
        v = int(obj["data"]["n"]) + 1
        obj["data"]["n"] = str(v)
        st, _, ms = cl.req("PUT", path, obj)
        if st == 200:
            with lock:
                stats["cm_acked"] += 1
                stats["cm_max_acked"] = max(stats["cm_max_acked"], v)
                if srv.up.is_set() and time.time() - srv.started > 5:
                    stats["put_ms"].append(ms)
        elif st == 409:
            bump("cm_conflicts")
        time.sleep(0.01)


def secrets():
    """Create Secrets and delete some: acknowledged creates and deletes are checked at the end."""
    cl = Client()
    i = 0
    live = []
    while not stop.is_set():
        name = "soak-s-%d" % i
        val = "soak-secret-%d-%s" % (i, base64.b32encode(os.urandom(5)).decode())
        st, _, _ = cl.req("POST", "/api/v1/namespaces/default/secrets",
                          {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name},
                           "data": {"v": base64.b64encode(val.encode()).decode()}})
        if st == 201:
            with lock:
                stats["sec_created"][name] = val
            live.append(name)
        i += 1
        if len(live) > 40:
            victim = live.pop(0)
            st, _, _ = cl.req("DELETE", "/api/v1/namespaces/default/secrets/" + victim)
            if st == 200:
                with lock:
                    stats["sec_deleted"].add(victim)
            elif st == 404:  # deleted before a restart lost the reply
                with lock:
                    stats["sec_deleted"].add(victim)
            else:
                live.insert(0, victim)
        time.sleep(0.02)


def watcher():
    """List, then watch ConfigMaps from the list's resourceVersion; again after every end."""
    while not stop.is_set():
        srv.up.wait(60)
        try:
            c = http.client.HTTPSConnection("127.0.0.1", PORT, context=CTX, timeout=30)
            hdr = {"Authorization": "Bearer " + TOKEN}
            c.request("GET", "/api/v1/configmaps", headers=hdr)
            r = c.getresponse()
            rv = json.loads(r.read())["metadata"]["resourceVersion"]
            c.request("GET", "/api/v1/configmaps?watch=1&resourceVersion=%s&timeoutSeconds=20" % rv, headers=hdr)
            r = c.getresponse()
            last = int(rv)
            while not stop.is_set():
                line = r.readline()
                if not line:
                    break
                ev = json.loads(line)
                if ev["type"] == "ERROR":
                    break
                cur = int(ev["object"]["metadata"]["resourceVersion"])
                with lock:
                    stats["watch_events"] += 1
                    if cur <= last and ev["type"] != "BOOKMARK":
                        stats["watch_rv_errors"] += 1
                last = cur
            c.close()
        except (OSError, http.client.HTTPException, ValueError, KeyError):
            time.sleep(0.2)
        bump("watch_restarts")


def slowloris():
    """Keep 40 connections trickling header bytes, one byte per second each."""
    socks = []
    while not stop.is_set():
        while len(socks) < 40 and srv.up.is_set():
            try:
                raw = socket.create_connection(("127.0.0.1", PORT), timeout=2, source_address=("127.0.0.2", 0))
                raw.settimeout(2)
                t = CTX.wrap_socket(raw)
                t.send(b"GET /readyz HTTP/1.1\r\nHost: x\r\n")
                socks.append(t)
                bump("slowloris_opened")
            except OSError:
                break
        time.sleep(1)
        keep = []
        for t in socks:
            try:
                t.send(b"a")
                keep.append(t)
            except OSError:
                t.close()
        socks = keep
    for t in socks:
        t.close()


def stalled():
    """4 watchers of pods that never read, replaced by 4 new ones every 20 s (a stalled client's zero receive window
    hides the server's close from it, so it cannot tell when the server gave up on it: it just keeps coming)."""
    conns = []
    while not stop.is_set():
        srv.up.wait(60)
        for sk in conns:
            sk.close()
        conns = []
        while len(conns) < 4 and srv.up.is_set():
            try:
                raw = socket.create_connection(("127.0.0.1", PORT), timeout=5)
                raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                t = CTX.wrap_socket(raw)
                t.send(("GET /api/v1/pods?watch=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n\r\n" %
                        TOKEN).encode())
                conns.append(t)
                bump("stalled_opened")
            except OSError:
                break
        stop.wait(20)
    for t in conns:
        t.close()


def sampler():
    life = None
    while not stop.is_set():
        if srv.up.is_set():
            rss = srv.rss_mb()
            if rss is not None:
                with lock:
                    stats["rss"].append((time.time() - T0, rss))
                    age = time.time() - srv.started
                    if life is None or life["pid"] != srv.proc.pid:
                        life = {"pid": srv.proc.pid, "first": None, "max": rss, "last": rss}
                        stats["lifetimes"].append(life)
                    if life["first"] is None and age > 10:
                        life["first"] = rss
                    life["max"] = max(life["max"], rss)
                    life["last"] = rss
            try:
                t = time.time()
                c = http.client.HTTPSConnection("127.0.0.1", PORT, context=CTX, timeout=5)
                c.request("GET", "/readyz", headers={"Authorization": "Bearer " + TOKEN})
                ok = c.getresponse().status == 200
                c.close()
                if ok and srv.up.is_set() and time.time() - srv.started > 5:
                    with lock:
                        stats["readyz_ms"].append((time.time() - t) * 1000)
            except (OSError, http.client.HTTPException):
                pass
        time.sleep(2)


def pct(xs, p):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p / 100.0))]


T0 = time.time()
os.makedirs(D, exist_ok=True)
log("starting kgate serve on %s (data %s), %.1f minutes, kill -9 every %.0f s" % (URL, D, MINUTES, KILL_EVERY))
srv.start()
boot = Client()
boot.req("POST", "/api/v1/namespaces/default/configmaps",
         {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "soak-counter"}, "data": {"n": "0"}})
threads = [threading.Thread(target=f, args=a, daemon=True) for f, a in
           [(loadgen_bursts, ()), (counter, (0,)), (counter, (1,)), (secrets, ()), (watcher, ()), (watcher, ()),
            (slowloris, ()), (stalled, ()), (sampler, ())]]
for t in threads:
    t.start()
end = T0 + MINUTES * 60
next_kill = time.time() + KILL_EVERY
while time.time() < end:
    time.sleep(min(1.0, max(0.0, end - time.time())))
    if time.time() >= next_kill and time.time() < end - 5:
        rss = srv.kill9()
        t = time.time()
        up = srv.start()
        with lock:
            stats["restarts"] += 1
            stats["downtime"].append(time.time() - t)
        log("kill -9 (RSS %.0f MB) and restart: ready after %.2f s; pods acked %d lost %d; counter %d (%d conflicts);"
            " secrets %d; watch events %d" % (rss or 0, up, stats["lg_acked"], stats["lg_lost"], stats["cm_max_acked"],
                                             stats["cm_conflicts"], len(stats["sec_created"]), stats["watch_events"]))
        next_kill = time.time() + KILL_EVERY
stop.set()
for t in threads:
    t.join(90)
log("load stopped; final kill -9 and restart")
srv.kill9()
srv.start()
failures = []
cl = Client(60)
st, data, _ = cl.req("GET", "/api/v1/namespaces/default/configmaps/soak-counter")
stored = int(json.loads(data)["data"]["n"]) if st == 200 else -1
if stored < stats["cm_max_acked"]:
    failures.append("counter %d below the highest acknowledged value %d" % (stored, stats["cm_max_acked"]))
st, data, _ = cl.req("GET", "/api/v1/namespaces/default/secrets")
present = {i["metadata"]["name"]: base64.b64decode(i["data"]["v"]).decode() for i in json.loads(data)["items"]
           if i["metadata"]["name"].startswith("soak-s-")} if st == 200 else {}
sec_lost = [n for n, v in stats["sec_created"].items() if n not in stats["sec_deleted"] and present.get(n) != v]
sec_back = [n for n in stats["sec_deleted"] if n in present]
if sec_lost:
    failures.append("%d acknowledged secrets lost or changed, e.g. %s" % (len(sec_lost), sec_lost[:3]))
if sec_back:
    failures.append("%d acknowledged secret deletes undone, e.g. %s" % (len(sec_back), sec_back[:3]))
if stats["lg_lost"]:
    failures.append("%d acknowledged pod creates lost" % stats["lg_lost"])
raw = b""
for fn in os.listdir(D):
    if fn.startswith("kgate.db"):
        raw += open(os.path.join(D, fn), "rb").read()
# every value starts "soak-secret-" (12 bytes: its base64 form is a fixed prefix too)
plain = raw.count(b"soak-secret-") + raw.count(base64.b64encode(b"soak-secret-"))
if plain:
    failures.append("%d secret values in plain text in the database" % plain)
if stats["watch_rv_errors"]:
    failures.append("%d watch events with a resourceVersion that did not increase" % stats["watch_rv_errors"])
rss_max = max((r for _, r in stats["rss"]), default=0)
if rss_max > RSS_LIMIT_MB:
    failures.append("RSS peaked at %.0f MB, above %.0f MB" % (rss_max, RSS_LIMIT_MB))
rz99, put99 = pct(stats["readyz_ms"], 99), pct(stats["put_ms"], 99)
if not stats["readyz_ms"] or rz99 > 1000:
    failures.append("/readyz p99 %.0f ms (limit 1000 ms)" % rz99)
if not stats["put_ms"] or put99 > 2000:
    failures.append("ConfigMap update p99 %.0f ms (limit 2000 ms)" % put99)
srv.proc.terminate()
srv.proc.wait()

lt = stats["lifetimes"]
growth = [l["last"] - l["first"] for l in lt if l["first"] is not None]
lines = [
    "# Soak test (`make soak`, tests/soak/soak.py)",
    "",
    "Run: %s UTC, %.1f minutes of load, kill -9 and restart every %.0f s, on %d shared cores (client and server on "
    "one machine; load average at the end %.1f)." % (time.strftime("%Y-%m-%d %H:%M", time.gmtime(T0)), MINUTES,
                                                    KILL_EVERY, os.cpu_count(), os.getloadavg()[0]),
    "",
    "| what | figure |",
    "|---|---|",
    "| kill -9 + restart | %d; ready again after p50 %.2f s, max %.2f s |" % (
        stats["restarts"], statistics.median(stats["downtime"]) if stats["downtime"] else 0,
        max(stats["downtime"], default=0)),
    "| pod creates acknowledged (loadgen, %d bursts of 8 × 100) | %d, **lost %d** |" % (
        stats["lg_bursts"], stats["lg_acked"], stats["lg_lost"]),
    "| ConfigMap counter updates acknowledged / 409 conflicts | %d / %d; stored %d ≥ highest acknowledged %d |" % (
        stats["cm_acked"], stats["cm_conflicts"], stored, stats["cm_max_acked"]),
    "| Secrets created / deleted (acknowledged), encrypted at rest | %d / %d; **lost %d, undone deletes %d, "
    "plaintext in the db %d** |" % (len(stats["sec_created"]), len(stats["sec_deleted"]), len(sec_lost),
                                    len(sec_back), plain),
    "| watch events (2 ConfigMap watchers) / re-watches / resourceVersion regressions | %d / %d / %d |" % (
        stats["watch_events"], stats["watch_restarts"], stats["watch_rv_errors"]),
    "| hostile: slowloris connections opened / stalled watchers opened | %d / %d |" % (
        stats["slowloris_opened"], stats["stalled_opened"]),
    "| server RSS: peak over the run | %.0f MB (limit %.0f MB) |" % (rss_max, RSS_LIMIT_MB),
    "| server RSS per lifetime: at 10 s → at the kill (growth) | %s |" % ", ".join(
        "%.0f→%.0f" % (l["first"], l["last"]) for l in lt if l["first"] is not None),
    "| RSS growth within a lifetime: max | %.0f MB |" % max(growth, default=0),
    "| /readyz on a new connection, every 2 s (outside restarts) | p50 %.1f ms, p99 %.1f ms, max %.1f ms (%d probes) |"
    % (pct(stats["readyz_ms"], 50), rz99, max(stats["readyz_ms"], default=0), len(stats["readyz_ms"])),
    "| ConfigMap update (PUT) latency (outside restarts) | p50 %.1f ms, p99 %.1f ms, max %.1f ms |" % (
        pct(stats["put_ms"], 50), put99, max(stats["put_ms"], default=0)),
    "",
    "Result: %s" % ("**pass**" if not failures else "**FAIL**: " + "; ".join(failures)),
    "",
]
print("\n".join(lines))
if REPORT:
    with open(REPORT, "w") as f:
        f.write("\n".join(lines))
if not failures:
    subprocess.run(["rm", "-rf", W])
else:
    print("data and server log kept in " + W)
sys.exit(1 if failures else 0)
