#!/usr/bin/env bash
# Server-side apply and managedFields through the real kubectl (issue 19 point 2): apply creating and updating,
# --show-managed-fields' shape, a second manager's 409 with upstream's text, --force-conflicts moving ownership,
# removal of fields a manager stops applying, list-map merges of a Deployment's containers and a Service's ports,
# Update entries of ordinary writes, the migration from client-side apply, and dry-run.
KGATE=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
trap 'stop_kgate; rm -rf "$W"' EXIT
K() { kubectl --request-timeout=20s "$@"; }
start_kgate "$W/data" || exit 1

cat >"$W/cm.yaml" <<'Y'
apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
  labels: {app: web}
data: {a: "1", b: "2"}
Y
expect_out "apply creates" "configmap/cfg serverside-applied" K apply --server-side -f "$W/cm.yaml"
expect_eq "managedFields: one Apply entry of kubectl, fieldsV1 as upstream encodes it" \
  'kubectl Apply v1 FieldsV1 {"f:data":{"f:a":{},"f:b":{}},"f:metadata":{"f:labels":{"f:app":{}}}};' \
  K get cm cfg -o jsonpath='{range .metadata.managedFields[*]}{.manager} {.operation} {.apiVersion} {.fieldsType} {.fieldsV1};{end}'
expect_out "--show-managed-fields prints them" "    manager: kubectl
    operation: Apply" K get cm cfg -o yaml --show-managed-fields

printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {a: "changed", c: "3"}\n' >"$W/cm2.yaml"
expect_out "a second manager conflicts (409 text)" 'Apply failed with 1 conflict: conflict with "kubectl": .data.a' \
  K apply --server-side --field-manager=other -f "$W/cm2.yaml"
expect_out "--force-conflicts" "serverside-applied" K apply --server-side --field-manager=other --force-conflicts -f "$W/cm2.yaml"
expect_eq "forced value, ownership moved" 'changed kubectl={"f:data":{"f:b":{}},"f:metadata":{"f:labels":{"f:app":{}}}} other={"f:data":{"f:a":{},"f:c":{}}} ' \
  K get cm cfg -o jsonpath='{.data.a} {range .metadata.managedFields[*]}{.manager}={.fieldsV1} {end}'

printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {b: "2"}\n' >"$W/cm3.yaml"
K apply --server-side -f "$W/cm3.yaml" >/dev/null 2>&1
expect_eq "a field kubectl stopped applying is removed; other's stay" '{"a":"changed","b":"2","c":"3"} ' \
  K get cm cfg -o jsonpath='{.data} {.metadata.labels}'

sed 's/name: cfg/name: dry/' "$W/cm.yaml" >"$W/dry.yaml"
expect_out "dry-run apply" "serverside-applied (server dry run)" K apply --server-side --dry-run=server -f "$W/dry.yaml"
expect_out "dry-run stored nothing" 'configmaps "dry" not found' K get cm dry

# ordinary writes are Update entries of the User-Agent's manager
K create configmap plain --from-literal=x=1 >/dev/null
K label configmap plain team=a >/dev/null
expect_eq "create and label are tracked as Updates" "kubectl-create:Update kubectl-label:Update " \
  K get cm plain -o jsonpath='{range .metadata.managedFields[*]}{.manager}:{.operation} {end}'

# a Deployment: containers merge by name, container ports by containerPort+protocol
cat >"$W/dep.yaml" <<'Y'
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: nginx, image: "nginx:1.25", ports: [{containerPort: 80}]}
Y
K apply --server-side -f "$W/dep.yaml" >/dev/null
printf 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n      containers:\n      - {name: sidecar, image: busybox}\n' >"$W/side.yaml"
K apply --server-side --field-manager=sidecar -f "$W/side.yaml" >/dev/null
expect_out "a second manager's container is merged by name; ports keyed by containerPort and protocol" \
  'nginx:1.25 busybox {"f:spec":{"f:replicas":{},"f:selector":{"f:matchLabels":{"f:app":{}}},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{}}}}}}}}}' \
  K get deploy web -o jsonpath='{.spec.template.spec.containers[*].image} {.metadata.managedFields[0].fieldsV1}'
printf 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 5\n' >"$W/rep.yaml"
expect_out "replicas owned by kubectl" 'conflict with "kubectl": .spec.replicas' \
  K apply --server-side --field-manager=hpa -f "$W/rep.yaml"

# a Service: ports keyed by port+protocol
printf 'apiVersion: v1\nkind: Service\nmetadata: {name: svc}\nspec:\n  ports: [{name: http, port: 80}]\n  selector: {app: web}\n' >"$W/svc.yaml"
K apply --server-side -f "$W/svc.yaml" >/dev/null
printf 'apiVersion: v1\nkind: Service\nmetadata: {name: svc}\nspec:\n  ports: [{name: dns, port: 53, protocol: UDP}]\n' >"$W/svc2.yaml"
K apply --server-side --field-manager=dns -f "$W/svc2.yaml" >/dev/null
expect_eq "service ports merged by port+protocol" "80/TCP 53/UDP " \
  K get svc svc -o jsonpath='{range .spec.ports[*]}{.port}/{.protocol} {end}'

# migration from client-side apply: kubectl apply, then kubectl apply --server-side takes over without conflicts
sed 's/{name: web}/{name: csa}/' "$W/dep.yaml" >"$W/csa.yaml"
K apply -f "$W/csa.yaml" >/dev/null
sed 's/replicas: 2/replicas: 3/' "$W/csa.yaml" >"$W/csa3.yaml"
expect_out "server-side apply over client-side apply: no conflict" "serverside-applied" \
  K apply --server-side -f "$W/csa3.yaml"
expect_eq "kubectl owns the fields now" "3 kubectl:Apply" \
  K get deploy csa -o jsonpath='{.spec.replicas} {.metadata.managedFields[0].manager}:{.metadata.managedFields[0].operation}'
expect_out "the last-applied annotation follows the applied configuration" '"replicas":3' \
  K get deploy csa -o jsonpath='{.metadata.annotations.kubectl\.kubernetes\.io/last-applied-configuration}'

# invalid managedFields input is ignored (the live list is kept)
expect_out "invalid managedFields in an update are ignored" "configmap/plain patched" \
  K patch configmap plain --type=merge -p '{"metadata":{"managedFields":[{"manager":"x","operation":"Bogus"}]}}'
expect_eq "the live list stayed" "kubectl-create kubectl-label " \
  K get cm plain -o jsonpath='{range .metadata.managedFields[*]}{.manager} {end}'
finish
