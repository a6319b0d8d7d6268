#!/usr/bin/env bash
# Faults with a 3-member etcd cluster and two kgate replicas (issue 18), all on loopback ports:
#   - the `kubernetes` Service endpoints list both replicas (lease reconciler), a killed one drops out when its
#     Lease expires and a restarted one is listed again;
#   - read-your-writes across replicas for lists without a resourceVersion (consistent reads);
#   - pod creates through both replicas while one etcd member is killed with -9: writes continue, every
#     acknowledged (201) create is present afterwards and was delivered by a watch opened before the load;
#   - kill -9 of a replica under load: the other keeps serving; restarted, a watch on it from a resourceVersion taken
#     before its death delivers what it missed;
#   - etcd compaction past a watch's resourceVersion: 410 Gone, then a relist and a watch from it work.
# Exit 77 (skipped) when etcd is not installed.
KGATE=$1
LOADGEN=$2
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
. "$(dirname "$0")/etcdlib.sh"
if [ ! -x "$ETCD" ]; then
  echo "SKIP: $ETCD is not installed (scripts/install-deps installs etcd-server)"
  exit 77
fi
LA="" LB="" WATCH=""
cleanup() {
  for p in $LA $LB $WATCH; do kill "$p" 2>/dev/null; done
  etcd_cleanup
  [ -n "${KEEP:-}" ] && echo "kept $W" || rm -rf "$W"
}
trap cleanup EXIT
T0=$(date +%s)

etcd_cluster_start 3 || exit 1
FLAGS=(--storage-backend=etcd3 "--etcd-servers=$ETCD_URLS" --endpoint-lease-duration=2s)
start_kgate "$W/r1" "${FLAGS[@]}" || exit 1
replica_start r2 "${FLAGS[@]}" || exit 1
TOKEN=$(cat "$W/r1/admin.token")
URL1=$(awk '/server:/ {print $2}' "$W/r1/admin.kubeconfig")
URL2=$(awk '/server:/ {print $2}' "$W/r2/admin.kubeconfig")
P1=${URL1##*:}
P2=${URL2##*:}
api() { curl -sk -m 10 -H "Authorization: Bearer $TOKEN" "$@"; }
post() { api -X POST -H 'Content-Type: application/json' "$@"; }
# the Endpoints default/kubernetes as "ip:port ..." sorted
endpoints() {
  api "$URL1/api/v1/namespaces/default/endpoints/kubernetes" | "$PY" -c '
import json, sys
e = json.load(sys.stdin)
print(" ".join(sorted(a["ip"] + ":" + str(p["port"]) for s in e.get("subsets") or [] for a in s["addresses"] for p in s["ports"])))'
}
await_eq() { # WANT CMD...: poll up to 8 s
  local want=$1
  shift
  for _ in $(seq 1 80); do [ "$("$@" 2>/dev/null)" = "$want" ] && return 0; sleep 0.1; done
  return 1
}
BOTH=$(printf '127.0.0.1:%s\n127.0.0.1:%s\n' "$P1" "$P2" | sort | tr '\n' ' ' | sed 's/ $//')

# --- the kubernetes Service endpoints: both replicas
await_eq "$BOTH" endpoints
expect_eq "the kubernetes Endpoints list both replicas' addresses and ports" "$BOTH" endpoints
expect_out "the kubernetes Service exists (port 443 -> https)" '"name":"https"' \
  api "$URL2/api/v1/namespaces/default/services/kubernetes"
expect_eq "each replica holds an apiserver-<id> Lease in kube-system" "2" \
  bash -c "curl -sk -H 'Authorization: Bearer $TOKEN' '$URL1/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?labelSelector=apiserver.kubernetes.io%2Fidentity%3Dkube-apiserver' | grep -o '\"holderIdentity\":\"apiserver-' | wc -l"

# --- read-your-writes across replicas: a list without resourceVersion right after a create on the other replica
post "$URL1/api/v1/namespaces" -d '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ryw"}}' >/dev/null
missed=0
for i in $(seq 1 10); do
  post "$URL1/api/v1/namespaces/ryw/configmaps" -d "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a$i\"}}" >/dev/null
  api "$URL2/api/v1/namespaces/ryw/configmaps" | grep -q "\"name\":\"a$i\"" || missed=$((missed + 1))
  post "$URL2/api/v1/namespaces/ryw/configmaps" -d "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"b$i\"}}" >/dev/null
  api "$URL1/api/v1/namespaces/ryw/configmaps?resourceVersion=" | grep -q "\"name\":\"b$i\"" || missed=$((missed + 1))
done
expect_eq "20 creates each listed at once (resourceVersion=\"\") through the other replica" "0" echo "$missed"

# --- load through both replicas; a watch on replica 1 opened before it
RV0=$(api "$URL1/api/v1/namespaces/default/pods" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["metadata"]["resourceVersion"])')
curl -skN -H "Authorization: Bearer $TOKEN" "$URL1/api/v1/namespaces/default/pods?watch=1&resourceVersion=$RV0&timeoutSeconds=60" >"$W/watch.out" 2>/dev/null &
WATCH=$!
"$LOADGEN" "$URL1" "$TOKEN" default 8 100000 a >"$W/acked.a" 2>"$W/lg.a" &
LA=$!
"$LOADGEN" "$URL2" "$TOKEN" default 8 100000 b >"$W/acked.b" 2>"$W/lg.b" &
LB=$!
acked() { cat "$W/acked.a" "$W/acked.b" | wc -l; }
await_count() { # N: poll up to 20 s until at least N creates were acknowledged
  for _ in $(seq 1 200); do [ "$(acked)" -ge "$1" ] && return 0; sleep 0.1; done
  return 1
}
await_count 100
BEFORE=$(acked)
etcd_member_kill 0 # the first of --etcd-servers: both replicas talk to it
await_count $((BEFORE + 100))
AFTER=$(acked)
if [ "$AFTER" -ge $((BEFORE + 100)) ]; then
  pass "etcd member killed with -9 under load: writes continue ($BEFORE acknowledged before, $AFTER after)"
else
  failx "etcd member killed with -9 under load: writes continue" "$BEFORE before, $AFTER after; $(cat "$W/lg.a" "$W/lg.b")"
fi

# --- kill -9 of replica 2 under load: replica 1 keeps serving
RV_DEAD=$(api "$URL1/api/v1/namespaces/default/pods?limit=1" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["metadata"]["resourceVersion"])')
replica_kill r2 9
wait "$LB" 2>/dev/null
LB=""
BEFORE=$(acked)
await_count $((BEFORE + 100))
AFTER=$(acked)
if [ "$AFTER" -ge $((BEFORE + 100)) ]; then
  pass "replica 2 killed with -9 under load: replica 1 keeps serving ($BEFORE -> $AFTER acknowledged)"
else
  failx "replica 2 killed with -9 under load: replica 1 keeps serving" "$BEFORE -> $AFTER; $(cat "$W/lg.a")"
fi
post "$URL1/api/v1/namespaces/default/configmaps" -d '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"while-r2-dead"}}' >/dev/null
kill "$LA" 2>/dev/null
wait "$LA" 2>/dev/null
LA=""
for _ in $(seq 1 80); do [ "$(endpoints 2>/dev/null)" = "127.0.0.1:$P1" ] && break; sleep 0.1; done
expect_eq "a killed replica drops out of the kubernetes Endpoints when its Lease expires" "127.0.0.1:$P1" endpoints

# --- every acknowledged create is there, and the watch opened before the load delivered each one
sort -u "$W/acked.a" "$W/acked.b" >"$W/acked"
api "$URL1/api/v1/namespaces/default/pods" | "$PY" -c '
import json, sys
for i in json.load(sys.stdin)["items"]: print(i["metadata"]["name"])' | sort -u >"$W/present"
missing=$(comm -23 "$W/acked" "$W/present" | wc -l)
expect_eq "every acknowledged create ($(wc -l <"$W/acked")) is present after the member and replica kills" "0" echo "$missing"
last=$(tail -1 "$W/acked")
for _ in $(seq 1 50); do grep -q "\"name\":\"$last\"" "$W/watch.out" && break; sleep 0.1; done
"$PY" -c '
import json, sys
seen = set()
for line in open(sys.argv[1]):
    try: ev = json.loads(line)
    except ValueError: continue
    if ev.get("type") == "ADDED": seen.add(ev["object"]["metadata"]["name"])
print(sum(1 for n in open(sys.argv[2]).read().split() if n not in seen))' "$W/watch.out" "$W/acked" >"$W/unseen"
expect_eq "a watch on replica 1 opened before the load delivered every acknowledged create (through both replicas)" \
  "0" cat "$W/unseen"
kill "$WATCH" 2>/dev/null
WATCH=""

# --- replica 2 restarted: serves, catches up, is listed again
replica_start r2 "${FLAGS[@]}" || exit 1
URL2=$(awk '/server:/ {print $2}' "$W/r2/admin.kubeconfig")
P2=${URL2##*:}
expect_out "restarted replica 2: a watch from a resourceVersion taken before its death delivers what it missed" \
  '"name":"while-r2-dead"' api "$URL2/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=$RV_DEAD&timeoutSeconds=1"
BOTH=$(printf '127.0.0.1:%s\n127.0.0.1:%s\n' "$P1" "$P2" | sort | tr '\n' ' ' | sed 's/ $//')
await_eq "$BOTH" endpoints
expect_eq "restarted replica 2 is listed in the kubernetes Endpoints again" "$BOTH" endpoints

# --- compaction: a watch from a revision etcd compacted and the replica's own window does not hold (replica 2
# restarted after RV_DEAD) gets 410 Expired; a relist and a watch from it work
post "$URL2/api/v1/namespaces/ryw/configmaps" -d '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c-after"}}' >/dev/null
REV=$(curl -s -X POST "http://127.0.0.1:${ETCD_CP[1]}/v3/kv/range" -d '{"key":"AA=="}' | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["header"]["revision"])')
curl -s -X POST "http://127.0.0.1:${ETCD_CP[1]}/v3/kv/compaction" -d "{\"revision\":\"$REV\",\"physical\":true}" >/dev/null
expect_out "a watch from a compacted resourceVersion: 410 Expired" '"code":410' \
  api "$URL2/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=$RV_DEAD&timeoutSeconds=1"
NEW=$(api "$URL2/api/v1/namespaces/ryw/configmaps" | "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(d["metadata"]["resourceVersion"], len(d["items"]))')
expect_eq "the relist after 410 works (20 + c-after + kube-root-ca.crt)" "22" echo "${NEW#* }"
post "$URL1/api/v1/namespaces/ryw/configmaps" -d '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c-relisted"}}' >/dev/null
expect_out "a watch from the relist's resourceVersion sees the next write" '"name":"c-relisted"' \
  api "$URL2/api/v1/namespaces/ryw/configmaps?watch=1&resourceVersion=${NEW% *}&timeoutSeconds=1"
echo "runtime: $(($(date +%s) - T0)) s"
finish
