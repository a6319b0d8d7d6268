#!/usr/bin/env bash
# ResourceQuota holds exactly under concurrent creates (issue 18): 50 pods created at once against `pods: 20`,
# first through one kgate on SQLite, then through two replicas on one etcd (25 clients each). Exactly 20 creates
# must be acknowledged (201), exactly those 20 pods exist afterwards and status.used.pods is 20. The quota controller
# runs meanwhile (every create marks the namespace dirty), so this also shows that its recounts do not hand back
# charges whose objects are still being written. The etcd half is skipped when etcd is not installed.
KGATE=$1
LOADGEN=$2
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
. "$(dirname "$0")/etcdlib.sh"
trap 'etcd_cleanup; [ -n "${KEEP:-}" ] && echo "kept $W" || rm -rf "$W"' EXIT

TOKEN=""
api() { curl -sk -H "Authorization: Bearer $TOKEN" "$@"; }
# poll until CMD's output contains WANT (up to 10 s)
await_out() {
  local want=$1
  shift
  for _ in $(seq 1 100); do "$@" 2>/dev/null | grep -qF -- "$want" && return 0; sleep 0.1; done
  return 1
}
names() { "$PY" -c 'import json,sys; print(" ".join(sorted(i["metadata"]["name"] for i in json.load(sys.stdin)["items"])))'; }

# round LABEL NS URL_A URL_B: namespace + quota through URL_A, 25 concurrent creates through each URL
round() {
  local label=$1 ns=$2 a=$3 b=$4
  api -X POST -H 'Content-Type: application/json' "$a/api/v1/namespaces" \
    -d "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$ns\"}}" >/dev/null
  await_out '"name":"default"' api "$a/api/v1/namespaces/$ns/serviceaccounts/default" ||
    failx "$label: the default ServiceAccount appears"
  api -X POST -H 'Content-Type: application/json' "$a/api/v1/namespaces/$ns/resourcequotas" \
    -d '{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q"},"spec":{"hard":{"pods":"20"}}}' >/dev/null
  await_out '"used":{"pods":"0"}' api "$b/api/v1/namespaces/$ns/resourcequotas/q" ||
    failx "$label: the quota controller fills status.used"
  "$LOADGEN" "$a" "$TOKEN" "$ns" 25 1 "$label-a" >"$W/$ns.a" 2>/dev/null &
  local la=$!
  "$LOADGEN" "$b" "$TOKEN" "$ns" 25 1 "$label-b" >"$W/$ns.b" 2>/dev/null &
  local lb=$!
  wait "$la" "$lb"
  local acked
  acked=$(cat "$W/$ns.a" "$W/$ns.b" | wc -l)
  if [ "$acked" -eq 20 ]; then
    pass "$label: 50 concurrent creates against pods=20: exactly 20 acknowledged"
  else
    failx "$label: 50 concurrent creates against pods=20: exactly 20 acknowledged" "$acked acknowledged"
  fi
  local want got
  want=$(cat "$W/$ns.a" "$W/$ns.b" | sort | tr '\n' ' ')
  got=$(api "$b/api/v1/namespaces/$ns/pods" | names)
  if [ "$want" = "$got " ]; then pass "$label: exactly the acknowledged pods exist"
  else failx "$label: exactly the acknowledged pods exist" "want: [$want] | got: [$got]"; fi
  await_out '"used":{"pods":"20"}' api "$a/api/v1/namespaces/$ns/resourcequotas/q"
  expect_out "$label: status.used.pods is 20" '"used":{"pods":"20"}' api "$a/api/v1/namespaces/$ns/resourcequotas/q"
}

# --- one kgate on SQLite
start_kgate "$W/sq" || exit 1
TOKEN=$(cat "$W/sq/admin.token")
URL=$(awk '/server:/ {print $2}' "$W/sq/admin.kubeconfig")
round sqlite qs "$URL" "$URL"
stop_kgate

# --- two replicas on etcd
if [ ! -x "$ETCD" ]; then
  echo "SKIP (etcd half): $ETCD is not installed"
  finish
  exit $?
fi
etcd_cluster_start 1 || exit 1
FLAGS=(--storage-backend=etcd3 "--etcd-servers=$ETCD_URLS")
start_kgate "$W/r1" "${FLAGS[@]}" || exit 1
replica_start r2 "${FLAGS[@]}" || exit 1
TOKEN=$(cat "$W/r1/admin.token")
URL1=$(awk '/server:/ {print $2}' "$W/r1/admin.kubeconfig")
URL2=$(awk '/server:/ {print $2}' "$W/r2/admin.kubeconfig")
round etcd qe "$URL1" "$URL2"
finish
