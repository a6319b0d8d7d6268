#!/usr/bin/env bash
# Watch semantics over HTTP: replay from an old resourceVersion in commit order, bookmarks, timeoutSeconds,
# selectors turning MODIFIED into ADDED/DELETED, and 410 Expired beyond the compaction window.
KGATE=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
trap 'stop_kgate; rm -rf "$W"' EXIT
start_kgate "$W/data" --storage-history-revisions=20 --storage-compaction-interval=200ms || exit 1
TOKEN=$(awk '/token:/ {print $2}' "$W/data/admin.kubeconfig")
URL=$(awk '/server:/ {print $2}' "$W/data/admin.kubeconfig")
H=(-sk -H "Authorization: Bearer $TOKEN")
mk() { curl "${H[@]}" -H 'Content-Type: application/json' -X POST "$URL/api/v1/namespaces/default/configmaps" \
         -d "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"$1\",\"labels\":{\"tier\":\"$2\"}}}" \
         | sed -E 's/.*"resourceVersion":"([0-9]+)".*/\1/'; }
rv1=$(mk c1 a)
mk c2 b >/dev/null
curl "${H[@]}" -H 'Content-Type: application/merge-patch+json' -X PATCH "$URL/api/v1/namespaces/default/configmaps/c1" \
  -d '{"metadata":{"labels":{"tier":"b"}}}' >/dev/null
curl "${H[@]}" -X DELETE "$URL/api/v1/namespaces/default/configmaps/c2" >/dev/null
curl "${H[@]}" "$URL/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=$rv1&timeoutSeconds=1" >"$W/replay"
expect_eq "replay from an old resourceVersion, in commit order" "ADDED c2
MODIFIED c1
DELETED c2" bash -c "grep -E '\"name\":\"c[0-9]\"' '$W/replay' | sed -E 's/^\\{\"type\":\"([A-Z]+)\".*\"name\":\"(c[0-9])\".*/\\1 \\2/'"
curl "${H[@]}" "$URL/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=$rv1&labelSelector=tier%3Db&timeoutSeconds=1" >"$W/sel"
expect_eq "label selector: ADDED when an object starts matching" "ADDED c2
ADDED c1
DELETED c2" bash -c "grep -E '\"name\":\"c[0-9]\"' '$W/sel' | sed -E 's/^\\{\"type\":\"([A-Z]+)\".*\"name\":\"(c[0-9])\".*/\\1 \\2/'"
start=$(date +%s%N)
curl "${H[@]}" "$URL/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1&allowWatchBookmarks=true" >/dev/null
el=$((($(date +%s%N) - start) / 1000000))
if [ "$el" -ge 900 ] && [ "$el" -lt 3000 ]; then pass "timeoutSeconds ends the stream ($el ms)"; else failx "timeoutSeconds ends the stream" "$el ms"; fi
for i in $(seq 3 40); do mk "c$i" x >/dev/null; done
sleep 1
expect_out "watch from a compacted resourceVersion: ERROR 410 Expired" '{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: '"$rv1"' (' \
  curl "${H[@]}" "$URL/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=$rv1&timeoutSeconds=1"
expect_out "list at a compacted resourceVersion: 410" '"code":410' \
  curl "${H[@]}" "$URL/api/v1/namespaces/default/configmaps?resourceVersion=$rv1&resourceVersionMatch=Exact"
expect_out "list with limit returns a continue token" '"continue":"' curl "${H[@]}" "$URL/api/v1/namespaces/default/configmaps?limit=5"
tok=$(curl "${H[@]}" "$URL/api/v1/namespaces/default/configmaps?limit=5" | sed -E 's/.*"continue":"([^"]+)".*/\1/')
expect_out "continue returns the next page" '"name":"c14"' curl "${H[@]}" "$URL/api/v1/namespaces/default/configmaps?limit=5&continue=$tok"
finish
