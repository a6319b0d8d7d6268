#!/usr/bin/env bash
# kgate serve benchmarks, one run on one build: the no-op ceiling of the HTTP/TLS/authn stack, durable pod creates
# through the admission chain at 1 and 64 keep-alive clients, get and list rates, watch fan-out to 500 watchers,
# cold start to /readyz and idle RSS. Writes bench/results/server.json and bench/results/server.md.
# Usage: bench/server/run.sh BUILD_DIR [SECONDS]
set -uo pipefail
B=${1:?build dir}
SECS=${2:-5}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/bench/results
mkdir -p "$OUT"
W=$(mktemp -d)
PID=""
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$W"; }
trap cleanup EXIT

start() { # data dir; sets PID, URL, TOKEN and MS (ms from exec to "running", i.e. ready to serve)
  local t0 t1
  t0=$(date +%s%N)
  "$B/kgate" serve --data-dir "$1" --secure-port 0 >"$1.log" 2>&1 &
  PID=$!
  until grep -q "kgate serve is running" "$1.log" 2>/dev/null; do sleep 0.001; done
  t1=$(date +%s%N)
  URL=$(awk '/server:/ {print $2}' "$1/admin.kubeconfig")
  TOKEN=$(awk '/token:/ {print $2}' "$1/admin.kubeconfig")
  MS=$(((t1 - t0) / 1000000))
}
stop() { kill "$PID"; wait "$PID" 2>/dev/null; PID=""; }

# cold start: the first start generates certificates; measure a start on an existing data dir (best of 5)
start "$W/d"
first_ms=$MS
stop
cold=999999
for _ in 1 2 3 4 5; do
  start "$W/d"
  ms=$MS
  curl -skf -H "Authorization: Bearer $TOKEN" "$URL/readyz" >/dev/null || ms=999999
  [ "$ms" -lt "$cold" ] && cold=$ms
  stop
done
start "$W/d"
sleep 1
idle_kb=$(awk '/VmRSS/ {print $2}' "/proc/$PID/status")

api() { "$B/bench/server/bench_api" "$URL" "$TOKEN" "$@"; }
noop1=$(api noop 1 "$SECS")
noop64=$(api noop 64 "$SECS")
create1=$(api create 1 "$SECS")
create64=$(api create 64 "$SECS")
curl -sk -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -X POST "$URL/api/v1/namespaces/default/pods" \
  -d '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"bench-get"},"spec":{"containers":[{"name":"c","image":"x:1"}]}}' >/dev/null
get64=$(api get 64 "$SECS")
# lists: a namespace with 100 pods
curl -sk -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -X POST "$URL/api/v1/namespaces" \
  -d '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"list100"}}' >/dev/null
for i in $(seq 1 100); do
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"l%d"},"spec":{"containers":[{"name":"c","image":"x:1"}]}}\n' "$i"
done | while read -r body; do
  curl -sk -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -X POST \
    "$URL/api/v1/namespaces/list100/pods" -d "$body" >/dev/null
done
list64=$(api list 16 "$SECS" list100)
curl -sk -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -X POST "$URL/api/v1/namespaces" \
  -d '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"watchbench"}}' >/dev/null
watch=$("$B/bench/server/bench_watch" "$URL" "$TOKEN" watchbench 500 200)
busy_kb=$(awk '/VmRSS/ {print $2}' "/proc/$PID/status")
stop

num() { echo "$1" | sed -E "s/.*\"$2\":([0-9.]+).*/\1/"; }
ratio=$(awk -v a="$(num "$create64" ops_per_s)" -v b="$(num "$noop64" ops_per_s)" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
cat >"$OUT/server.json" <<J
{
  "machine": "$(nproc) cores, $(uname -r)",
  "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "seconds_per_case": $SECS,
  "cold_start_ms": $cold,
  "first_start_ms_with_cert_generation": $first_ms,
  "idle_rss_kb": $idle_kb,
  "rss_after_load_kb": $busy_kb,
  "noop_1": $noop1,
  "noop_64": $noop64,
  "create_1": $create1,
  "create_64": $create64,
  "get_64": $get64,
  "list_100_pods_16": $list64,
  "watch_fanout": $watch,
  "create64_over_noop64": $ratio,
  "goals": {"create64_over_noop64": 0.30, "cold_start_ms": 50, "idle_rss_kb": 15360}
}
J
cat >"$OUT/server.md" <<M
# kgate serve benchmark ($(date -u +%Y-%m-%d), $(nproc) cores; client and server share the machine)

| measure | result | goal |
|---|---|---|
| durable pod creates, 64 clients | $(num "$create64" ops_per_s)/s (p50 $(num "$create64" p50_ms) ms, p99 $(num "$create64" p99_ms) ms) | ≥ 30% of the no-op ceiling |
| no-op ceiling (/healthz, same TLS+authn+authz stack), 64 clients | $(num "$noop64" ops_per_s)/s | |
| ratio creates / ceiling | $ratio | ≥ 0.30 |
| durable pod creates, 1 client | $(num "$create1" ops_per_s)/s (p50 $(num "$create1" p50_ms) ms, p99 $(num "$create1" p99_ms) ms) | |
| no-op, 1 client | $(num "$noop1" ops_per_s)/s | |
| get pod, 64 clients | $(num "$get64" ops_per_s)/s (p99 $(num "$get64" p99_ms) ms) | |
| list 100 pods, 16 clients | $(num "$list64" ops_per_s)/s | |
| watch fan-out, 500 watchers × 200 events | $(num "$watch" deliveries_per_s) deliveries/s ($(num "$watch" seconds) s) | |
| cold start to ready (existing data dir) | ${cold} ms | ≤ 50 ms |
| idle RSS | $((idle_kb / 1024)) MiB ($idle_kb kB) | ≤ 15 MB |
M
cat "$OUT/server.md"
