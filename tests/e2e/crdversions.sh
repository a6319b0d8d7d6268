#!/usr/bin/env bash
# Custom resources across versions and server-side apply by the CRD schema (issue 19 points 1 and 2): a two-version
# CRD with conversion None — written through v1, read, listed, watched and tabled through v2 with the apiVersion
# rewritten; validation by the schema of the version written; a version with served: false is a 404; storedVersions
# growing when the storage version changes — then apply to a listType=map list by two managers (each owns its
# entry, a conflict with upstream's text, --force-conflicts moving ownership) and apply to /scale of a custom
# resource and of a Deployment (managedFields on the parent owning the replicas path, conflicts, force).
KGATE=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
trap 'stop_kgate; [ -n "${KEEP_LOG:-}" ] && cp "$W/data/serve.log" "$KEEP_LOG"; rm -rf "$W"' EXIT
D=$(dirname "$0")/testdata/crdversions
K() { kubectl --request-timeout=20s "$@"; }
start_kgate "$W/data" || exit 1
TOKEN=$(awk '/token:/ {print $2}' "$W/data/admin.kubeconfig")
URL=$(awk '/server:/ {print $2}' "$W/data/admin.kubeconfig")
H=(-sk -H "Authorization: Bearer $TOKEN")
G="$URL/apis/ver.example.com"
req() { curl "${H[@]}" -X "$1" -H "Content-Type: ${4:-application/json}" "$2" ${3:+--data-binary "$3"}; }
# jget URL PY-EXPR: a Python expression over the JSON answer `o` (fewer kubectl starts: each costs ~1 s when loaded)
jget() { curl "${H[@]}" "$1" | python3 -c "import json,sys; o=json.load(sys.stdin); print($2)"; }
MF='";".join("%s/%s/%s/%s %s" % (e["manager"], e["operation"], e.get("subresource", ""), e["apiVersion"], json.dumps(e["fieldsV1"], separators=(",", ":"))) for e in o["metadata"]["managedFields"])'
widget() { printf '{"apiVersion":"ver.example.com/%s","kind":"Widget","metadata":{"name":"%s"},"spec":%s}' "$1" "$2" "$3"; }

expect_out "the two-version CRD" "created" K apply -f "$D/widget-crd.yaml"
for _ in $(seq 1 100); do
  [ "$(curl "${H[@]}" -o /dev/null -w '%{http_code}' "$G/v2/namespaces/default/widgets")" = 200 ] && break; sleep 0.02
done

# --- conversion None: one set of objects, the requested apiVersion in every answer ---
expect_out "create through v1" '"apiVersion":"ver.example.com/v1"' \
  req POST "$G/v1/namespaces/default/widgets" "$(widget v1 w1 '{"size":3,"replicas":1}')"
expect_out "get through v2: apiVersion rewritten" '"apiVersion":"ver.example.com/v2","kind":"Widget"' \
  req GET "$G/v2/namespaces/default/widgets/w1"
out=$(req GET "$G/v2/namespaces/default/widgets")
if printf '%s' "$out" | grep -q '"kind":"WidgetList","apiVersion":"ver.example.com/v2"' &&
  printf '%s' "$out" | grep -q '"items":\[{"apiVersion":"ver.example.com/v2"'; then
  pass "list through v2: the list and its items are v2"
else failx "list through v2" "$out"; fi
expect_out "create through v2 answers v2" '"apiVersion":"ver.example.com/v2"' \
  req POST "$G/v2/namespaces/default/widgets" "$(widget v2 w2 '{"size":2,"replicas":1}')"
expect_out "... and is the same object through v1" '"apiVersion":"ver.example.com/v1","kind":"Widget","metadata":{"resourceVersion"' \
  req GET "$G/v1/namespaces/default/widgets/w2"
expect_out "merge patch through v2 answers v2" '"apiVersion":"ver.example.com/v2"' \
  req PATCH "$G/v2/namespaces/default/widgets/w1" '{"spec":{"size":4}}' application/merge-patch+json
expect_out "... seen through v1" '"size":4' req GET "$G/v1/namespaces/default/widgets/w1"
expect_out "table through v2 (includeObject): the object is v2" '"apiVersion":"ver.example.com/v2","kind":"Widget"' \
  curl "${H[@]}" -H 'Accept: application/json;as=Table;v=v1;g=meta.k8s.io' "$G/v2/namespaces/default/widgets/w1?includeObject=Object"
expect_out "kubectl get through v2 (printer columns)" "w1     4" K get widgets.v2.ver.example.com w1

# watch through v2 while writing through v1
curl "${H[@]}" -N "$G/v2/namespaces/default/widgets?watch=1&timeoutSeconds=3&resourceVersion=0" >"$W/watch.out" 2>/dev/null &
WPID=$!
for _ in $(seq 1 40); do grep -q '"name":"w2"' "$W/watch.out" 2>/dev/null && break; sleep 0.05; done
req POST "$G/v1/namespaces/default/widgets" "$(widget v1 w3 '{"size":1}')" >/dev/null
for _ in $(seq 1 60); do grep -q '"name":"w3"' "$W/watch.out" 2>/dev/null && break; sleep 0.05; done
kill "$WPID" 2>/dev/null; wait "$WPID" 2>/dev/null
if grep -qE '\{"type":"ADDED","object":\{"apiVersion":"ver.example.com/v2","kind":"Widget","metadata":\{"resourceVersion":"[0-9]+","name":"w3"' "$W/watch.out" &&
  ! grep -q '"object":{"apiVersion":"ver.example.com/v1"' "$W/watch.out"; then
  pass "watch through v2: events written through v1 arrive as v2"
else failx "watch through v2" "$(cat "$W/watch.out")"; fi

# validation by the schema of the version written (v2 caps size at 5, v1 at 10)
expect_out "v2 validates with v2's schema" 'spec.size: Invalid value: 7: spec.size in body should be less than or equal to 5' \
  req POST "$G/v2/namespaces/default/widgets" "$(widget v2 big '{"size":7}')"
expect_out "v1 validates with v1's schema" '"size":7' \
  req POST "$G/v1/namespaces/default/widgets" "$(widget v1 big '{"size":7}')"
expect_out "a version with served: false is a 404" "404" \
  curl "${H[@]}" -o /dev/null -w '%{http_code}' "$G/v3/namespaces/default/widgets"
CRD="$URL/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.ver.example.com"
expect_eq "storedVersions: the storage version" "['v1']" jget "$CRD" 'o["status"]["storedVersions"]'
# v2 becomes the storage version: storedVersions grows, objects written now are stored as v2 and still read as v1
req PATCH "$CRD" '[{"op":"replace","path":"/spec/versions/0/storage","value":false},{"op":"replace","path":"/spec/versions/1/storage","value":true}]' \
  application/json-patch+json >/dev/null
expect_eq "storedVersions gains the new storage version" "['v1', 'v2']" jget "$CRD" 'o["status"]["storedVersions"]'
for _ in $(seq 1 40); do
  req POST "$G/v1/namespaces/default/widgets" "$(widget v1 w4 '{"size":1}')" >/dev/null
  [ "$(jget "$G/v1/namespaces/default/widgets/w4" 'o["apiVersion"]')" = ver.example.com/v1 ] && break; sleep 0.05
done
expect_out "stored as v2, read through v1 as v1" '"apiVersion":"ver.example.com/v1"' req GET "$G/v1/namespaces/default/widgets/w4"

# --- server-side apply by the CRD schema: a listType=map list shared by two managers ---
cat >"$W/a.yaml" <<'Y'
apiVersion: ver.example.com/v2
kind: Widget
metadata: {name: sa}
spec:
  size: 1
  ports: [{name: http, port: 80}]
Y
cat >"$W/b.yaml" <<'Y'
apiVersion: ver.example.com/v2
kind: Widget
metadata: {name: sa}
spec:
  ports: [{name: https, port: 443}]
Y
expect_out "manager a applies (through v2)" "widget.ver.example.com/sa serverside-applied" K apply --server-side --field-manager=a -f "$W/a.yaml"
expect_out "manager b applies another entry" "widget.ver.example.com/sa serverside-applied" K apply --server-side --field-manager=b -f "$W/b.yaml"
PORTS='" ".join("%s:%s" % (p["name"], p["port"]) for p in o["spec"]["ports"])'
expect_eq "both entries kept (merged by key, not replaced)" "http:80 https:443" \
  jget "$G/v1/namespaces/default/widgets/sa" "$PORTS"
expect_eq "each manager owns its entry by key; managedFields apiVersion as applied" \
  'a/Apply//ver.example.com/v2 {"f:spec":{"f:ports":{"k:{\"name\":\"http\"}":{".":{},"f:name":{},"f:port":{}}},"f:size":{}}};b/Apply//ver.example.com/v2 {"f:spec":{"f:ports":{"k:{\"name\":\"https\"}":{".":{},"f:name":{},"f:port":{}}}}}' \
  jget "$G/v1/namespaces/default/widgets/sa" "$MF"
sed -i 's/name: https, port: 443/name: http, port: 8080/' "$W/b.yaml"
expect_out "b changing a's entry conflicts (409 text)" \
  'Apply failed with 1 conflict: conflict with "a": .spec.ports[name="http"].port' \
  K apply --server-side --field-manager=b -f "$W/b.yaml"
expect_out "--force-conflicts takes it" "serverside-applied" K apply --server-side --field-manager=b --force-conflicts -f "$W/b.yaml"
expect_eq "b's value; b's https entry removed as b stopped applying it" "http:8080" \
  jget "$G/v1/namespaces/default/widgets/sa" "$PORTS"

# --- apply to /scale (a PATCH with an autoscaling/v1 Scale, as client-go's ApplyScale sends it; kubectl apply
# cannot map the kind Scale to a resource, with upstream as with kgate) ---
scale() { printf 'apiVersion: autoscaling/v1\nkind: Scale\nmetadata: {name: %s}\nspec: {replicas: %s}\n' "$1" "$2"; }
apply() { req PATCH "$1?fieldManager=$2${3:+&force=true}" "$(cat)" application/apply-patch+yaml; }
printf 'apiVersion: ver.example.com/v1\nkind: Widget\nmetadata: {name: sc}\nspec: {replicas: 1}\n' |
  apply "$G/v1/namespaces/default/widgets/sc" owner >/dev/null
expect_out "apply to a CR's /scale: another manager's replicas conflict" \
  'Apply failed with 1 conflict: conflict with \"owner\": .spec.replicas' \
  apply "$G/v1/namespaces/default/widgets/sc/scale" hpa < <(scale sc 3)
expect_out "with force: the Scale answers" '"spec":{"replicas":3}' \
  apply "$G/v1/namespaces/default/widgets/sc/scale" hpa force < <(scale sc 3)
expect_eq "the parent: hpa owns the replicas path (subresource scale), owner lost it" \
  'hpa/Apply/scale/ver.example.com/v1 {"f:spec":{"f:replicas":{}}}' \
  jget "$G/v1/namespaces/default/widgets/sc" "$MF"
expect_eq "replicas written" "3" jget "$G/v1/namespaces/default/widgets/sc" 'o["spec"]["replicas"]'

D1="$URL/apis/apps/v1/namespaces/default/deployments/web"
apply "$D1" kubectl >/dev/null <<'Y'
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
Y
expect_out "apply to a Deployment's /scale: conflict with the Deployment's applier" \
  'Apply failed with 1 conflict: conflict with \"kubectl\": .spec.replicas' apply "$D1/scale" hpa < <(scale web 4)
expect_out "... forced" '"replicas":4' apply "$D1/scale" hpa force < <(scale web 4)
expect_eq "the Deployment: replicas, hpa owns them (Apply, subresource scale, apps/v1), kubectl does not" \
  '4 True False' jget "$D1" '"%s %s %s" % (o["spec"]["replicas"], any(e["manager"] == "hpa" and e["subresource"] == "scale" and e["apiVersion"] == "apps/v1" and e["fieldsV1"] == {"f:spec": {"f:replicas": {}}} for e in o["metadata"]["managedFields"]), any("f:replicas" in e["fieldsV1"].get("f:spec", {}) for e in o["metadata"]["managedFields"] if e["manager"] == "kubectl"))'
expect_out "hpa applies again without a conflict" '"replicas":5' apply "$D1/scale" hpa < <(scale web 5)
expect_out "a Deployment body on /scale is the wrong version" \
  'Incorrect version specified in apply patch. Specified patch version: apps/v1, expected: autoscaling/v1' \
  apply "$D1/scale" x < <(printf 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 1}\n')
jdel() { curl "${H[@]}" -X DELETE "$1" | python3 -c "import json,sys; o=json.load(sys.stdin); print($2)"; }
expect_eq "deletecollection through v2: the list and the deleted objects are v2" "ver.example.com/v2 ['ver.example.com/v2']" \
  jdel "$G/v2/namespaces/default/widgets?fieldSelector=metadata.name=w1" 'o["apiVersion"], [i["apiVersion"] for i in o["items"]]'

finish
