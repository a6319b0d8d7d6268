#!/usr/bin/env bash
# Admission webhook benchmarks (issue 13), one run, one build, against bench_hookd (a small C HTTPS webhook):
#  (a) dispatch overhead of one no-op validating webhook on an in-process pod create vs the raw keep-alive round trip
#      to the same webhook, same run (bench_webhook; goal <= 50 us)
#  (b) 4 validating webhooks each answering after 10 ms vs one (bench_webhook; goal <= 1.2x)
#  (c) durable pod creates/s through kgate serve at 64 clients: no webhook, one no-op validating webhook, no webhook
#      again (bench_api), with the webhook server's CPU per call (it must not be the bottleneck)
# Writes bench/results/webhook.json and bench/results/webhook.md. Usage: bench/webhook/run.sh BUILD_DIR [SECONDS]
set -uo pipefail
B=${1:?build dir}
SECS=${2:-5}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/bench/results
mkdir -p "$OUT"
W=$(mktemp -d)
HOOKD=""
PID=""
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; [ -n "$HOOKD" ] && kill "$HOOKD" 2>/dev/null; wait 2>/dev/null; rm -rf "$W"; }
trap cleanup EXIT

(
  cd "$W"
  EC='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes'
  openssl req -x509 $EC -keyout ca.key -out ca.crt -days 2 -subj /CN=bench-webhook-ca 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >srv.ext
  openssl req $EC -keyout srv.key -out srv.csr -subj /CN=127.0.0.1 2>/dev/null
  openssl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile srv.ext -out srv.crt 2>/dev/null
) || { echo "bench/webhook: openssl failed"; exit 1; }
"$B/bench/webhook/bench_hookd" "$W/srv.crt" "$W/srv.key" >"$W/port" &
HOOKD=$!
for _ in $(seq 1 100); do [ -s "$W/port" ] && break; sleep 0.05; done
HOOK="https://127.0.0.1:$(cat "$W/port")"

# (a) and (b), in-process
inproc=$("$B/bench/webhook/bench_webhook" "$HOOK" "$W/ca.crt" 9 0.5 2>/dev/null) || { echo "bench/webhook: bench_webhook failed"; exit 1; }

# (c) through kgate serve
"$B/kgate" serve --data-dir "$W/d" --secure-port 0 >"$W/serve.log" 2>&1 &
PID=$!
until grep -q "kgate serve is running" "$W/serve.log" 2>/dev/null; do sleep 0.01; done
URL=$(awk '/server:/ {print $2}' "$W/d/admin.kubeconfig")
TOKEN=$(awk '/token:/ {print $2}' "$W/d/admin.kubeconfig")
api() { "$B/bench/server/bench_api" "$URL" "$TOKEN" "$@"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$HOOKD/stat"; }
CA=$(base64 -w0 <"$W/ca.crt")
cfg() {
  printf '{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"bench"},"webhooks":[{"name":"noop.bench.example.com","clientConfig":{"url":"%s/allow","caBundle":"%s"},"rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods"]}],"sideEffects":"None","failurePolicy":"Fail","timeoutSeconds":10,"admissionReviewVersions":["v1"]}]}' "$HOOK" "$CA"
}
none1=$(api create 64 "$SECS")
curl -sk -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -X POST \
  "$URL/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations" -d "$(cfg)" >/dev/null
sleep 0.5
api create 64 1 >/dev/null # connections to the webhook
t0=$(cpu_ticks)
hook=$(api create 64 "$SECS")
t1=$(cpu_ticks)
curl -sk -H "Authorization: Bearer $TOKEN" -X DELETE \
  "$URL/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/bench" >/dev/null
sleep 0.5
none2=$(api create 64 "$SECS")
rss_kb=$(awk '/VmRSS/ {print $2}' "/proc/$PID/status")
kill "$PID"; wait "$PID" 2>/dev/null; PID=""

num() { echo "$1" | sed -E "s/.*\"$2\":\[?(-?[0-9.]+).*/\1/"; }
none=$(awk -v a="$(num "$none1" ops_per_s)" -v b="$(num "$none2" ops_per_s)" 'BEGIN { printf "%.0f", (a + b) / 2 }')
hook_ops=$(num "$hook" ops)
hookd_us=$(awk -v t=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" -v n="$hook_ops" 'BEGIN { printf "%.1f", (n > 0 ? t / hz / n * 1e6 : 0) }')
rel=$(awk -v a="$(num "$hook" ops_per_s)" -v b="$none" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
cat >"$OUT/webhook.json" <<J
{
  "machine": "$(nproc) cores, $(uname -r)",
  "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "in_process": $inproc,
  "serve_seconds_per_case": $SECS,
  "serve_create_64_no_webhook_before": $none1,
  "serve_create_64_one_noop_webhook": $hook,
  "serve_create_64_no_webhook_after": $none2,
  "serve_with_webhook_over_without": $rel,
  "webhook_server_cpu_us_per_call": $hookd_us,
  "serve_rss_kb_after": $rss_kb
}
J
cat >"$OUT/webhook.md" <<M
# Admission webhook benchmark ($(date -u +%Y-%m-%d), $(nproc) cores; kgate, the webhook server and the load share them)

| measure | result | goal |
|---|---|---|
| (a) dispatch overhead of one no-op validating webhook on a pod create, wall clock (interleaved calls; median over 9 rounds of with − without − raw per-call medians) | $(num "$inproc" dispatch_overhead_us) µs (with $(num "$inproc" with_hook_us) µs, without $(num "$inproc" base_us) µs, raw keep-alive round trip $(num "$inproc" raw_roundtrip_us) µs) | ≤ 50 µs |
| (a) the same in the calling thread's CPU time (median of 9 rounds) | $(num "$inproc" dispatch_overhead_cpu_us) µs (with $(num "$inproc" with_hook_cpu_us), without $(num "$inproc" base_cpu_us), raw $(num "$inproc" raw_roundtrip_cpu_us)) | |
| (b) 4 validating webhooks of 10 ms vs 1 (median of 9 rounds) | $(num "$inproc" parallel_ratio)× ($(num "$inproc" four_10ms_hooks_ms) ms vs $(num "$inproc" one_10ms_hook_ms) ms) | ≤ 1.2× |
| (c) kgate serve durable pod creates, 64 clients, one no-op webhook | $(num "$hook" ops_per_s)/s (p50 $(num "$hook" p50_ms) ms, p99 $(num "$hook" p99_ms) ms) | |
| (c) the same without webhook (mean of before and after) | ${none}/s ($(num "$none1" ops_per_s) before, $(num "$none2" ops_per_s) after) | |
| (c) with / without | $rel | |
| webhook server (bench_hookd) CPU per call | ${hookd_us} µs | |
M
cat "$OUT/webhook.md"
