#!/usr/bin/env bash
# Hostile-client benchmark (issue 20; not in CI): /readyz latency from a new client while N slowloris
# connections trickle header bytes, and server RSS with stalled watchers under write load.
# usage: bench/hostile/run.sh KGATE [N=10000] [SECONDS=30]   -> bench/results/hostile.md
set -u
KGATE=$1
N=${2:-10000}
SECS=${3:-30}
HERE=$(cd "$(dirname "$0")" && pwd)
E2E=$HERE/../../tests/e2e
OUT=$HERE/../results/hostile.md
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
echo "# ulimit -n $(ulimit -n)"
W=$(mktemp -d)
PID=""
trap '[ -n "$PID" ] && kill $PID 2>/dev/null; wait 2>/dev/null; rm -rf "$W"' EXIT
start() {
  "$KGATE" serve --data-dir "$W/data" --secure-port 0 "$@" >"$W/serve.log" 2>&1 &
  PID=$!
  for _ in $(seq 1 200); do grep -q "is running" "$W/serve.log" 2>/dev/null && break; sleep 0.05; done
  TOKEN=$(awk '/token:/ {print $2}' "$W/data/admin.kubeconfig")
  URL=$(awk '/server:/ {print $2}' "$W/data/admin.kubeconfig")
}
stop() { kill "$PID"; wait "$PID" 2>/dev/null; PID=""; rm -rf "$W/data"; }
{
  echo "## $(date -u +%Y-%m-%d) $(nproc) cores, client and server on one machine ($(git -C "$HERE" rev-parse --short HEAD))"
  echo
} >>"$OUT"
for mode in plain tls; do
  if [ $mode = plain ]; then start --insecure-serving; else start; fi
  line=$(python3 "$E2E/slowloris.py" "$URL" "$TOKEN" "$N" "$SECS" | tail -1)
  echo "- $line; server VmRSS $(awk '/VmRSS/ {print $2 / 1024 " MB"}' /proc/$PID/status)" | tee -a "$OUT"
  stop
done
start
python3 "$E2E/stalled_watch.py" "$URL" "$TOKEN" "$PID" | grep '^#' | sed 's/^# /- /' | tee -a "$OUT"
stop
echo >>"$OUT"
