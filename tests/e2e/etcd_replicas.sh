#!/usr/bin/env bash
# Two `kgate serve --storage-backend=etcd3` replicas on one etcd (single member, loopback, random ports), driven by
# the real kubectl: read-your-writes across replicas, a watch on one replica sees writes through the other (and
# resumes after etcd comes back), 409 Conflict / AlreadyExists across replicas, resourceVersions valid on both,
# and etcd down -> fast 5xx and failing /readyz. The second replica shares the first one's CA and admin token
# (copied into its data dir, as docs/ha.md describes). Exit 77 (skipped) only when etcd is not installed.
KGATE=$1
. "$(dirname "$0")/lib.sh"
ETCD=${ETCD:-/usr/bin/etcd}
if [ ! -x "$ETCD" ]; then
  echo "SKIP: $ETCD is not installed (scripts/install-deps installs etcd-server)"
  exit 77
fi
command -v kubectl >/dev/null || { echo "SKIP: kubectl not installed"; exit 77; }
W=$(mktemp -d)
ETCD_PID=""
K2_PID=""
WATCH_PID=""
cleanup() {
  [ -n "$WATCH_PID" ] && kill "$WATCH_PID" 2>/dev/null
  [ -n "$K2_PID" ] && kill "$K2_PID" 2>/dev/null && wait "$K2_PID" 2>/dev/null
  stop_kgate
  [ -n "$ETCD_PID" ] && kill "$ETCD_PID" 2>/dev/null && wait "$ETCD_PID" 2>/dev/null
  rm -rf "$W"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
CP=$(free_port)
PP=$(free_port)
start_etcd() {
  "$ETCD" --name e2e --data-dir "$W/etcd" --listen-client-urls "http://127.0.0.1:$CP" \
    --advertise-client-urls "http://127.0.0.1:$CP" --listen-peer-urls "http://127.0.0.1:$PP" \
    --initial-advertise-peer-urls "http://127.0.0.1:$PP" --initial-cluster "e2e=http://127.0.0.1:$PP" \
    --unsafe-no-fsync --log-level warn --logger zap >>"$W/etcd.log" 2>&1 &
  ETCD_PID=$!
  for _ in $(seq 1 100); do
    curl -s -X POST "http://127.0.0.1:$CP/v3/kv/range" -d '{"key":"AA=="}' 2>/dev/null | grep -q header && return 0
    sleep 0.1
  done
  echo "etcd did not start"; cat "$W/etcd.log"; return 1
}
start_etcd || exit 1
# short Lease durations so the controller hand-over below is quick (defaults: 15s/10s/2s)
ETCDFLAGS=(--storage-backend=etcd3 "--etcd-servers=http://127.0.0.1:$CP" --leader-elect-lease-duration=4s
  --leader-elect-renew-deadline=3s --leader-elect-retry-period=300ms --event-ttl=3s)

start_kgate "$W/r1" "${ETCDFLAGS[@]}" || exit 1
K1="$W/r1/admin.kubeconfig"
# the second replica: its own data dir (its own serving certificate and admin.kubeconfig), the first one's CA and
# admin token
mkdir -p "$W/r2"
cp "$W/r1/ca.crt" "$W/r1/ca.key" "$W/r1/admin.token" "$W/r2/"
"$KGATE" serve --data-dir "$W/r2" --secure-port 0 "${ETCDFLAGS[@]}" >"$W/r2/serve.log" 2>&1 &
K2_PID=$!
for _ in $(seq 1 200); do
  grep -q "kgate serve is running" "$W/r2/serve.log" 2>/dev/null && break
  sleep 0.05
done
K2="$W/r2/admin.kubeconfig"
k1() { kubectl --kubeconfig "$K1" "$@"; }
k2() { kubectl --kubeconfig "$K2" "$@"; }
TOKEN=$(cat "$W/r1/admin.token")
URL1=$(awk '/server:/ {print $2}' "$K1")
URL2=$(awk '/server:/ {print $2}' "$K2")
H=(-sk -H "Authorization: Bearer $TOKEN")
# poll (with curl: cheaper than a kubectl per try) until GET URL answers 200, up to 5 s
await() { for _ in $(seq 1 50); do [ "$(curl "${H[@]}" -o /dev/null -w '%{http_code}' "$1")" = 200 ] && return 0; sleep 0.1; done; return 1; }

expect_eq "both replicas trust one CA: replica 2's kubeconfig carries replica 1's CA" \
  "$(grep certificate-authority-data "$K1")" grep certificate-authority-data "$K2"

# --event-ttl: an Event written now is deleted by etcd 3 s later (checked at the end)
EV='{"apiVersion":"v1","kind":"Event","metadata":{"name":"ev1","namespace":"default"},"involvedObject":{"kind":"Pod","name":"p","namespace":"default"},"reason":"Test","message":"m","type":"Normal"}'
expect_out "an Event is created" '"name":"ev1"' curl "${H[@]}" -H 'Content-Type: application/json' -X POST \
  "$URL1/api/v1/namespaces/default/events" -d "$EV"
EV_T0=$(date +%s)

# the controllers run on one replica: the first one took the Lease
for _ in $(seq 1 50); do grep -q "became leader" "$W/r1/serve.log" && break; sleep 0.1; done
expect_out "replica 1 leads the controllers" "became leader" cat "$W/r1/serve.log"
expect_not "replica 2 does not" "became leader" cat "$W/r2/serve.log"
expect_out "the Lease names replica 1's identity" "$(sed -nE 's/.*leader election kube-system\/kgate-controller-manager: ([^ ]+) became leader.*/\1/p' "$W/r1/serve.log")" \
  k2 get lease -n kube-system kgate-controller-manager -o 'jsonpath={.spec.holderIdentity}'

# read-your-writes across replicas
k1 create namespace ha >/dev/null
expect_out "a namespace created through replica 1 is read through replica 2" "ha " k2 get ns ha --no-headers
k2 create configmap c1 -n ha --from-literal=k=v1 >/dev/null
expect_eq "a configmap created through replica 2 is read through replica 1" "v1" k1 get cm c1 -n ha -o 'jsonpath={.data.k}'

# a watch on replica 2 sees writes through replica 1
k2 get configmaps -n ha --watch-only --output-watch-events -o 'custom-columns=TYPE:.type,NAME:.object.metadata.name' \
  >"$W/watch.out" 2>&1 &
WATCH_PID=$!
sleep 1
k1 create configmap c2 -n ha --from-literal=k=x >/dev/null
k1 delete configmap c2 -n ha >/dev/null
for _ in $(seq 1 50); do grep -q "DELETED.*c2" "$W/watch.out" && break; sleep 0.1; done
expect_eq "a watch on replica 2 sees a create and a delete through replica 1" "ADDED c2
DELETED c2" awk '/c2/ {print $1, $2}' "$W/watch.out"

# conflicts across replicas
k1 get cm c1 -n ha -o json >"$W/c1.json"
k2 label cm c1 -n ha touched=yes >/dev/null
sed -i 's/"k": "v1"/"k": "stale"/' "$W/c1.json"
expect_out "an update through replica 1 carrying a resourceVersion replica 2 has replaced: 409 Conflict" \
  'Operation cannot be fulfilled on configmaps "c1": the object has been modified; please apply your changes to the latest version and try again' \
  k1 replace --validate=false -f "$W/c1.json"
expect_out "a create through replica 1 of a name created through replica 2: AlreadyExists" \
  'configmaps "c1" already exists' k1 create configmap c1 -n ha
expect_eq "the losing update left nothing behind" "v1 yes" k2 get cm c1 -n ha -o 'jsonpath={.data.k} {.metadata.labels.touched}'

# resourceVersions are etcd revisions: one from replica 1 is valid on replica 2
RV=$(k1 get cm -n ha -o 'jsonpath={.metadata.resourceVersion}')
k1 create configmap c3 -n ha >/dev/null
expect_out "a watch on replica 2 from replica 1's list resourceVersion replays the later create" '"name":"c3"' \
  curl "${H[@]}" "$URL2/api/v1/namespaces/ha/configmaps?watch=1&resourceVersion=$RV&timeoutSeconds=1"

# etcd down: fast 5xx, /readyz failing; etcd back: both replicas serve again, watches resumed
expect_eq "readyz on replica 2 with etcd up" "ok" curl "${H[@]}" "$URL2/readyz"
kill "$ETCD_PID"
wait "$ETCD_PID" 2>/dev/null
ETCD_PID=""
start=$(date +%s%N)
out=$(curl "${H[@]}" -H 'Content-Type: application/json' -X POST "$URL1/api/v1/namespaces/ha/configmaps" \
  -d '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"down"}}')
el=$((($(date +%s%N) - start) / 1000000))
if printf '%s' "$out" | grep -q '"code":500' && [ "$el" -lt 3000 ]; then
  pass "etcd unreachable: a write fails fast with a 500 Status ($el ms)"
else
  failx "etcd unreachable: a write fails fast with a 500 Status" "$el ms: $out"
fi
expect_out "etcd unreachable: /readyz fails on the storage check" "[-]etcd failed: reason withheld" \
  curl "${H[@]}" "$URL1/readyz?verbose"
expect_eq "etcd unreachable: /readyz answers 500" "500" curl "${H[@]}" -o /dev/null -w '%{http_code}' "$URL2/readyz"
start_etcd || exit 1
for _ in $(seq 1 50); do [ "$(curl "${H[@]}" "$URL1/readyz")" = ok ] && break; sleep 0.1; done
expect_eq "etcd back: /readyz ok again" "ok" curl "${H[@]}" "$URL1/readyz"
k2 create configmap after -n ha >/dev/null
for _ in $(seq 1 50); do grep -q "after" "$W/watch.out" && break; sleep 0.1; done
expect_out "etcd back: replica 2's watch (opened before the outage) sees a write through replica 2" "ADDED after" \
  awk '{print $1, $2}' "$W/watch.out"
expect_out "etcd back: replica 1 reads it" "after" k1 get cm after -n ha --no-headers

expect_eq "--event-ttl=3s: the Event is gone (deleted through its etcd lease $(($(date +%s) - EV_T0)) s after its creation)" \
  "404" curl "${H[@]}" -o /dev/null -w '%{http_code}' "$URL2/api/v1/namespaces/default/events/ev1"

# replica 1 stops (releasing the Lease): replica 2 takes the controllers over
stop_kgate
for _ in $(seq 1 100); do grep -q "became leader" "$W/r2/serve.log" && break; sleep 0.1; done
expect_out "replica 1 stopped: replica 2 leads the controllers" "became leader" cat "$W/r2/serve.log"
k2 create namespace after-handover >/dev/null
await "$URL2/api/v1/namespaces/after-handover/configmaps/kube-root-ca.crt"
expect_out "replica 2's controllers act: kube-root-ca.crt published in a new namespace" "kube-root-ca.crt" \
  k2 get cm -n after-handover --no-headers
finish
