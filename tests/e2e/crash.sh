#!/usr/bin/env bash
# kill -9 during a 64-client create load: every pod whose create returned 201 must be there after a restart.
KGATE=$1
LOADGEN=$2
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
trap 'stop_kgate; rm -rf "$W"' EXIT
start_kgate "$W/data" || exit 1
TOKEN=$(awk '/token:/ {print $2}' "$W/data/admin.kubeconfig")
URL=$(awk '/server:/ {print $2}' "$W/data/admin.kubeconfig")
"$LOADGEN" "$URL" "$TOKEN" default 64 100000 crash >"$W/acked.txt" 2>"$W/loadgen.err" &
LG=$!
# let the load run until a good number of creates were acknowledged, then crash the server
for _ in $(seq 1 200); do
  [ "$(wc -l <"$W/acked.txt")" -ge 300 ] && break
  sleep 0.05
done
kill -9 "$KGATE_PID"
wait "$KGATE_PID" 2>/dev/null
KGATE_PID=""
wait "$LG"
acked=$(sort -u "$W/acked.txt" | wc -l)
echo "acknowledged creates before the crash: $acked ($(cat "$W/loadgen.err"))"
if [ "$acked" -ge 100 ]; then pass "load ran before the crash ($acked acknowledged)"; else failx "load ran before the crash" "only $acked"; fi
start_kgate "$W/data" || exit 1
kubectl get pods -o name --request-timeout=60s | sed 's|^pod/||' | sort -u >"$W/present.txt"
missing=$(comm -23 <(sort -u "$W/acked.txt") "$W/present.txt" | wc -l)
if [ "$missing" -eq 0 ]; then pass "no acknowledged create lost by kill -9"; else failx "no acknowledged create lost by kill -9" "$missing missing, e.g. $(comm -23 <(sort -u "$W/acked.txt") "$W/present.txt" | head -3 | tr '\n' ' ')"; fi
finish
