#!/usr/bin/env bash
# kgate webhook: AdmissionReviews for a pod against PodSecurity restricted plus 10 ValidatingAdmissionPolicies.
#   1. without the network: bench_review on one core (decode, chain, encode) — reviews/s per core, p50/p99;
#   2. over HTTPS keep-alive: `kgate webhook` pinned to core 0, wrk (16 connections, POST /validate) pinned to
#      core 1 — reviews/s of one door core, latency as wrk sees it (TLS and loopback included);
#   3. memory: RSS of a door reading a cluster (kgate serve) with 10,000 namespaces through --kubeconfig, after the
#      first lists, 10 s later, and after the HTTPS load; and of a door with only the policies, for comparison.
# Results: results/webhookdoor.json and results/webhookdoor.md.
set -uo pipefail
B=${1:?build dir}
KGATE=$B/kgate
OUT=$(cd "$(dirname "$0")/.." && mkdir -p results && cd results && pwd)
W=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$W"' EXIT
SECS=${KGATE_WEBHOOK_BENCH_SECONDS:-5}
NS=${KGATE_WEBHOOK_BENCH_NAMESPACES:-10000}
command -v taskset >/dev/null || { echo "bench/webhookdoor: taskset needed"; exit 1; }
command -v wrk >/dev/null || { echo "bench/webhookdoor: wrk needed"; exit 1; }
rss() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; } # utime + stime, in clock ticks
HZ=$(getconf CLK_TCK)

# 1. in process
runs=()
for i in 1 2 3; do runs+=("$(taskset -c 1 "$B/bench/webhookdoor/bench_review" "$SECS" 2>/dev/null)"); done
INPROC=$(printf '%s\n' "${runs[@]}" | sort -t: -k4 -n | sed -n 2p) # the median by reviews/s
echo "in process (median of 3): $INPROC"

# 2. HTTPS
mkdir -p "$W/pol"
"$B/bench/webhookdoor/bench_review" --dump "$W/pol" 2>/dev/null || exit 1
mv "$W/pol/review.json" "$W/review.json"
door() { # door OUT [flags]: start kgate webhook on core 0, wait for /readyz; sets DPID, DPORT
  local out=$1
  shift
  taskset -c 0 "$KGATE" webhook --secure-port 0 --bind-address 127.0.0.1 --cert-dir "$W/certs" "$@" >"$out" 2>"$out.log" &
  DPID=$!
  PIDS+=("$DPID")
  for _ in $(seq 1 600); do
    DPORT=$(sed -n 's|.*https://127.0.0.1:\([0-9]*\) .*|\1|p' "$out" 2>/dev/null)
    [ -n "$DPORT" ] && curl -sf --cacert "$W/certs/ca.crt" "https://127.0.0.1:$DPORT/readyz" >/dev/null && return 0
    sleep 0.05
  done
  echo "bench/webhookdoor: the door did not get ready"; cat "$out.log"; return 1
}
door "$W/d1" --policy-dir "$W/pol" --max-requests-inflight 0 || exit 1
ans=$(curl -sS --cacert "$W/certs/ca.crt" -H 'Content-Type: application/json' --data-binary @"$W/review.json" \
  "https://127.0.0.1:$DPORT/validate")
echo "$ans" | grep -q '"allowed":true' || { echo "bench/webhookdoor: the review was not allowed: $ans"; exit 1; }
RSS_POLICIES=$(rss "$DPID")
cat >"$W/post.lua" <<L
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = io.open("$W/review.json"); wrk.body = f:read("*a"); f:close()
L
wrkrun() { taskset -c 1 wrk -t1 -c16 -d"${SECS}s" --latency -s "$W/post.lua" "https://127.0.0.1:$1/validate"; }
C0=$(cpu_ticks "$DPID")
wrkrun "$DPORT" >"$W/wrk.txt" 2>&1
C1=$(cpu_ticks "$DPID")
cat "$W/wrk.txt"
# reviews per CPU-second of the door: its throughput per core, whatever else the (shared) machine is running
NREQ=$(awk '/requests in/ {print $1}' "$W/wrk.txt")
PER_CPU_S=$((NREQ * HZ / (C1 - C0 > 0 ? C1 - C0 : 1)))
echo "door CPU: $(((C1 - C0) * 1000 / HZ)) ms for $NREQ reviews: $PER_CPU_S reviews per CPU-second"
grep -q "Non-2xx" "$W/wrk.txt" && { echo "bench/webhookdoor: non-2xx answers"; exit 1; }
RPS=$(awk '/Requests\/sec/ {printf "%.0f", $2}' "$W/wrk.txt")
ms() { awk -v p="$1" '$1 == p {v=$2; if (v ~ /us$/) {sub(/us/,"",v); v/=1000} else if (v ~ /ms$/) {sub(/ms/,"",v)} else if (v ~ /s$/) {sub(/s/,"",v); v*=1000}; printf "%.3f", v}' "$W/wrk.txt"; }
P50=$(ms 50%)
P99=$(ms 99%)
RSS_POLICIES_LOADED=$(rss "$DPID")
kill "$DPID"; wait "$DPID" 2>/dev/null

# 3. 10,000 namespaces from a live cluster
SPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$KGATE" serve --data-dir "$W/serve" --secure-port "$SPORT" >"$W/serve.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 200); do [ -s "$W/serve/admin.kubeconfig" ] && curl -sk "https://127.0.0.1:$SPORT/readyz" >/dev/null && break; sleep 0.05; done
TOKEN=$(awk '/token:/ {print $2}' "$W/serve/admin.kubeconfig")
python3 - "$SPORT" "$TOKEN" "$NS" <<'P' || exit 1
import http.client, json, ssl, sys, threading
port, token, n = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
ctx = ssl._create_unverified_context()
def work(k, step):
    c = http.client.HTTPSConnection("127.0.0.1", port, context=ctx)
    for i in range(k, n, step):
        body = json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-%05d" % i,
               "labels": {"pod-security.kubernetes.io/enforce": "restricted", "team": "t%d" % (i % 50),
                          "cost-center": "cc-%d" % (i % 7)},
               "annotations": {"owner": "someone@example.com", "description": "a namespace of the benchmark"}}})
        c.request("POST", "/api/v1/namespaces", body, {"Authorization": "Bearer " + token,
                  "Content-Type": "application/json"})
        r = c.getresponse(); r.read()
        if r.status != 201: raise SystemExit("namespace create: %d" % r.status)
ts = [threading.Thread(target=work, args=(k, 8)) for k in range(8)]
[t.start() for t in ts]; [t.join() for t in ts]
P
T0=$(date +%s%N)
door "$W/d2" --kubeconfig "$W/serve/admin.kubeconfig" --policy-dir "$W/pol" --max-requests-inflight 0 || exit 1
SYNC_MS=$((($(date +%s%N) - T0) / 1000000))
grep -q "namespaces: $((NS + 4)) object(s)" "$W/d2.log" || { echo "bench/webhookdoor: not all namespaces read"; cat "$W/d2.log"; exit 1; }
RSS_NS=$(rss "$DPID")
sleep 10
RSS_NS_10S=$(rss "$DPID")
wrkrun "$DPORT" >"$W/wrk2.txt" 2>&1
RPS_NS=$(awk '/Requests\/sec/ {printf "%.0f", $2}' "$W/wrk2.txt")
RSS_NS_LOAD=$(rss "$DPID")

cat >"$OUT/webhookdoor.json" <<J
{
  "machine": "$(nproc) cores, $(uname -r)",
  "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "workload": "pod CREATE review, namespace enforce=restricted, 10 ValidatingAdmissionPolicies bound to pods (all pass)",
  "in_process_one_core": $INPROC,
  "https_one_door_core": {"connections": 16, "seconds": $SECS, "reviews": $NREQ, "reviews_per_s": $RPS,
                          "door_cpu_ms": $(((C1 - C0) * 1000 / HZ)), "reviews_per_cpu_s": $PER_CPU_S,
                          "p50_ms": $P50, "p99_ms": $P99},
  "load_average": "$(cut -d' ' -f1-3 /proc/loadavg)",
  "rss_kb": {"policies_only_idle": $RSS_POLICIES, "policies_only_after_load": $RSS_POLICIES_LOADED,
             "namespaces": $NS, "with_namespaces_synced": $RSS_NS, "with_namespaces_10s_later": $RSS_NS_10S,
             "with_namespaces_after_load": $RSS_NS_LOAD},
  "with_namespaces_https_reviews_per_s": $RPS_NS,
  "first_sync_ms_with_namespaces": $SYNC_MS,
  "goals": {"reviews_per_s_per_core": 10000, "p99_ms_excluding_network": 1, "rss_kb_with_10000_namespaces": 30720}
}
J
cat "$OUT/webhookdoor.json"
