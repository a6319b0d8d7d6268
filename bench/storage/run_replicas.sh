#!/usr/bin/env bash
# Two kgate replicas on a 3-member etcd cluster (issue 18): durable pod creates/s at 64 keep-alive clients split
# over both replicas (bench_api, 32 each), and watch delivery latency across replicas (bench_replica_latency:
# create through A, event on a watch on B), idle and under that load. etcd with fsync on, data on the repo's disk,
# loopback. $1 = build dir, $2 = seconds of load (default 10). Merges "replicas_2_on_3_members" into
# bench/results/storage_etcd.json.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build-bench}
SECS=${2:-10}
ETCD=${ETCD:-/usr/bin/etcd}
[ -x "$ETCD" ] || { echo "run_replicas.sh: $ETCD not installed; skipped"; exit 0; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
D=$(mktemp -d "$PWD/bench/storage/.replicas-XXXXXX")
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$D"
}
trap cleanup EXIT
read -r -a PORTS <<<"$("$PY" -c '
import socket
ss = [socket.socket() for _ in range(6)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')"
CL="m0=http://127.0.0.1:${PORTS[3]},m1=http://127.0.0.1:${PORTS[4]},m2=http://127.0.0.1:${PORTS[5]}"
URLS="http://127.0.0.1:${PORTS[0]},http://127.0.0.1:${PORTS[1]},http://127.0.0.1:${PORTS[2]}"
for i in 0 1 2; do
  "$ETCD" --name "m$i" --data-dir "$D/etcd$i" --listen-client-urls "http://127.0.0.1:${PORTS[$i]}" \
    --advertise-client-urls "http://127.0.0.1:${PORTS[$i]}" --listen-peer-urls "http://127.0.0.1:${PORTS[$((i + 3))]}" \
    --initial-advertise-peer-urls "http://127.0.0.1:${PORTS[$((i + 3))]}" --initial-cluster "$CL" \
    --initial-cluster-state new --log-level warn --logger zap >"$D/etcd$i.log" 2>&1 &
  PIDS+=($!)
done
for i in 0 1 2; do
  for _ in $(seq 1 200); do
    curl -s -m 1 -X POST "http://127.0.0.1:${PORTS[$i]}/v3/kv/range" -d '{"key":"AA=="}' | grep -q header && break
    sleep 0.1
  done
done
start() { # NAME: a replica in $D/NAME (the second one shares the first one's CA and admin token)
  mkdir -p "$D/$1"
  [ "$1" = r1 ] || cp "$D/r1/ca.crt" "$D/r1/ca.key" "$D/r1/admin.token" "$D/$1/"
  "$B/kgate" serve --data-dir "$D/$1" --secure-port 0 --storage-backend=etcd3 "--etcd-servers=$URLS" \
    >"$D/$1.log" 2>&1 &
  PIDS+=($!)
  until grep -q "kgate serve is running" "$D/$1.log" 2>/dev/null; do sleep 0.05; done
}
start r1
start r2
TOKEN=$(cat "$D/r1/admin.token")
A=$(awk '/server:/ {print $2}' "$D/r1/admin.kubeconfig")
Bu=$(awk '/server:/ {print $2}' "$D/r2/admin.kubeconfig")
# bench_api names its pods by the second it started: the two loads go to two namespaces
curl -sk -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -X POST "$A/api/v1/namespaces" \
  -d '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"bench-b"}}' >/dev/null
for _ in $(seq 1 100); do
  curl -sk -H "Authorization: Bearer $TOKEN" "$Bu/api/v1/namespaces/bench-b/serviceaccounts/default" | grep -q '"name"' &&
    break
  sleep 0.1
done
idle=$("$B/bench/server/bench_replica_latency" "$A" "$Bu" "$TOKEN" default 200)
"$B/bench/server/bench_api" "$A" "$TOKEN" create 32 "$SECS" >"$D/load.a" &
LA=$!
"$B/bench/server/bench_api" "$Bu" "$TOKEN" create 32 "$SECS" bench-b >"$D/load.b" &
LB=$!
sleep 1
loaded=$("$B/bench/server/bench_replica_latency" "$A" "$Bu" "$TOKEN" kube-public 100)
wait "$LA" "$LB"
LOAD=$(cat /proc/loadavg | cut -d' ' -f1)
mkdir -p bench/results
"$PY" - "$idle" "$loaded" "$(cat "$D/load.a")" "$(cat "$D/load.b")" "$LOAD" <<'PYEOF'
import json, sys
idle, loaded, a, b = (json.loads(x) for x in sys.argv[1:5])
res = {
    "loadavg_1m": float(sys.argv[5]),
    "creates_64_clients": {"ops_per_s": round(a["ops_per_s"] + b["ops_per_s"]),
                           "replica_a": a, "replica_b": b},
    "watch_latency_idle": idle,
    "watch_latency_under_load": loaded,
}
path = "bench/results/storage_etcd.json"
try:
    doc = json.load(open(path))
except (OSError, ValueError):
    doc = {}
doc["replicas_2_on_3_members"] = res
json.dump(doc, open(path, "w"), indent=2)
open(path, "a").write("\n")
print(json.dumps(res, indent=2))
PYEOF
