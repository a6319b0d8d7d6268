#!/usr/bin/env bash
# MutatingAdmissionPolicy through the real kubectl. Without the feature gate and --runtime-config the resources are
# not served (not in discovery, 404); a bad --runtime-config stops start-up with upstream's message. With both, the
# three examples of examples/ are applied as they are and their mutated objects checked: automatic labels on a
# Deployment, a Service and an Ingress (JSONPatch), sidecar injection in a labelled namespace only and never twice
# (ApplyConfiguration, reinvocation IfNeeded), CPU over-commit from a ConfigMap param (quantity arithmetic); the
# ValidatingAdmissionPolicies beside them accept the mutated objects. Write-time validation and the policy error
# texts, and the MAP metrics on /metrics. `kgate check -o yaml` and `kgate webhook` (--policy-dir) run the same policies.
KGATE=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
DOOR_PID=""
trap 'stop_kgate; [ -n "$DOOR_PID" ] && kill "$DOOR_PID" 2>/dev/null; rm -rf "$W"' EXIT
K() { kubectl --request-timeout=20s "$@"; }
EX="$(dirname "$0")/../../examples"

# ---- not served by default ----
start_kgate "$W/d1" --runtime-config=admissionregistration.k8s.io/v1beta1=true || exit 1
expect_not "not in discovery without the feature gate" "mutatingadmissionpolicies" K api-resources
expect_out "404 without the feature gate" "NotFound" \
  K get --raw /apis/admissionregistration.k8s.io/v1beta1/mutatingadmissionpolicies
stop_kgate
expect_out "unknown group/version is a start-up error" \
  "group version admissionregistration.k8s.io/v9 that has not been registered" \
  timeout 10 "$KGATE" serve --data-dir "$W/d2" --secure-port 0 --runtime-config=admissionregistration.k8s.io/v9=true
expect_out "a key that is no group/version is a start-up error" "invalid key nonsense" \
  timeout 10 "$KGATE" serve --data-dir "$W/d2" --secure-port 0 --runtime-config=nonsense

# ---- kgate check runs MutatingAdmissionPolicies with the gate (same engine flags as serve) ----
cat >"$W/deploy.yaml" <<'Y'
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, labels: {app: web}}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
Y
expect_out "kgate check -o yaml shows the mutated object" "app.kubernetes.io/part-of: web" \
  "$KGATE" check --feature-gates=MutatingAdmissionPolicy=true -o yaml "$EX/automatic-labels.yaml" "$W/deploy.yaml"
expect_out "kgate check: everything admitted" "5 objects: 5 admitted, 0 denied, 0 errors" \
  "$KGATE" check --feature-gates=MutatingAdmissionPolicy=true "$EX/automatic-labels.yaml" "$W/deploy.yaml"
expect_out "kgate check without the gate: the kind is unknown (and the VAP beside denies)" \
  'no matches for kind "MutatingAdmissionPolicy" in version "admissionregistration.k8s.io/v1beta1"' \
  "$KGATE" check "$EX/automatic-labels.yaml" "$W/deploy.yaml"

# ---- kgate webhook: a MutatingAdmissionPolicy from --policy-dir answers /mutate with the JSON patch ----
mkdir -p "$W/pdir"
cp "$EX/sidecar-injection.yaml" "$W/pdir/"
printf 'apiVersion: v1\nkind: Namespace\nmetadata: {name: injected, labels: {sidecar-injection: enabled}}\n' >"$W/pdir/ns.yaml"
"$KGATE" webhook --secure-port 0 --bind-address 127.0.0.1 --policy-dir "$W/pdir" --cert-dir "$W/certs" \
  --feature-gates=MutatingAdmissionPolicy=true >"$W/door.out" 2>"$W/door.log" &
DOOR_PID=$!
PORT=""
for _ in $(seq 1 200); do
  PORT=$(sed -n 's|.*https://127.0.0.1:\([0-9]*\) .*|\1|p' "$W/door.out" 2>/dev/null)
  [ -n "$PORT" ] && break
  kill -0 "$DOOR_PID" 2>/dev/null || break
  sleep 0.05
done
cat >"$W/review.json" <<'Y'
{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1",
 "kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},
 "requestKind":{"group":"","version":"v1","kind":"Pod"},"requestResource":{"group":"","version":"v1","resource":"pods"},
 "name":"app","namespace":"injected","operation":"CREATE","userInfo":{"username":"alice"},
 "object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"app","namespace":"injected"},
           "spec":{"containers":[{"name":"app","image":"nginx"}]}},"dryRun":false}}
Y
expect_out "kgate webhook: the MAP's sidecar comes back as a JSON patch" "log-shipper" \
  bash -c "curl -sS --cacert '$W/certs/ca.crt' -H 'Content-Type: application/json' --data @'$W/review.json' \
    https://127.0.0.1:$PORT/mutate | python3 -c 'import sys,json,base64; r=json.load(sys.stdin)[\"response\"]; print(r[\"allowed\"], base64.b64decode(r.get(\"patch\",\"\")).decode())'"
kill "$DOOR_PID" 2>/dev/null
wait "$DOOR_PID" 2>/dev/null
DOOR_PID=""

# ---- served: v1beta1 ----
start_kgate "$W/data" --feature-gates=MutatingAdmissionPolicy=true \
  --runtime-config=admissionregistration.k8s.io/v1beta1=true || exit 1
expect_out "in discovery" "admissionregistration.k8s.io/v1beta1" K api-resources --api-group=admissionregistration.k8s.io

cat >"$W/bad.yaml" <<'Y'
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: bad}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}]
  reinvocationPolicy: Sometimes
  mutations:
  - patchType: JSONPatch
    jsonPatch: {expression: "object.("}
Y
expect_out "an expression that does not compile is rejected at write" \
  'spec.mutations[0].jsonPatch.expression: Invalid value: "object.(": compilation failed: ERROR: <input>:1:8: Syntax error: no viable alternative at input' \
  K create -f "$W/bad.yaml"
expect_out "reinvocationPolicy is checked" \
  'spec.reinvocationPolicy: Unsupported value: "Sometimes": supported values: "IfNeeded", "Never"' K create -f "$W/bad.yaml"

# automatic labels
expect_out "automatic-labels applied" "mutatingadmissionpolicybinding.admissionregistration.k8s.io/automatic-labels created" \
  K apply -f "$EX/automatic-labels.yaml"
expect_eq "reinvocationPolicy as given, failurePolicy kept" "IfNeeded Fail" \
  K get mutatingadmissionpolicy automatic-labels -o jsonpath='{.spec.reinvocationPolicy} {.spec.failurePolicy}'
expect_out "kubectl get lists the policies" "automatic-labels" K get mutatingadmissionpolicies
expect_out "and the bindings" "automatic-labels" K get mutatingadmissionpolicybindings
sleep 0.3 # the plugins' watches see the new objects
K create deployment web --image=nginx >/dev/null 2>&1
expect_eq "Deployment labelled" "web" K get deployment web -o jsonpath='{.metadata.labels.app\.kubernetes\.io/part-of}'
K create service clusterip web --tcp=80:80 >/dev/null 2>&1
expect_eq "Service labelled" "web" K get service web -o jsonpath='{.metadata.labels.app\.kubernetes\.io/part-of}'
cat >"$W/ing.yaml" <<'Y'
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, labels: {app: web}}
spec:
  rules: [{host: a.example, http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}}]
Y
K create -f "$W/ing.yaml" >/dev/null 2>&1
expect_eq "Ingress labelled" "web" K get ingress web -o jsonpath='{.metadata.labels.app\.kubernetes\.io/part-of}'
expect_out "an object without the app label is left alone" "configmap/plain created" K create configmap plain

# sidecar injection
K apply -f "$EX/sidecar-injection.yaml" >/dev/null
K create namespace injected >/dev/null
K label namespace injected sidecar-injection=enabled >/dev/null
K create namespace plain >/dev/null
sleep 0.3
K -n injected run app --image=nginx >/dev/null 2>&1
expect_eq "sidecar injected in the labelled namespace" "app log-shipper" \
  K -n injected get pod app -o jsonpath='{.spec.containers[*].name}'
cat >"$W/has-sidecar.yaml" <<'Y'
apiVersion: v1
kind: Pod
metadata: {name: already, namespace: injected}
spec:
  containers:
  - {name: app, image: nginx}
  - {name: log-shipper, image: registry.example/log-shipper:1.4, args: ["--source=/var/log/app"]}
Y
K create -f "$W/has-sidecar.yaml" >/dev/null 2>&1
expect_eq "never injected twice" "app log-shipper" K -n injected get pod already -o jsonpath='{.spec.containers[*].name}'
K -n plain run app --image=nginx >/dev/null 2>&1
expect_eq "other namespaces untouched" "app" K -n plain get pod app -o jsonpath='{.spec.containers[*].name}'

# CPU over-commit
K apply -f "$EX/resource-overcommit.yaml" >/dev/null
sleep 0.3
cat >"$W/oc.yaml" <<'Y'
apiVersion: v1
kind: Pod
metadata: {name: oc, namespace: plain}
spec:
  containers:
  - {name: a, image: nginx, resources: {limits: {cpu: "2", memory: 1Gi}, requests: {memory: 512Mi}}}
  - {name: b, image: nginx, resources: {limits: {cpu: 300m}}}
  - {name: c, image: nginx}
Y
expect_out "over-committed pod admitted (the VAP beside accepts it)" "pod/oc created" K create -f "$W/oc.yaml"
expect_eq "CPU request = 25% of the limit, other requests kept" "500m 512Mi 75m" \
  K -n plain get pod oc -o jsonpath='{.spec.containers[0].resources.requests.cpu} {.spec.containers[0].resources.requests.memory} {.spec.containers[1].resources.requests.cpu}'
K -n default patch configmap overcommit --type=merge -p '{"data":{"cpuRequestPercent":"10"}}' >/dev/null
sleep 0.3
K create -f - >/dev/null 2>&1 <<'Y'
apiVersion: v1
kind: Pod
metadata: {name: oc2, namespace: plain}
spec:
  containers: [{name: a, image: nginx, resources: {limits: {cpu: "1"}}}]
Y
expect_eq "the param's ratio applies" "100m" K -n plain get pod oc2 -o jsonpath='{.spec.containers[0].resources.requests.cpu}'

# policy errors under failurePolicy Fail / Ignore
cat >"$W/err.yaml" <<'Y'
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: broken}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["secrets"]}]
  reinvocationPolicy: Never
  mutations:
  - patchType: JSONPatch
    jsonPatch: {expression: "[JSONPatch{op: 'remove', path: '/spec/nope'}]"}
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {name: broken}
spec: {policyName: broken}
Y
K apply -f "$W/err.yaml" >/dev/null
sleep 0.3
expect_out "a failing patch under Fail denies with upstream's text" \
  "policy 'broken' with binding 'broken' denied request: JSON Patch: remove operation does not apply: doc is missing path: \"/spec/nope\": missing value" \
  K create secret generic s1 --from-literal=a=1
K patch mutatingadmissionpolicy broken --type=json -p '[{"op":"replace","path":"/spec/mutations","value":[{"patchType":"ApplyConfiguration","applyConfiguration":{"expression":"Object{data: {\"a\": \"b\"}, datax: 1}"}}]}]' >/dev/null
sleep 0.3
expect_out "an apply configuration with a field the schema does not declare" \
  "policy 'broken' with binding 'broken' denied request: error applying patch: failed to convert patch object to typed object: .datax: field not declared in schema" \
  K create secret generic s1 --from-literal=a=1
K patch mutatingadmissionpolicy broken --type=merge -p '{"spec":{"failurePolicy":"Ignore"}}' >/dev/null
sleep 0.3
expect_out "under Ignore the request goes through" "secret/s2 created" K create secret generic s2 --from-literal=a=1

TOKEN=$(awk '/token:/ {print $2}' "$W/data/admin.kubeconfig")
URL=$(awk '/server:/ {print $2}' "$W/data/admin.kubeconfig")
expect_out "MAP metrics on /metrics" \
  'apiserver_mutating_admission_policy_check_total{error_type="no_error",policy="sidecar-injection",policy_binding="sidecar-injection"}' \
  bash -c "curl -sk -H 'Authorization: Bearer $TOKEN' $URL/metrics | grep mutating_admission_policy"

finish
