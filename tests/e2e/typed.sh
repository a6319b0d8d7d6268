#!/usr/bin/env bash
# Typed validation and the policy APIs through the real kubectl: wrong JSON types rejected with upstream's decode
# error, unknown fields warned about and never stored, a typed-client body without apiVersion/kind, Secret
# stringData, semantic validation, and kubectl drain against a PodDisruptionBudget (429, then success).
KGATE=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
trap 'stop_kgate; rm -rf "$W"' EXIT
start_kgate "$W/data" || exit 1
K() { kubectl "$@"; }

cat >"$W/cm.yaml" <<'Y'
apiVersion: v1
kind: ConfigMap
metadata: {name: c1}
data: {a: 1}
Y
expect_out "ConfigMap data number: 400 with Go's decode error" \
  'Error from server (BadRequest): error when creating "'"$W"'/cm.yaml": ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string' \
  K create -f "$W/cm.yaml"
cat >"$W/dep.yaml" <<'Y'
apiVersion: apps/v1
kind: Deployment
metadata: {name: d1}
spec:
  replicas: "two"
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec: {containers: [{name: c, image: nginx}]}
Y
expect_out "Deployment replicas string: 400" \
  'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32' \
  K apply -f "$W/dep.yaml"
sed -i 's/"two"/2\n  foo: 1/' "$W/dep.yaml"
expect_out "unknown field under --validate=warn: warning" 'Warning: unknown field "spec.foo"' K create --validate=warn -f "$W/dep.yaml"
expect_eq "unknown field not stored" "" K get deploy d1 -o 'jsonpath={.spec.foo}'
expect_out "unknown field under kubectl's default (Strict): 400" 'strict decoding error: unknown field "spec.foo"' \
  K replace -f "$W/dep.yaml"
sed -i 's/app: d}}$/app: other}}/' "$W/dep.yaml"
sed -i '/foo: 1/d' "$W/dep.yaml"
expect_out "selector change: 422 field is immutable" 'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"other"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable' \
  K replace -f "$W/dep.yaml"

printf '{"metadata":{"name":"typed"},"data":{"k":"v"}}' >"$W/typed.json"
expect_out "typed-client body without apiVersion/kind: created" '"kind":"ConfigMap"' \
  K create --raw /api/v1/namespaces/default/configmaps -f "$W/typed.json"
K create secret generic s1 --from-literal=a=x >/dev/null
printf '{"metadata":{"name":"s2"},"stringData":{"user":"admin"}}' >"$W/s2.json"
K create --raw /api/v1/namespaces/default/secrets -f "$W/s2.json" >/dev/null
expect_eq "Secret stringData merged into data" "YWRtaW4=" K get secret s2 -o 'jsonpath={.data.user}{.stringData}'

expect_out "dry-run create of an existing object: 409" 'Error from server (AlreadyExists): error when creating' \
  K create --dry-run=server -f "$W/dep.yaml"
expect_out "list at a future resourceVersion: 504" 'Error from server (Timeout): Timeout: Too large resource version: 999999999, current:' \
  K get --raw '/api/v1/namespaces/default/configmaps?resourceVersion=999999999&resourceVersionMatch=NotOlderThan'
expect_out "sendInitialEvents watch ends its initial events with a bookmark" '"annotations":{"k8s.io/initial-events-end":"true"}' \
  K get --raw '/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1'

# drain with a PodDisruptionBudget
cat >"$W/drain.yaml" <<'Y'
apiVersion: v1
kind: Node
metadata: {name: n1}
---
apiVersion: v1
kind: Pod
metadata: {name: p1, labels: {app: a}}
spec: {nodeName: n1, containers: [{name: c, image: nginx}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: pdb1}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: a}}
Y
K create -f "$W/drain.yaml" >/dev/null
K patch pod p1 --subresource=status --type=merge \
  -p '{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}' >/dev/null
printf '{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p1"}}' >"$W/ev.json"
expect_out "eviction against the budget: 429" \
  "Error from server (TooManyRequests): Cannot evict pod as it would violate the pod's disruption budget." \
  K create --raw /api/v1/namespaces/default/pods/p1/eviction -f "$W/ev.json"
expect_out "kubectl get pdb: upstream's columns" "NAME   MIN AVAILABLE   MAX UNAVAILABLE   ALLOWED DISRUPTIONS" K get pdb
K delete pdb pdb1 >/dev/null
expect_out "drain after deleting the budget" "node/n1 drained" K drain n1 --force --timeout=10s
expect_out "the pod was evicted" 'pods "p1" not found' K get pod p1
finish
