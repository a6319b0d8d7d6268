#!/usr/bin/env bash
# ValidatingAdmissionPolicy status through the real kubectl: the status controller type-checks a policy against the
# schema of the kinds it matches and reports a misspelt field in status.typeChecking.expressionWarnings (upstream's
# text) with status.observedGeneration, updates it when the spec changes, reports a paramKind that is not served in
# a condition; the status subresource changes only the status.
KGATE=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
trap 'stop_kgate; rm -rf "$W"' EXIT
K() { kubectl --request-timeout=20s "$@"; }
start_kgate "$W/data" || exit 1

# wait_for NAME JSONPATH: until the jsonpath of policy NAME is non-empty (at most ~2 s)
wait_for() {
  for _ in $(seq 1 40); do
    [ -n "$(K get validatingadmissionpolicy "$1" -o jsonpath="$2" 2>/dev/null)" ] && return 0
    sleep 0.05
  done
  return 1
}

cat >"$W/typo.yaml" <<'Y'
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: typo}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"]}]
  validations:
  - expression: "object.spec.replicas <= 5"
  - expression: "object.spec.replicaz <= 5"
Y
# a watch (started first) timestamps the creation and the status write, without kubectl's start-up in between
kubectl --request-timeout=20s get validatingadmissionpolicies --watch \
  -o jsonpath='{.metadata.name} {.status.observedGeneration}{"\n"}' \
  > >(while IFS= read -r l; do echo "$(date +%s%N) $l"; done >"$W/watch.log") &
WATCH=$!
sleep 0.5
K create -f "$W/typo.yaml" >/dev/null
wait_for typo '{.status.observedGeneration}'
sleep 0.2
kill $WATCH 2>/dev/null
wait $WATCH 2>/dev/null
CREATED=$(awk '$2 == "typo" && NF == 2 {print $1; exit}' "$W/watch.log")
WRITTEN=$(awk '$2 == "typo" && $3 == "1" {print $1; exit}' "$W/watch.log")
if [ -n "$CREATED" ] && [ -n "$WRITTEN" ] && [ $(((WRITTEN - CREATED) / 1000000)) -lt 1000 ]; then
  pass "status written within a second ($(((WRITTEN - CREATED) / 1000000)) ms)"
else failx "status written within a second" "$(cat "$W/watch.log")"; fi
expect_eq "observedGeneration" "1" K get validatingadmissionpolicy typo -o jsonpath='{.status.observedGeneration}'
expect_eq "the misspelt field's warning names the expression" "spec.validations[1].expression" \
  K get validatingadmissionpolicy typo -o jsonpath='{.status.typeChecking.expressionWarnings[*].fieldRef}'
expect_out "upstream's warning text" "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicaz'" \
  K get validatingadmissionpolicy typo -o jsonpath='{.status.typeChecking.expressionWarnings[0].warning}'

# fix the typo: generation 2, no warnings
K patch validatingadmissionpolicy typo --type=json -p '[{"op":"replace","path":"/spec/validations/1/expression","value":"object.spec.replicas >= 1"}]' >/dev/null
for _ in $(seq 1 40); do
  [ "$(K get validatingadmissionpolicy typo -o jsonpath='{.status.observedGeneration}')" = 2 ] && break
  sleep 0.05
done
expect_eq "a spec change is type-checked again" "2|" \
  K get validatingadmissionpolicy typo -o jsonpath='{.status.observedGeneration}|{.status.typeChecking.expressionWarnings}'

# the status subresource writes the status only; the main resource ignores status
expect_out "status subresource served" "validatingadmissionpolicy.admissionregistration.k8s.io/typo patched" \
  K patch validatingadmissionpolicy typo --subresource=status --type=merge -p '{"spec":{"failurePolicy":"Ignore"},"status":{"conditions":[{"type":"Checked","status":"True","reason":"Manual","message":"m","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}'
expect_eq "...and changed only the status" "Fail|Checked|2" \
  K get validatingadmissionpolicy typo -o jsonpath='{.spec.failurePolicy}|{.status.conditions[0].type}|{.metadata.generation}'
K patch validatingadmissionpolicy typo --type=merge -p '{"status":{"observedGeneration":9}}' >/dev/null
expect_eq "the main resource does not write status" "2" K get validatingadmissionpolicy typo -o jsonpath='{.status.observedGeneration}'

# a paramKind that is not served
cat >"$W/param.yaml" <<'Y'
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: unknown-param}
spec:
  paramKind: {apiVersion: example.com/v1, kind: ReplicaLimit}
  matchConstraints:
    resourceRules: [{apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"]}]
  validations:
  - expression: "object.spec.replicas <= params.max"
Y
K create -f "$W/param.yaml" >/dev/null
wait_for unknown-param '{.status.observedGeneration}'
expect_eq "an unknown paramKind is a condition" \
  "ParamKindResolved|False|ParamKindNotFound|failed to find resource referenced by paramKind: 'example.com/v1, Kind=ReplicaLimit'" \
  K get validatingadmissionpolicy unknown-param -o jsonpath='{.status.conditions[0].type}|{.status.conditions[0].status}|{.status.conditions[0].reason}|{.status.conditions[0].message}'
expect_out "...and params is undeclared for the type checker, as upstream" "undeclared reference to 'params'" \
  K get validatingadmissionpolicy unknown-param -o jsonpath='{.status.typeChecking.expressionWarnings[0].warning}'

# beyond upstream: rules that match no served resource are stored, with a Warning
cat >"$W/nomatch.yaml" <<'Y'
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: nomatch}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deploymentz"]}]
  validations: [{expression: "true"}]
Y
expect_out "a policy matching nothing served gets a Warning" \
  'Warning: spec.matchConstraints.resourceRules: no resource served by this server matches these rules (resources that match nothing: "deploymentz"); this policy will never be evaluated' \
  K create -f "$W/nomatch.yaml"
expect_not "...and a policy matching something does not" "Warning" K create -f "$W/param.yaml" --dry-run=server
finish
