#!/usr/bin/env bash
# kgate webhook --kubeconfig and kgate check --kubeconfig against a live cluster (a kgate serve started here): the
# door lists and watches namespaces, ValidatingAdmissionPolicies and bindings into its in-memory cluster, /readyz
# waits for the first lists, a namespace label set with kubectl changes the door's PodSecurity verdict within
# seconds, a policy created or unbound in the cluster takes effect in the door, and the door keeps following the
# cluster after the API server restarts. kgate check reads the same context once.
KGATE=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
DOOR_PID=""
trap 'stop_kgate; [ -n "$DOOR_PID" ] && kill "$DOOR_PID" 2>/dev/null; rm -rf "$W"' EXIT
K() { kubectl --request-timeout=20s "$@"; }
SPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
start_serve() { # on a fixed port, so the door's kubeconfig stays valid across the restart
  "$KGATE" serve --data-dir "$W/data" --secure-port "$SPORT" >>"$W/serve.log" 2>&1 &
  KGATE_PID=$!
  for _ in $(seq 1 200); do
    curl -sk "https://127.0.0.1:$SPORT/readyz" >/dev/null 2>&1 && [ -s "$W/data/admin.kubeconfig" ] && return 0
    sleep 0.05
  done
  echo "kgate serve did not start"; cat "$W/serve.log"; return 1
}
start_serve || exit 1
export KUBECONFIG="$W/data/admin.kubeconfig"
K create namespace live >/dev/null

"$KGATE" webhook --secure-port 0 --bind-address 127.0.0.1 --cert-dir "$W/certs" --kubeconfig "$KUBECONFIG" \
  >"$W/door.out" 2>"$W/door.log" &
DOOR_PID=$!
PORT=""
for _ in $(seq 1 200); do
  PORT=$(sed -n 's|.*https://127.0.0.1:\([0-9]*\) .*|\1|p' "$W/door.out" 2>/dev/null)
  [ -n "$PORT" ] && curl -sf --cacert "$W/certs/ca.crt" "https://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break
  kill -0 "$DOOR_PID" 2>/dev/null || { echo "kgate webhook exited:"; cat "$W/door.log"; exit 1; }
  sleep 0.05
done
expect_eq "the door is ready once the first lists are in" "ok" \
  curl -sS --cacert "$W/certs/ca.crt" "https://127.0.0.1:$PORT/readyz"
expect_out "it read the namespaces from the cluster" "namespaces: 5 object(s) from the cluster" cat "$W/door.log"

review() { # review KIND RESOURCE NAMESPACE OBJECT-JSON
  printf '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1","kind":{"group":"","version":"v1","kind":"%s"},"resource":{"group":"","version":"v1","resource":"%s"},"namespace":"%s","name":"x","operation":"CREATE","userInfo":{"username":"alice"},"object":%s}}' "$@" |
    curl -sS --cacert "$W/certs/ca.crt" -H 'Content-Type: application/json' --data-binary @- \
      "https://127.0.0.1:$PORT/validate"
}
PRIV='{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x","namespace":"live"},"spec":{"containers":[{"name":"c","image":"nginx","securityContext":{"privileged":true}}]}}'
CM='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"live"},"data":{"a":"1","b":"2"}}'
pod() { review Pod pods live "$PRIV"; }
cm() { review ConfigMap configmaps live "$CM"; }
# follows NAME WANT CMD...: CMD's output contains WANT promptly — within 5 s, far below any resync period, so the
# change came through the watch (typically ~10 ms; the bound leaves room for a loaded CI machine)
follows() {
  local name=$1 want=$2 start end
  shift 2
  start=$(date +%s%N)
  for _ in $(seq 1 500); do
    "$@" 2>&1 | grep -qF -- "$want" && break
    sleep 0.01
  done
  end=$(date +%s%N)
  expect_out "$name" "$want" "$@"
  if [ $(((end - start) / 1000000)) -le 5000 ]; then pass "$name: through the watch ($(((end - start) / 1000000)) ms)"
  else failx "$name: through the watch" "took $(((end - start) / 1000000)) ms"; fi
}

expect_out "an unlabelled namespace admits a privileged pod" '"allowed":true' pod
K label ns live pod-security.kubernetes.io/enforce=restricted >/dev/null
follows "the label set in the cluster makes the door deny it" 'violates PodSecurity \"restricted:latest\": privileged' pod
K label ns live pod-security.kubernetes.io/enforce- >/dev/null
follows "the label removed: admitted again" '"allowed":true' pod

expect_out "no policy yet: a two-key ConfigMap is admitted" '"allowed":true' cm
cat >"$W/vap.yaml" <<'Y'
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: one-key}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["configmaps"]}]
  validations:
  - expression: "!has(object.data) || object.data.size() <= 1"
    message: "at most one key"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: one-key}
spec:
  policyName: one-key
  validationActions: [Deny]
Y
K apply -f "$W/vap.yaml" >/dev/null
follows "a policy bound in the cluster denies in the door" \
  "ValidatingAdmissionPolicy 'one-key' with binding 'one-key' denied request: at most one key" cm
K delete validatingadmissionpolicybinding one-key >/dev/null
follows "the binding deleted: admitted again" '"allowed":true' cm

# a policy with params: the door watches its paramKind (ConfigMaps) too
cat >"$W/param.yaml" <<'Y'
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-keys}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["secrets"]}]
  validations:
  - expression: "!has(object.data) || object.data.size() <= int(params.data.max)"
    messageExpression: "'at most ' + params.data.max + ' keys'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: max-keys}
spec:
  policyName: max-keys
  validationActions: [Deny]
  paramRef: {name: limits, namespace: default, parameterNotFoundAction: Deny}
Y
SECRET='{"apiVersion":"v1","kind":"Secret","metadata":{"name":"x","namespace":"live"},"data":{"a":"MQ==","b":"Mg=="}}'
secret() { review Secret secrets live "$SECRET"; }
K apply -f "$W/param.yaml" >/dev/null
follows "the binding denies while its param is missing (parameterNotFoundAction Deny)" '"allowed":false' secret
K create configmap limits -n default --from-literal=max=3 >/dev/null
follows "the param created in the cluster (max 3) admits a two-key Secret" '"allowed":true' secret
K create configmap limits -n default --from-literal=max=1 --dry-run=client -o yaml | K apply -f - >/dev/null 2>&1
follows "the param changed in the cluster (max 1) denies it" "ValidatingAdmissionPolicy 'max-keys' with binding 'max-keys' denied request: at most 1 keys" secret

# the API server goes away and comes back: the door reconnects (backoff) and keeps following
stop_kgate
expect_eq "while the cluster is down the door still answers from its cache" "ok" \
  curl -sS --cacert "$W/certs/ca.crt" "https://127.0.0.1:$PORT/readyz"
start_serve || exit 1
K label ns live pod-security.kubernetes.io/enforce=baseline >/dev/null
for _ in $(seq 1 100); do pod | grep -q 'violates PodSecurity' && break; sleep 0.1; done
expect_out "after the restart the door follows the cluster again" 'violates PodSecurity \"baseline:latest\": privileged' pod

# kgate check --kubeconfig: the same context, read once
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: priv, namespace: live}\nspec:\n  containers: [{name: c, image: nginx, securityContext: {privileged: true}}]\n' >"$W/pod.yaml"
expect_out "kgate check with the cluster as context denies the pod" 'violates PodSecurity "baseline:latest"' \
  "$KGATE" check --kubeconfig "$KUBECONFIG" "$W/pod.yaml"
"$KGATE" check --kubeconfig "$KUBECONFIG" "$W/pod.yaml" >/dev/null 2>&1
expect_eq "and exits 1" "1" echo $?
"$KGATE" check "$W/pod.yaml" >"$W/nolive.out" 2>&1
expect_out "without it the namespace is unknown to kgate check" 'namespaces "live" not found' cat "$W/nolive.out"
finish
