#!/usr/bin/env bash
# Slowloris (issue 20): 300 TLS connections trickling header bytes; /readyz stays fast, the per-IP limit sheds
# the oldest of them, and the 10 s header deadline closes them all however slowly they send.
KGATE=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
trap 'stop_kgate; rm -rf "$W"' EXIT
start_kgate "$W/data" || exit 1
TOKEN=$(awk '/token:/ {print $2}' "$W/data/admin.kubeconfig")
URL=$(awk '/server:/ {print $2}' "$W/data/admin.kubeconfig")
if python3 "$(dirname "$0")/slowloris.py" "$URL" "$TOKEN" 300; then pass "slowloris"; else failx "slowloris"; fi
kill -0 "$KGATE_PID" 2>/dev/null && pass "server still running" || failx "server still running"
finish
