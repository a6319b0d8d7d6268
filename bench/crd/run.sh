#!/usr/bin/env bash
# CRD benchmarks on one kgate serve: CRD create → Established and → served latency over 20 CRDs (goal ≤ 100 ms),
# and durable create rates of ConfigMaps vs custom resources with a schema and a CEL rule at 1 and 16 clients (goal:
# CR ≥ 0.8 × ConfigMap). Writes bench/results/crd.json and bench/results/crd.md.
# Usage: bench/crd/run.sh BUILD_DIR [SECONDS]
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
run() { # threads → one JSON line, on a fresh server
  rm -rf "$W/d"
  "$B/kgate" serve --data-dir "$W/d" --secure-port 0 >"$W/log" 2>&1 &
  PID=$!
  until grep -q "kgate serve is running" "$W/log" 2>/dev/null; do sleep 0.01; done
  URL=$(awk '/server:/ {print $2}' "$W/d/admin.kubeconfig")
  TOKEN=$(awk '/token:/ {print $2}' "$W/d/admin.kubeconfig")
  "$B/bench/crd/bench_crd" "$URL" "$TOKEN" "$1" "$SECS" 20
  kill "$PID"; wait "$PID" 2>/dev/null; PID=""
}
r1=$(run 1)
r16=$(run 16)
printf '{"t1":%s,"t16":%s}\n' "$r1" "$r16" | tee "$OUT/crd.json"
python3 - "$OUT/crd.json" "$OUT/crd.md" "$(grep -m1 CMAKE_BUILD_TYPE:STRING "$B/CMakeCache.txt" | cut -d= -f2)" "$(uptime | sed "s/.*load average: //")" <<'PY'
import json, sys, platform, os
d = json.load(open(sys.argv[1]))
with open(sys.argv[2], "w") as f:
    f.write("# CRD benchmarks (bench/crd)\n\n")
    f.write(f"Machine: {os.cpu_count()} CPUs, {platform.machine()}, load average before the run {sys.argv[4]}; one "
            f"`kgate serve` per run (SQLite, fsync), {sys.argv[3]} build, TLS keep-alive clients (libcurl).\n\n")
    f.write("| | 1 client | 16 clients |\n|---|---|---|\n")
    for k, label in [("established_p50_ms", "CRD create → Established, p50 (ms)"),
                     ("established_max_ms", "CRD create → Established, max (ms)"),
                     ("served_p50_ms", "CRD create → resource served, p50 (ms)"),
                     ("served_max_ms", "CRD create → resource served, max (ms)"),
                     ("configmap_creates_per_s", "ConfigMap creates/s"),
                     ("cr_creates_per_s", "custom resource creates/s (schema + CEL rule)"),
                     ("cr_vs_configmap", "CR / ConfigMap")]:
        f.write(f"| {label} | {d['t1'][k]} | {d['t16'][k]} |\n")
    f.write("\nGoals (issue 19): Established ≤ 100 ms; CR creates/s ≥ 0.8 × ConfigMap creates/s.\n")
PY
