#!/usr/bin/env bash
# Watch back-pressure (issue 20): stalled watchers under write load keep the server's RSS bounded, are closed
# when they stay stalled, and a reading watcher still gets every event.
KGATE=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
trap 'stop_kgate; rm -rf "$W"' EXIT
start_kgate "$W/data" || exit 1
TOKEN=$(awk '/token:/ {print $2}' "$W/data/admin.kubeconfig")
URL=$(awk '/server:/ {print $2}' "$W/data/admin.kubeconfig")
# under ASan/TSan the sanitizer's allocator (quarantine, shadow memory) dominates RSS: the bound is not checked
if ldd "$KGATE" 2>/dev/null | grep -qE 'lib(asan|tsan)'; then export RSS_BOUND_MB=0; fi
if python3 "$(dirname "$0")/stalled_watch.py" "$URL" "$TOKEN" "$KGATE_PID"; then pass "stalled watchers"; else
  failx "stalled watchers"; fi
finish
