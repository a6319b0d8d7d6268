#!/usr/bin/env bash
# Garbage collection through kubectl: ownerReferences with background, foreground and orphan propagation, dangling
# owners, blockOwnerDeletion, and the Job default (orphan) — issue 19 point 4.
KGATE=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
trap 'stop_kgate; rm -rf "$W"' EXIT
K() { kubectl --request-timeout=20s "$@"; }
start_kgate "$W/data" || exit 1
TOKEN=$(awk '/token:/ {print $2}' "$KUBECONFIG")
URL=$(awk '/server:/ {print $2}' "$KUBECONFIG")
# objects are made and polled with curl (kubectl's start-up would dominate the test's time); the deletions users
# make go through kubectl
api() { # api METHOD PATH [BODY] -> HTTP code
  curl -sk -o /dev/null -w '%{http_code}' -X "$1" -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" \
    ${3:+--data-binary "$3"} "$URL$2"
}
code() { curl -sk -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "$URL/api/v1/namespaces/default/configmaps/$1"; }
# gone NAME...: true once none of the configmaps exists (polls up to 10 s)
gone() {
  for _ in $(seq 1 100); do
    local left=0
    for n in "$@"; do [ "$(code "$n")" = 404 ] || left=1; done
    [ "$left" = 0 ] && return 0
    sleep 0.1
  done
  return 1
}
uid() { curl -sk -H "Authorization: Bearer $TOKEN" "$URL/api/v1/namespaces/default/$1/$2" | python3 -c 'import json,sys; print(json.load(sys.stdin)["metadata"]["uid"])'; }
# cm NAME [METADATA-JSON-MEMBERS]: create a configmap
cm() { api POST /api/v1/namespaces/default/configmaps '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"'"$1"'"'"${2:+,$2}"'}}' >/dev/null; }
# dependent NAME OWNER-KIND OWNER-NAME OWNER-UID [BLOCK]
dependent() {
  cm "$1" '"ownerReferences":[{"apiVersion":"v1","kind":"'"$2"'","name":"'"$3"'","uid":"'"$4"'","blockOwnerDeletion":'"${5:-false}"'}]'
}

# --- background (kubectl's default): the dependents go after the owner
cm owner1
U=$(uid configmaps owner1)
dependent d1a ConfigMap owner1 "$U"
dependent d1b ConfigMap owner1 "$U"
cm d1c # not a dependent
K delete configmap owner1 >/dev/null
if gone d1a d1b; then pass "background: the owner's dependents are collected"; else failx "background: dependents left" "$(K get configmaps 2>&1)"; fi
expect_out "background: an unrelated object stays" "configmap/d1c" K get configmap d1c -o name

# --- a dependent whose owner never existed is collected
dependent d2 ConfigMap no-such-owner 3f1c1d4e-0000-4000-8000-000000000000
if gone d2; then pass "a dangling owner reference: the dependent is collected"; else failx "dangling owner: d2 left"; fi

# --- a dependent with one live owner loses only the dangling reference
cm owner3
U3=$(uid configmaps owner3)
cm d3 '"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner3","uid":"'"$U3"'"},{"apiVersion":"v1","kind":"ConfigMap","name":"gone3","uid":"3f1c1d4e-0000-4000-8000-000000000003"}]'
for _ in $(seq 1 100); do
  curl -sk -H "Authorization: Bearer $TOKEN" "$URL/api/v1/namespaces/default/configmaps/d3" | grep -q gone3 || break
  sleep 0.1
done
expect_eq "a live owner keeps the dependent, the dangling reference is removed" "owner3" \
  K get configmap d3 -o jsonpath='{.metadata.ownerReferences[*].name}'

# --- foreground: the owner waits (foregroundDeletion) for its blocking dependent, then goes
cm owner4
U4=$(uid configmaps owner4)
dependent d4 ConfigMap owner4 "$U4" true
cm d4-held '"finalizers":["e2e.example.com/hold"],"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner4","uid":"'"$U4"'","blockOwnerDeletion":true}]'
K delete configmap owner4 --cascade=foreground --wait=false >/dev/null
expect_out "foreground: the owner carries the foregroundDeletion finalizer" "foregroundDeletion" \
  K get configmap owner4 -o jsonpath='{.metadata.finalizers}'
gone d4 && pass "foreground: the dependent is deleted" || failx "foreground: d4 left"
sleep 0.3
expect_out "foreground: the owner waits for a dependent held by a finalizer" "configmap/owner4" K get configmap owner4 -o name
K patch configmap d4-held --type=json -p '[{"op":"remove","path":"/metadata/finalizers"}]' >/dev/null
if gone owner4 d4-held; then pass "foreground: the owner goes once its last blocking dependent is gone"; else failx "foreground: owner4 left" "$(K get configmap owner4 -o yaml 2>&1)"; fi

# --- orphan: the dependents stay, without the owner reference
cm owner5
U5=$(uid configmaps owner5)
dependent d5 ConfigMap owner5 "$U5"
K delete configmap owner5 --cascade=orphan >/dev/null
gone owner5 && pass "orphan: the owner is deleted" || failx "orphan: owner5 left" "$(K get configmap owner5 -o yaml 2>&1)"
expect_eq "orphan: the dependent stays without its owner reference" "configmap/d5 []" \
  K get configmap d5 -o jsonpath='configmap/{.metadata.name} [{.metadata.ownerReferences}]'

# --- the Job default is orphan (kubectl always sends a policy: use the API without one)
api POST /apis/batch/v1/namespaces/default/jobs '{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j6"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox:1.36"}]}}}}' >/dev/null
U6=$(curl -sk -H "Authorization: Bearer $TOKEN" "$URL/apis/batch/v1/namespaces/default/jobs/j6" | python3 -c 'import json,sys; print(json.load(sys.stdin)["metadata"]["uid"])')
cm d6 '"ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":"j6","uid":"'"$U6"'"}]'
curl -sk -o /dev/null -X DELETE -H "Authorization: Bearer $TOKEN" "$URL/apis/batch/v1/namespaces/default/jobs/j6"
for _ in $(seq 1 100); do [ "$(api GET /apis/batch/v1/namespaces/default/jobs/j6)" = 404 ] && break; sleep 0.1; done
expect_not "a Job deleted without a policy is gone" "j6" K get jobs -o name
expect_out "a Job deleted without a policy orphans its dependents" "configmap/d6" K get configmap d6 -o name

# --- graceful pod deletion without kubelets (through the API: kubectl's start-up would eat the grace periods)
pod() { # pod NAME NODE GRACE
  api POST /api/v1/namespaces/default/pods '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"'"$1"'"},"spec":{'"${2:+\"nodeName\":\"$2\",}"'"terminationGracePeriodSeconds":'"$3"',"containers":[{"name":"c","image":"busybox:1.36"}]}}' >/dev/null
}
pcode() { api GET "/api/v1/namespaces/default/pods/$1"; }
pod p-unscheduled "" 30
api DELETE /api/v1/namespaces/default/pods/p-unscheduled >/dev/null
expect_eq "a pod never scheduled is deleted at once" 404 pcode p-unscheduled
pod p-missing missing-node 2
api DELETE /api/v1/namespaces/default/pods/p-missing >/dev/null
expect_out "a bound pod gets its grace period" '"deletionGracePeriodSeconds":2' \
  curl -sk -H "Authorization: Bearer $TOKEN" "$URL/api/v1/namespaces/default/pods/p-missing"
for _ in $(seq 1 60); do [ "$(pcode p-missing)" = 404 ] && break; sleep 0.1; done
expect_eq "its node does not exist: deleted when the grace period ends" 404 pcode p-missing
api POST /api/v1/nodes '{"apiVersion":"v1","kind":"Node","metadata":{"name":"real-node"}}' >/dev/null
pod p-real real-node 1
api DELETE /api/v1/namespaces/default/pods/p-real >/dev/null
sleep 2
expect_eq "on an existing node the pod waits for its kubelet (grace 0)" 200 pcode p-real
K delete pod p-real --grace-period=0 --force >/dev/null 2>&1
expect_eq "--grace-period=0 --force deletes it" 404 pcode p-real

# --- custom resources as owners and as dependents
cat <<Y | K apply -f - >/dev/null
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.gc.example.com}
spec:
  group: gc.example.com
  names: {kind: Widget, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
Y
K wait --for condition=established crd/widgets.gc.example.com --timeout=20s >/dev/null
W_API=/apis/gc.example.com/v1/namespaces/default/widgets
api POST $W_API '{"apiVersion":"gc.example.com/v1","kind":"Widget","metadata":{"name":"w-owner"}}' >/dev/null
UW=$(curl -sk -H "Authorization: Bearer $TOKEN" "$URL$W_API/w-owner" | python3 -c 'import json,sys; print(json.load(sys.stdin)["metadata"]["uid"])')
cm d7 '"ownerReferences":[{"apiVersion":"gc.example.com/v1","kind":"Widget","name":"w-owner","uid":"'"$UW"'"}]'
cm owner8
U8=$(uid configmaps owner8)
api POST $W_API '{"apiVersion":"gc.example.com/v1","kind":"Widget","metadata":{"name":"w-dep","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner8","uid":"'"$U8"'"}]}}' >/dev/null
K delete widget w-owner >/dev/null
gone d7 && pass "a custom resource owner: its dependent is collected" || failx "custom resource owner: d7 left"
K delete configmap owner8 >/dev/null
for _ in $(seq 1 100); do [ "$(api GET $W_API/w-dep)" = 404 ] && break; sleep 0.1; done
expect_eq "a custom resource dependent is collected" 404 api GET $W_API/w-dep

# --- DeleteOptions with both orphanDependents and propagationPolicy: 422
expect_out "orphanDependents with propagationPolicy is rejected" \
  'propagationPolicy: Invalid value: \"Background\": orphanDependents and deletionPropagation cannot be both set' \
  curl -sk -X DELETE -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" \
  --data '{"orphanDependents":true,"propagationPolicy":"Background"}' "$URL/api/v1/namespaces/default/configmaps/d1c"
finish
