#!/usr/bin/env bash
# kgate webhook behind kgate serve, through the real kubectl: serve's ValidatingWebhookConfiguration (caBundle = the
# CA the door generated) sends pods of namespace "hooked" to `kgate webhook`, whose policy dir labels that namespace
# enforce=restricted. A privileged pod is denied there with the very PodSecurity message serve's in-process plugin
# gives in a namespace labelled the same way in serve (behind the webhook prefix upstream adds), a compliant pod is
# admitted, and the door's /metrics shows the chain ran.
KGATE=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
DOOR_PID=""
trap 'stop_kgate; [ -n "$DOOR_PID" ] && kill "$DOOR_PID" 2>/dev/null; rm -rf "$W"' EXIT
K() { kubectl --request-timeout=20s "$@"; }

mkdir -p "$W/policies"
cat >"$W/policies/ns.yaml" <<'Y'
apiVersion: v1
kind: Namespace
metadata:
  name: hooked
  labels: {pod-security.kubernetes.io/enforce: restricted}
Y
"$KGATE" webhook --secure-port 0 --bind-address 127.0.0.1 --policy-dir "$W/policies" --cert-dir "$W/certs" \
  >"$W/door.out" 2>"$W/door.log" &
DOOR_PID=$!
PORT=""
for _ in $(seq 1 200); do
  PORT=$(sed -n 's|.*https://127.0.0.1:\([0-9]*\) .*|\1|p' "$W/door.out" 2>/dev/null)
  [ -n "$PORT" ] && break
  kill -0 "$DOOR_PID" 2>/dev/null || { echo "kgate webhook exited:"; cat "$W/door.log"; exit 1; }
  sleep 0.05
done
[ -n "$PORT" ] || { echo "kgate webhook did not start"; cat "$W/door.log"; exit 1; }
expect_eq "the door is ready" "ok" curl -sS --cacert "$W/certs/ca.crt" "https://127.0.0.1:$PORT/readyz"
CA=$(base64 -w0 <"$W/certs/ca.crt")

start_kgate "$W/data" || exit 1
K create namespace hooked >/dev/null
K create namespace psa >/dev/null
K label ns psa pod-security.kubernetes.io/enforce=restricted >/dev/null
# the configuration `kgate webhook manifest` prints for this door (failurePolicy Fail, every resource for the
# policies, kube-system and the door's own namespace excluded)
"$KGATE" webhook manifest --url "https://127.0.0.1:$PORT" --cert-dir "$W/certs" --namespace kgate-door >"$W/vwc.yaml"
expect_out "the manifest names the door's URL" "url: \"https://127.0.0.1:$PORT/validate\"" cat "$W/vwc.yaml"
expect_out "the manifest excludes kube-system and the door's namespace" 'values: [kube-system, kube-node-lease, "kgate-door"]' cat "$W/vwc.yaml"
expect_out "the manifest carries the door's CA" "caBundle: $CA" cat "$W/vwc.yaml"
expect_out "webhook configuration created" "validatingwebhookconfiguration.admissionregistration.k8s.io/kgate created" \
  K apply -f "$W/vwc.yaml"

priv() { printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: priv, namespace: %s}\nspec:\n  containers: [{name: c, image: "nginx:1.25", securityContext: {privileged: true}}]\n' "$1"; }
priv hooked >"$W/priv-hooked.yaml"
priv psa >"$W/priv-psa.yaml"
for _ in $(seq 1 50); do # the configuration reaches the webhook plugin through the watch
  K create --dry-run=server -f "$W/priv-hooked.yaml" 2>&1 | grep -q "denied the request" && break
  sleep 0.1
done
MSG='pods "priv" is forbidden: violates PodSecurity "restricted:latest": privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")'
expect_out "in-process PodSecurity denies the privileged pod" "$MSG" K create -f "$W/priv-psa.yaml"
expect_out "kgate webhook denies it with the same message" \
  "admission webhook \"validate.kgate.dev\" denied the request: $MSG" K create -f "$W/priv-hooked.yaml"
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: ok, namespace: hooked}\nspec:\n  securityContext: {runAsNonRoot: true, seccompProfile: {type: RuntimeDefault}}\n  containers: [{name: c, image: "nginx:1.25", securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}}]\n' >"$W/ok.yaml"
expect_out "kgate webhook admits a compliant pod" "pod/ok created" K create -f "$W/ok.yaml"
expect_out "the door's metrics show its chain ran" 'apiserver_admission_controller_admission_duration_seconds_count{name="PodSecurity"' \
  curl -sS --cacert "$W/certs/ca.crt" "https://127.0.0.1:$PORT/metrics"
finish
