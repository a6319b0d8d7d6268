#!/usr/bin/env bash
# EndpointSlices through kubectl (issue 19 point 5): the mirroring controller keeps slices for a selector-less
# Service's Endpoints (create, change, IPv6 split, a selector added and removed, skip-mirror, Endpoints deleted), and
# the apiserver keeps the EndpointSlice default/kubernetes (with etcd installed: the lease reconciler runs on etcd3).
KGATE=$1
. "$(dirname "$0")/lib.sh"
command -v kubectl >/dev/null || { echo "SKIP: kubectl not installed"; exit 77; }
W=$(mktemp -d)
ETCD=${ETCD:-/usr/bin/etcd}
ETCD_PID=""
cleanup() {
  stop_kgate
  [ -n "$ETCD_PID" ] && kill "$ETCD_PID" 2>/dev/null && wait "$ETCD_PID" 2>/dev/null
  rm -rf "$W"
}
trap cleanup EXIT
K() { kubectl --request-timeout=20s "$@"; }

FLAGS=()
if [ -x "$ETCD" ]; then
  free_port() { # a random port nothing listens on (no python: its start-up is slow on a loaded machine)
    local p
    while :; do
      p=$((20000 + RANDOM % 40000))
      (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
    done
  }
  CP=$(free_port)
  PP=$(free_port)
  "$ETCD" --name e2e --data-dir "$W/etcd" --listen-client-urls "http://127.0.0.1:$CP" \
    --advertise-client-urls "http://127.0.0.1:$CP" --listen-peer-urls "http://127.0.0.1:$PP" \
    --initial-advertise-peer-urls "http://127.0.0.1:$PP" --initial-cluster "e2e=http://127.0.0.1:$PP" \
    --unsafe-no-fsync --log-level warn --logger zap >>"$W/etcd.log" 2>&1 &
  ETCD_PID=$!
  for _ in $(seq 1 100); do
    curl -s -X POST "http://127.0.0.1:$CP/v3/kv/range" -d '{"key":"AA=="}' 2>/dev/null | grep -q header && break
    sleep 0.1
  done
  FLAGS=(--storage-backend=etcd3 "--etcd-servers=http://127.0.0.1:$CP")
fi
start_kgate "$W/data" "${FLAGS[@]}" || exit 1
TOKEN=$(awk '/token:/ {print $2}' "$KUBECONFIG")
URL=$(awk '/server:/ {print $2}' "$KUBECONFIG")

# Objects are changed with curl and polled with curl, grep and awk (kubectl's and python's start-up take seconds on a
# loaded machine); what a user looks at goes through kubectl.
api() { # api METHOD PATH BODY [CONTENT-TYPE] -> HTTP code
  curl -sk -o "$W/api.out" -w '%{http_code}' -X "$1" -H "Authorization: Bearer $TOKEN" \
    -H "Content-Type: ${4:-application/json}" --data-binary "$3" "$URL$2"
}
# slices SERVICE: "addressType:ip/ready,ip/ready;..." of the Service's slices, sorted by address type
slices() {
  curl -sk -H "Authorization: Bearer $TOKEN" \
    "$URL/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector=kubernetes.io/service-name%3D$1" |
    grep -o '"addressType":"[^"]*"\|"addresses":\["[^"]*"\],"conditions":{"ready":[a-z]*' |
    awk -F'"' '/^"addressType"/ { if (line != "") print line; line = $4 ":"; sep = ""; next }
               { split($0, r, "ready\":"); line = line sep $4 "/" (r[2] == "true" ? "ready" : "notready"); sep = "," }
               END { if (line != "") print line }' | sort | paste -sd';'
}
# wait_slices NAME SERVICE WANT: poll (up to 10 s) until slices SERVICE prints WANT
wait_slices() {
  local got=""
  for _ in $(seq 1 100); do
    got=$(slices "$2")
    [ "$got" = "$3" ] && { pass "$1"; return 0; }
    sleep 0.1
  done
  failx "$1" "want: [$3] | got: [$got]"
}
# put_eps READY-IPS NOTREADY-IPS [LABELS-JSON]: create or replace the Endpoints default/db (one subset, port pg 5432)
put_eps() {
  local ready="" notready="" ip
  for ip in $1; do ready="$ready${ready:+,}{\"ip\":\"$ip\"}"; done
  for ip in $2; do notready="$notready${notready:+,}{\"ip\":\"$ip\"}"; done
  local body='{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"db","labels":'"${3:-{\}}"'},"subsets":[{'
  body="$body\"addresses\":[$ready]${notready:+,\"notReadyAddresses\":[$notready]},\"ports\":[{\"name\":\"pg\",\"port\":5432}]}]}"
  local code
  code=$(api PUT /api/v1/namespaces/default/endpoints/db "$body")
  [ "$code" = 404 ] && code=$(api POST /api/v1/namespaces/default/endpoints "$body")
  case "$code" in 200 | 201) ;; *) failx "write Endpoints: $code" "$(cat "$W/api.out")" ;; esac
}

# --- a selector-less Service and its Endpoints are mirrored
K apply -f - >/dev/null <<'EOF'
apiVersion: v1
kind: Service
metadata: {name: db}
spec:
  ports: [{name: pg, port: 5432}]
EOF
put_eps "10.1.0.2 10.1.0.1" "10.1.0.3" '{"tier":"data"}'
wait_slices "the Endpoints is mirrored to an EndpointSlice" db "IPv4:10.1.0.1/ready,10.1.0.2/ready,10.1.0.3/notready"
# one kubectl call: the slice's name, managed-by and copied labels, owner, port, and the addresses column
OUT=$(K get endpointslices -l kubernetes.io/service-name=db -o jsonpath='{.items[0].metadata.name} {.items[0].metadata.labels.endpointslice\.kubernetes\.io/managed-by} {.items[0].metadata.labels.tier} {.items[0].metadata.ownerReferences[0].kind}/{.items[0].metadata.ownerReferences[0].name}/{.items[0].metadata.ownerReferences[0].controller} {.items[0].ports[0].name}:{.items[0].ports[0].port}/{.items[0].ports[0].protocol}' 2>&1)
NAME1=${OUT%% *}
case "$OUT" in
  "db-"?????" endpointslicemirroring-controller.k8s.io data Endpoints/db/true pg:5432/TCP")
    pass "kubectl get endpointslices -l kubernetes.io/service-name=db: name db-<random>, labels, owner, port" ;;
  *) failx "kubectl get endpointslices -l kubernetes.io/service-name=db" "$OUT" ;;
esac

# --- a change is mirrored into the same slice; an IPv6 address gets a slice of its own
put_eps "10.1.0.1 fd00::7" ""
wait_slices "a changed Endpoints: IPv4 and IPv6 slices" db "IPv4:10.1.0.1/ready;IPv6:fd00::7/ready"
expect_out "the IPv4 slice is the same object, updated" "\"name\":\"$NAME1\"" \
  curl -sk -H "Authorization: Bearer $TOKEN" "$URL/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/$NAME1"

# --- the Service gains a selector: the mirrored slices go; without it again they come back
K patch service db -p '{"spec":{"selector":{"app":"db"}}}' >/dev/null
wait_slices "a Service with a selector is not mirrored" db ""
api PATCH /api/v1/namespaces/default/services/db '[{"op":"remove","path":"/spec/selector"}]' \
  application/json-patch+json >/dev/null
wait_slices "the selector removed: mirrored again" db "IPv4:10.1.0.1/ready;IPv6:fd00::7/ready"

# --- skip-mirror, then the Endpoints deleted
put_eps "10.1.0.1" "" '{"endpointslice.kubernetes.io/skip-mirror":"true"}'
wait_slices "an Endpoints labelled skip-mirror is not mirrored" db ""
put_eps "10.1.0.5" ""
wait_slices "the label removed: mirrored again" db "IPv4:10.1.0.5/ready"
# a resync with nothing changed writes nothing: the same Endpoints written again leaves the slice's resourceVersion;
# the one worker syncs in order, so once a later Service "marker" is mirrored, db's sync has run
rv() { curl -sk -H "Authorization: Bearer $TOKEN" "$URL/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector=kubernetes.io/service-name%3D$1" | grep -o '"resourceVersion":"[0-9]*"' | tail -1; }
RV0=$(rv db)
put_eps "10.1.0.5" ""
api POST /api/v1/namespaces/default/services '{"apiVersion":"v1","kind":"Service","metadata":{"name":"marker"},"spec":{"ports":[{"port":80}]}}' >/dev/null
api POST /api/v1/namespaces/default/endpoints '{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"marker"},"subsets":[{"addresses":[{"ip":"10.2.0.1"}],"ports":[{"port":80}]}]}' >/dev/null
wait_slices "(a later Endpoints is mirrored)" marker "IPv4:10.2.0.1/ready"
expect_eq "an unchanged Endpoints written again: its slice is not rewritten" "$RV0" rv db
K delete endpoints db >/dev/null
wait_slices "the Endpoints deleted: its slices are deleted" db ""

# --- the kubernetes Service's EndpointSlice (the endpoint reconciler runs on etcd3)
if [ -n "$ETCD_PID" ]; then
  wait_slices "the EndpointSlice default/kubernetes lists the apiserver" kubernetes "IPv4:127.0.0.1/ready"
  PORT=${URL##*:}
  expect_eq "default/kubernetes: its port and only the service-name label" "https:$PORT {\"kubernetes.io/service-name\":\"kubernetes\"}" \
    K get endpointslice kubernetes -o jsonpath='{.ports[0].name}:{.ports[0].port} {.metadata.labels}'
else
  echo "skip - the EndpointSlice default/kubernetes (etcd is not installed)"
fi
finish
