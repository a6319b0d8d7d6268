#!/usr/bin/env bash
# CustomResourceDefinitions through the real kubectl: apply + wait Established + get at once, discovery and
# categories, explain (OpenAPI v3), pruning (Strict rejects unknown fields, Warn warns), schema defaults, OpenAPI
# validation and CEL rule messages, printer columns, status and scale subresources, field selectors, 415 for
# strategic merge, CRD validation errors, and deleting the CRD deleting its objects. kubectl where the workflow is
# kubectl's (apply, wait, get, explain, delete), curl for the rest (each kubectl start costs ~1 s on a loaded machine).
KGATE=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
trap 'stop_kgate; [ -n "${KEEP_LOG:-}" ] && cp "$W/data/serve.log" "$KEEP_LOG"; rm -rf "$W"' EXIT
D=$(dirname "$0")/testdata/crd
start_kgate "$W/data" || exit 1
TOKEN=$(awk '/token:/ {print $2}' "$W/data/admin.kubeconfig")
URL=$(awk '/server:/ {print $2}' "$W/data/admin.kubeconfig")
H=(-sk -H "Authorization: Bearer $TOKEN")
CT="$URL/apis/stable.example.com/v1/namespaces/default/crontabs"
# req METHOD URL [BODY [CONTENT-TYPE]]: the response body (and headers with -i in $CURL_EXTRA)
req() { curl "${H[@]}" ${CURL_EXTRA:-} -X "$1" -H "Content-Type: ${4:-application/json}" "$2" ${3:+-d "$3"}; }
ct() { printf '{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"%s"},"spec":%s}' "$1" "$2"; }

expect_out "kubectl apply of a CRD" "customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created" \
  kubectl apply -f "$D/crontab-crd.yaml"
expect_out "Established" "condition met" kubectl wait --for condition=established crd/crontabs.stable.example.com --timeout=10s
expect_out "the resource is served right away" "No resources found" kubectl get crontabs
expect_out "kubectl explain reads the CRD schema (OpenAPI v3)" "cronSpec	<string>" kubectl explain crontab.spec
expect_out "discovery: short name and category" '"shortNames":["ct"],"categories":["all"]' \
  req GET "$URL/apis/stable.example.com/v1"
expect_out "conditions" '"reason":"NoConflicts"' req GET "$URL/apis/apiextensions.k8s.io/v1/customresourcedefinitions/crontabs.stable.example.com"
expect_out "OpenAPI v2 as protobuf only: 406 (kubectl then falls back to JSON)" '"code":406' \
  curl "${H[@]}" -H 'Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf' "$URL/openapi/v2"

cat >"$W/bogus.yaml" <<'Y'
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: bogus}
spec: {cronSpec: "* * * * *", bogus: 1}
Y
expect_out "kubectl apply: unknown fields are a 400 (Strict)" 'strict decoding error: unknown field "spec.bogus"' \
  kubectl apply -f "$W/bogus.yaml"
CURL_EXTRA=-i expect_out "Warn: unknown fields pruned with a warning" 'Warning: 299 - "unknown field \"spec.bogus\""' \
  req POST "$CT?fieldValidation=Warn" "$(ct bogus '{"cronSpec":"* * * * *","bogus":1}')"
expect_out "pruned and defaulted as stored" '"spec":{"cronSpec":"* * * * *","mode":"fast","replicas":1}' req GET "$CT/bogus"

out=$(req POST "$CT" "$(ct bad '{"cronSpec":"nope","replicas":15,"image":3,"mode":"turbo"}')")
for want in \
  "spec.cronSpec: Invalid value: \\\"nope\\\": spec.cronSpec in body should match '^(\\\\d+|\\\\*)(/\\\\d+)?(\\\\s+(\\\\d+|\\\\*)(/\\\\d+)?){4}\$'" \
  'spec.image: Invalid value: \"integer\": spec.image in body must be of type string: \"integer\"' \
  'spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10' \
  'spec.mode: Unsupported value: \"turbo\": supported values: \"fast\", \"slow\"' \
  '"field":"\u003cnil\u003e"' \
  'Invalid value: \"null\": some validation rules were not checked because the object was invalid'; do
  if printf '%s' "$out" | grep -qF -- "$want"; then pass "OpenAPI validation: ${want%%:*}"; else failx "OpenAPI validation: ${want%%:*}" "want: $want | got: $out"; fi
done
expect_out "CEL rule with its message" 'CronTab.stable.example.com \"big\" is invalid: spec: Invalid value: \"object\": more than 5 replicas need mode slow' \
  req POST "$CT" "$(ct big '{"cronSpec":"* * * * *","replicas":7}')"
expect_out "list-type set duplicates" 'spec.tags[2]: Duplicate value: \"a\"' \
  req POST "$CT" "$(ct big '{"cronSpec":"* * * * *","replicas":7,"mode":"slow","tags":["a","b","a"]}')"
expect_out "a valid CR" '"name":"big"' \
  req POST "$CT" "$(ct big '{"cronSpec":"* * * * *","replicas":7,"mode":"slow","tags":["a","b"],"image":"busybox"}')"
expect_out "printer columns (kubectl get)" "big     * * * * *   7" kubectl get ct
expect_out "strategic merge patch: 415" "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml" \
  req PATCH "$CT/big" '{"spec":{"replicas":3}}' application/strategic-merge-patch+json
expect_out "merge patch; spec changes bump the generation" '"generation":2' \
  req PATCH "$CT/big" '{"spec":{"replicas":3}}' application/merge-patch+json
expect_out "scale subresource: autoscaling/v1 Scale" '"kind":"Scale","apiVersion":"autoscaling/v1"' \
  req PATCH "$CT/big/scale" '{"spec":{"replicas":4}}' application/merge-patch+json
expect_out "scale writes specReplicasPath" '"replicas":4' req GET "$CT/big"
req PATCH "$CT/big/status" '{"status":{"replicas":4},"spec":{"replicas":9}}' application/merge-patch+json >/dev/null
expect_out "status subresource: status written, spec ignored" '"replicas":4,"mode":"slow","tags":["a","b"],"image":"busybox"},"status":{"replicas":4}' \
  req GET "$CT/big"
expect_out "scale reads statusReplicasPath" '"status":{"replicas":4}' req GET "$CT/big/scale"
req PATCH "$CT/big" '{"status":{"replicas":1}}' application/merge-patch+json >/dev/null
expect_out "main resource: status ignored" '"status":{"replicas":4}' req GET "$CT/big"
expect_out "selectable field" '"name":"big"' req GET "$CT?fieldSelector=spec.image%3Dbusybox"
expect_out "other fields are not selectable" "field label not supported: spec.cronSpec" \
  req GET "$CT?fieldSelector=spec.cronSpec%3Dx"

cat >"$W/badcrd.yaml" <<'Y'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.stable.example.com}
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: widgets, kind: Widget, shortNames: [ct]}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations: [{rule: "self.x == true +"}, {rule: "self.nope == 1"}]
            properties:
              x: {type: boolean}
              l: {type: array}
Y
out=$(req POST "$URL/apis/apiextensions.k8s.io/v1/customresourcedefinitions" "$(cat "$W/badcrd.yaml")" application/yaml)
for want in 'spec.validation.openAPIV3Schema.properties[spec].properties[l].items: Required value: must be specified' \
  'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:\"self.x == true +\"' \
  "x-kubernetes-validations[1].rule: Invalid value: apiextensions.ValidationRule{Rule:\\\"self.nope == 1\\\", Message:\\\"\\\", MessageExpression:\\\"\\\", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:\\\"\\\", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: " \
  "1:5: undefined field 'nope'"; do
  if printf '%s' "$out" | grep -qF -- "$want"; then pass "CRD validation: ${want:0:60}"; else failx "CRD validation" "want: $want | got: $out"; fi
done
expect_out "a short name in use: NamesAccepted=False" '\"ct\" is already in use' \
  req POST "$URL/apis/apiextensions.k8s.io/v1/customresourcedefinitions" \
  '{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.stable.example.com"},"spec":{"group":"stable.example.com","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget","shortNames":["ct"]},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}'

req POST "$URL/api/v1/namespaces" '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"other"}}' >/dev/null
req POST "$URL/apis/stable.example.com/v1/namespaces/other/crontabs" "$(ct far '{"cronSpec":"* * * * *"}')" >/dev/null
expect_out "deleting the CRD (kubectl waits for it)" "deleted" kubectl delete crd crontabs.stable.example.com --timeout=15s
expect_out "its objects are gone" '"code":404' req GET "$URL/apis/stable.example.com/v1/namespaces/other/crontabs/far"
kubectl apply -f "$D/crontab-crd.yaml" >/dev/null
for _ in $(seq 1 100); do req GET "$CT" | grep -q '"kind":"CronTabList"' && break; sleep 0.05; done
expect_out "a re-created CRD starts empty" '"items":[]' req GET "$URL/apis/stable.example.com/v1/crontabs"
finish
