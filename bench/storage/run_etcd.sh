#!/usr/bin/env bash
# etcd3 benchmark: $1 = build dir. Starts a private single-member etcd (fsync on, data on the repo's disk, random
# loopback ports), runs bench_etcd against it, writes bench/results/storage_etcd.json.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build-bench}
ETCD=${ETCD:-/usr/bin/etcd}
[ -x "$ETCD" ] || { echo "run_etcd.sh: $ETCD not installed; skipped"; exit 0; }
D=$(mktemp -d "$PWD/bench/storage/.etcd-XXXXXX")
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
CP=$(port)
PP=$(port)
"$ETCD" --name bench --data-dir "$D/data" --listen-client-urls "http://127.0.0.1:$CP" \
  --advertise-client-urls "http://127.0.0.1:$CP" --listen-peer-urls "http://127.0.0.1:$PP" \
  --initial-advertise-peer-urls "http://127.0.0.1:$PP" --initial-cluster "bench=http://127.0.0.1:$PP" \
  --log-level warn --logger zap >"$D/etcd.log" 2>&1 &
EPID=$!
trap 'kill $EPID 2>/dev/null; wait $EPID 2>/dev/null || true; rm -rf "$D"' EXIT
for _ in $(seq 1 100); do
  curl -s -X POST "http://127.0.0.1:$CP/v3/kv/range" -d '{"key":"AA=="}' | grep -q header && break
  sleep 0.1
done
mkdir -p bench/results
"$B/bench/storage/bench_etcd" "http://127.0.0.1:$CP" "${KGATE_BENCH_SCALE:-1}" > bench/results/storage_etcd.json
cat bench/results/storage_etcd.json
# two replicas on a 3-member cluster: creates/s at 64 clients and watch delivery latency across replicas
"$(dirname "$0")/run_replicas.sh" "$B"
