#!/usr/bin/env bash
# ValidatingAdmissionPolicy through the real kubectl: a policy whose expression does not compile is rejected at write
# with the compiler's message; a policy with a Deny binding rejects a violating ConfigMap with upstream's message,
# a Warn binding answers with a warning, and changing or deleting the policy changes the verdict.
KGATE=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
trap 'stop_kgate; rm -rf "$W"' EXIT
K() { kubectl --request-timeout=20s "$@"; }
start_kgate "$W/data" || exit 1

cat >"$W/bad.yaml" <<'Y'
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: bad}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"]}]
  validations: [{expression: "object.("}]
Y
expect_out "an expression that does not compile is rejected at write" \
  'The ValidatingAdmissionPolicy "bad" is invalid: spec.validations[0].expression: Invalid value: "object.(": compilation failed: ERROR: <input>:1:8: Syntax error: no viable alternative at input '"'"'.('"'"'' \
  K create -f "$W/bad.yaml"

cat >"$W/p.yaml" <<'Y'
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: small-configmaps}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["configmaps"]}]
  validations:
  - expression: "!has(object.data) || object.data.size() <= 1"
    messageExpression: "'too many keys: ' + string(object.data.size())"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: small-configmaps-deny}
spec:
  policyName: small-configmaps
  validationActions: [Deny]
  matchResources:
    namespaceSelector: {matchLabels: {policy: "on"}}
Y
expect_out "policy and binding created" "validatingadmissionpolicybinding.admissionregistration.k8s.io/small-configmaps-deny created" K apply -f "$W/p.yaml"
expect_eq "failurePolicy defaulted" "Fail" K get validatingadmissionpolicy small-configmaps -o jsonpath='{.spec.failurePolicy}'
K create namespace guarded >/dev/null
K label namespace guarded policy=on >/dev/null
K create namespace free >/dev/null
sleep 0.5 # the plugin's watch sees the new objects
expect_out "a violating ConfigMap is denied with upstream's message" \
  'error: failed to create configmap: configmaps "c1" is forbidden: ValidatingAdmissionPolicy '"'"'small-configmaps'"'"' with binding '"'"'small-configmaps-deny'"'"' denied request: too many keys: 2' \
  K -n guarded create configmap c1 --from-literal=a=1 --from-literal=b=2
expect_out "a conforming ConfigMap is created" "configmap/c2 created" K -n guarded create configmap c2 --from-literal=a=1
expect_out "the binding's namespaceSelector leaves other namespaces alone" "configmap/c3 created" \
  K -n free create configmap c3 --from-literal=a=1 --from-literal=b=2

# Warn instead of Deny: allowed, with the warning
K patch validatingadmissionpolicybinding small-configmaps-deny --type=merge -p '{"spec":{"validationActions":["Warn"]}}' >/dev/null
sleep 0.5
expect_out "a Warn binding lets the request through with a warning" \
  "Warning: Validation failed for ValidatingAdmissionPolicy 'small-configmaps' with binding 'small-configmaps-deny': too many keys: 2" \
  K -n guarded create configmap c4 --from-literal=a=1 --from-literal=b=2

# Deny again, then delete the policy: allowed
K patch validatingadmissionpolicybinding small-configmaps-deny --type=merge -p '{"spec":{"validationActions":["Deny"]}}' >/dev/null
sleep 0.5
expect_out "Deny again" "denied request: too many keys: 2" K -n guarded create configmap c5 --from-literal=a=1 --from-literal=b=2
K delete validatingadmissionpolicy small-configmaps >/dev/null
sleep 0.5
expect_out "without the policy the binding does nothing" "configmap/c5 created" K -n guarded create configmap c5 --from-literal=a=1 --from-literal=b=2

# params: a ConfigMap per namespace sets the limit (paramKind resolved from the served kinds)
cat >"$W/pp.yaml" <<'Y'
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-keys}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["secrets"]}]
  validations:
  - expression: "!has(object.data) || object.data.size() <= int(params.data.max)"
    messageExpression: "'at most ' + params.data.max + ' keys'"
    reason: Forbidden
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: max-keys}
spec:
  policyName: max-keys
  validationActions: [Deny]
  paramRef: {name: limits, parameterNotFoundAction: Deny}
Y
K apply -f "$W/pp.yaml" >/dev/null
K -n guarded create configmap limits --from-literal=max=1 >/dev/null
sleep 0.5
expect_out "the param's limit applies (Forbidden)" \
  'secrets "s1" is forbidden: ValidatingAdmissionPolicy '"'"'max-keys'"'"' with binding '"'"'max-keys'"'"' denied request: at most 1 keys' \
  K -n guarded create secret generic s1 --from-literal=a=1 --from-literal=b=2
expect_out "within the limit" "secret/s2 created" K -n guarded create secret generic s2 --from-literal=a=1
expect_out "no param in the namespace: parameterNotFoundAction Deny" \
  'denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction' \
  K -n free create secret generic s3 --from-literal=a=1
TOKEN=$(awk '/token:/ {print $2}' "$W/data/admin.kubeconfig")
URL=$(awk '/server:/ {print $2}' "$W/data/admin.kubeconfig")
expect_out "policy metrics on /metrics" \
  'apiserver_validating_admission_policy_check_total{enforcement_action="deny",error_type="invalid_error",policy="max-keys",policy_binding="max-keys"} 1' \
  bash -c "curl -sk -H 'Authorization: Bearer $TOKEN' $URL/metrics | grep validating_admission_policy"

finish
