#!/usr/bin/env bash
# Bad input gets a clear Status error, persists nothing, and the server keeps serving.
KGATE=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
trap 'stop_kgate; rm -rf "$W"' EXIT
start_kgate "$W/data" || exit 1
TOKEN=$(awk '/token:/ {print $2}' "$W/data/admin.kubeconfig")
URL=$(awk '/server:/ {print $2}' "$W/data/admin.kubeconfig")

# req METHOD PATH CONTENT-TYPE BODY -> prints "<code> <body>"
req() {
  local ct=${3:-application/json}
  curl -sk -o "$W/body" -w '%{http_code}' -X "$1" -H "Authorization: Bearer $TOKEN" -H "Content-Type: $ct" \
    ${4+--data-binary "$4"} "$URL$2"
  printf ' '
  cat "$W/body"
}
POD='{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x:1"}]}}'

expect_out "malformed JSON: 400 with the parser's message" '400 {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"couldn'"'"'t get version/kind; json parse error: unexpected end of JSON input","reason":"BadRequest","code":400}' \
  req POST /api/v1/namespaces/default/pods application/json '{"apiVersion":"v1","kind":"Pod",'
expect_out "malformed YAML: 400" '"reason":"BadRequest","code":400' req POST /api/v1/namespaces/default/pods application/yaml $'kind: Pod\n  bad: [1,'
expect_out "apiVersion not matching the URL: 400" 'the API version in the data (apps/v1) does not match the expected API version (v1)' \
  req POST /api/v1/namespaces/default/pods application/json '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"}}'
expect_out "kind not matching the URL: 400" 'the kind in the data (Service) does not match the expected kind (Pod)' \
  req POST /api/v1/namespaces/default/pods application/json '{"apiVersion":"v1","kind":"Service","metadata":{"name":"d"}}'
expect_out "kind of a number: 400" "couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string" req POST /api/v1/namespaces/default/pods application/json '{"apiVersion":"v1","kind":1,"metadata":{"name":"d"}}'
expect_out "invalid name: 422 with causes" '"reason":"Invalid","details":{"name":"UPPER","kind":"Pod","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: \"UPPER\": a lowercase RFC 1123 subdomain must consist of' \
  req POST /api/v1/namespaces/default/pods application/json "${POD/\"name\":\"p\"/\"name\":\"UPPER\"}"
expect_out "name too long: 422" 'must be no more than 253 characters' \
  req POST /api/v1/namespaces/default/configmaps application/json "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"$(printf 'a%.0s' $(seq 1 300))\"}}"
expect_out "namespace in body differs from the URL: 400" 'the namespace of the provided object does not match the namespace sent on the request' \
  req POST /api/v1/namespaces/default/pods application/json "${POD/\"name\":\"p\"/\"name\":\"p\",\"namespace\":\"other\"}"
expect_out "unknown namespace: 404" '404 {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"namespaces \"nope\" not found","reason":"NotFound","details":{"name":"nope","kind":"namespaces"},"code":404}' \
  req POST /api/v1/namespaces/nope/pods application/json "$POD"
expect_out "unknown resource: 404" '404 {"kind":"Status"' req GET /api/v1/namespaces/default/widgets
expect_out "unknown group: 404" '404 {"kind":"Status"' req GET /apis/nope.example.com/v1/things
expect_out "protobuf-less media type: 415" '415 {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the body of the request was in an unknown format - accepted media types include:' \
  req POST /api/v1/namespaces/default/pods text/plain "$POD"
head -c $((3 * 1024 * 1024 + 1)) /dev/zero | tr '\0' 'a' >"$W/big"
expect_out "body over 3 MiB: 413" '413 {"kind":"Status"' req POST /api/v1/namespaces/default/configmaps application/json "@$W/big"
expect_out "create works after bad input" '201 {"apiVersion":"v1","kind":"Pod"' req POST /api/v1/namespaces/default/pods application/json "$POD"
expect_out "invalid merge patch body: 400" '400 {"kind":"Status"' req PATCH /api/v1/namespaces/default/pods/p application/merge-patch+json '{"metadata":'
expect_out "JSON patch on a missing path: 422" '422 {"kind":"Status"' req PATCH /api/v1/namespaces/default/pods/p application/json-patch+json '[{"op":"replace","path":"/spec/nope/x","value":1}]'
expect_out "unsupported patch type: 415" '415 {"kind":"Status"' req PATCH /api/v1/namespaces/default/pods/p text/plain '{}'
RV=$(curl -sk -H "Authorization: Bearer $TOKEN" "$URL/api/v1/namespaces/default/pods/p" | sed -E 's/.*"resourceVersion":"([0-9]+)".*/\1/')
# a read-modify-write as clients do it (the server added fields such as the service account volume)
curl -sk -H "Authorization: Bearer $TOKEN" "$URL/api/v1/namespaces/default/pods/p" >"$W/p.json"
podrv() { sed -e "s/\"resourceVersion\":\"[0-9]*\"/\"resourceVersion\":\"$1\"/" -e "s/\"metadata\":{/\"metadata\":{\"labels\":{\"a\":\"$2\"},/" "$W/p.json"; }
expect_out "update with the current resourceVersion: 200" '200 {"apiVersion":"v1","kind":"Pod"' req PUT /api/v1/namespaces/default/pods/p application/json "$(podrv "$RV" 1)"
expect_out "stale resourceVersion: 409 Conflict" '409 {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on pods \"p\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"p","kind":"pods"},"code":409}' \
  req PUT /api/v1/namespaces/default/pods/p application/json "$(podrv "$RV" 2)"
expect_out "URL name and body name differ: 400" 'the name of the object (q) does not match the name on the URL (p)' \
  req PUT /api/v1/namespaces/default/pods/p application/json "${POD/\"name\":\"p\"/\"name\":\"q\"}"
expect_out "bad dryRun value: 400" '400 {"kind":"Status"' req POST '/api/v1/namespaces/default/pods?dryRun=Some' application/json "$POD"
expect_out "bad fieldValidation value: 400" 'fieldValidation must be one of' req POST '/api/v1/namespaces/default/pods?fieldValidation=Loose' application/json "$POD"
expect_out "duplicate field with fieldValidation=Strict: 400" 'ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: duplicate field \"metadata.name\"' \
  req POST '/api/v1/namespaces/default/configmaps?fieldValidation=Strict' application/json '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","name":"b"}}'
expect_out "delete precondition on uid: 409" 'Precondition failed: UID in precondition: nope' \
  req DELETE /api/v1/namespaces/default/pods/p application/json '{"preconditions":{"uid":"nope"}}'
expect_out "no token, anonymous: 403 with the upstream message" 'pods is forbidden: User \"system:anonymous\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\"' \
  curl -sk "$URL/api/v1/namespaces/default/pods"
expect_out "bad token: 401" '"reason":"Unauthorized","code":401' curl -sk -H "Authorization: Bearer nope" "$URL/api/v1/namespaces/default/pods"
expect_eq "nothing from the bad requests was persisted" "p" bash -c "curl -sk -H 'Authorization: Bearer $TOKEN' '$URL/api/v1/namespaces/default/pods' | grep -o '\"name\":\"[a-zA-Z]*\"' | sort -u | sed 's/\"name\":\"//; s/\"//' | grep -v '^c$' | tr '\n' ' ' | sed 's/ $//'"
expect_out "still serving" "ok" curl -sk -H "Authorization: Bearer $TOKEN" "$URL/readyz"
finish
