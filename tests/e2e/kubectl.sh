#!/usr/bin/env bash
# kubectl against kgate serve: the workflows a user runs every day, with upstream's exact messages.
KGATE=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
trap 'stop_kgate; rm -rf "$W"' EXIT
K() { kubectl --request-timeout=20s "$@"; }

cat >"$W/pod.yaml" <<'Y'
apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {app: web}
spec:
  containers:
  - name: app
    image: nginx:1.25
    ports: [{containerPort: 80}]
Y
cat >"$W/deploy.yaml" <<'Y'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: nginx:1.25
      - name: side
        image: busybox:1.36
Y

start_kgate "$W/data" || exit 1

# --- discovery, version, namespaces from the first start
expect_out "built-in namespaces exist" "kube-node-lease" K get ns
expect_out "api-resources lists deployments" "deployments                         deploy       apps/v1" K api-resources
expect_out "server version is v1.33" "Server Version: v1.33" K version

# --- create, get in every output format
expect_out "create -f" "pod/web created" K create -f "$W/pod.yaml"
expect_out "create again: AlreadyExists" 'Error from server (AlreadyExists): error when creating "'"$W"'/pod.yaml": pods "web" already exists' K create -f "$W/pod.yaml"
expect_out "get prints the pod columns" "web    0/1     Pending   0" K get pods
expect_out "get -o wide prints IP and NODE" "NOMINATED NODE   READINESS GATES" K get pods -o wide
expect_out "get -o yaml has defaults" "terminationMessagePath: /dev/termination-log" K get pod web -o yaml
expect_out "get -o json has uid" '"uid": "' K get pod web -o json
expect_out "qosClass computed" "BestEffort" K get pod web -o jsonpath='{.status.qosClass}'

# --- apply, re-apply with a changed image and an added label: merged, not replaced
expect_out "apply creates" "deployment.apps/web created" K apply -f "$W/deploy.yaml"
K scale deploy web --replicas=3 >/dev/null 2>&1
sed -e 's/nginx:1.25/nginx:1.26/' -e 's/^  labels: {app: web}$/  labels: {app: web, tier: fe}/' "$W/deploy.yaml" >"$W/deploy2.yaml"
expect_out "re-apply configures" "deployment.apps/web configured" K apply -f "$W/deploy2.yaml"
expect_eq "re-apply merged labels and image, kept the sidecar" '{"app":"web","tier":"fe"} nginx:1.26 busybox:1.36 3' \
  K get deploy web -o jsonpath='{.metadata.labels} {.spec.template.spec.containers[*].image} {.metadata.generation}'

# --- label, annotate, scale, set image, patch in three flavours
expect_out "label" "pod/web labeled" K label pod web env=prod
expect_out "annotate" "pod/web annotated" K annotate pod web note=hello
expect_out "scale" "deployment.apps/web scaled" K scale deploy web --replicas=5
expect_eq "scale changed spec.replicas" "5" K get deploy web -o jsonpath='{.spec.replicas}'
expect_out "set image" "deployment.apps/web image updated" K set image deploy/web app=nginx:1.27
expect_eq "set image kept the other container" "nginx:1.27 busybox:1.36" K get deploy web -o jsonpath='{.spec.template.spec.containers[*].image}'
expect_out "patch --type merge" "pod/web patched" K patch pod web --type merge -p '{"metadata":{"labels":{"m":"1"}}}'
expect_out "patch --type json" "pod/web patched" K patch pod web --type json -p '[{"op":"add","path":"/metadata/labels/j","value":"2"}]'
expect_out "patch --type strategic" "pod/web patched" K patch pod web --type strategic -p '{"spec":{"containers":[{"name":"app","image":"nginx:1.26"}]}}'
expect_eq "strategic patch merged the container by name" "nginx:1.26 80" K get pod web -o jsonpath='{.spec.containers[0].image} {.spec.containers[0].ports[0].containerPort}'
expect_eq "labels after all patches" '{"app":"web","env":"prod","j":"2","m":"1"}' K get pod web -o jsonpath='{.metadata.labels}'
expect_out "json patch test failure is 422 Invalid" "testing value /metadata/name failed: test failed" K patch pod web --type json -p '[{"op":"test","path":"/metadata/name","value":"other"}]'
expect_out "pod spec is immutable" "pod updates may not change fields other than" K patch pod web --type merge -p '{"spec":{"restartPolicy":"Never"}}'

# --- validation and bad input
printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"Bad_Name"},"spec":{"containers":[{"name":"c","image":"x"}]}}' >"$W/bad.json"
expect_out "invalid name is 422 with upstream text" 'The Pod "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of' K create -f "$W/bad.json"
printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"noc"},"spec":{}}' >"$W/noc.json"
expect_out "missing containers is Required" "spec.containers: Required value" K create -f "$W/noc.json"
expect_out "unknown namespace: NotFound" 'namespaces "nope" not found' K -n nope create -f "$W/pod.yaml"

# --- server-side field validation (kubectl sends fieldValidation=Strict by default) and explain
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: typo}\nspec:\n  containers:\n  - name: c\n    image: x:1\n    imagePullPolicyy: Always\n' >"$W/typo.yaml"
expect_out "unknown field rejected with the upstream message" 'Error from server (BadRequest): error when creating "'"$W"'/typo.yaml": Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.containers[0].imagePullPolicyy"' K create -f "$W/typo.yaml"
expect_out "fieldValidation=Warn creates with a warning" 'Warning: unknown field "spec.containers[0].imagePullPolicyy"' K create -f "$W/typo.yaml" --validate=warn
expect_out "explain pod.spec.containers" "List of containers belonging to the pod." K explain pod.spec.containers
expect_out "explain lists container fields" "imagePullPolicy	<string>" K explain pod.spec.containers
expect_out "explain deployment.spec.replicas" "FIELD: replicas <integer>" K explain deployment.spec.replicas

# --- dry run persists nothing
sed 's/name: web$/name: dry/' "$W/pod.yaml" >"$W/dry.yaml"
expect_out "dry-run=server reports" "pod/dry created (server dry run)" K create --dry-run=server -f "$W/dry.yaml"
expect_out "dry-run persisted nothing" 'pods "dry" not found' K get pod dry

# --- watch
( K get pods -w --output-watch-events >"$W/watch.out" 2>&1 & echo $! >"$W/watch.pid" )
sleep 1
sed 's/name: web$/name: w2/' "$W/pod.yaml" | K create -f - >/dev/null
K delete pod w2 >/dev/null
sleep 1
kill "$(cat "$W/watch.pid")" 2>/dev/null
expect_out "watch saw ADDED" "ADDED      w2" cat "$W/watch.out"
expect_out "watch saw DELETED" "DELETED    w2" cat "$W/watch.out"

# --- NamespaceLifecycle: immortal namespaces, terminating namespaces, contents deleted
expect_out "default may not be deleted" 'Error from server (Forbidden): namespaces "default" is forbidden: this namespace may not be deleted' K delete ns default
printf 'apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n' | K apply -f - >/dev/null
K -n team apply -f "$W/pod.yaml" >/dev/null
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: held, namespace: team, finalizers: [example.com/hold]}\ndata: {a: b}\n' | K apply -f - >/dev/null
K delete ns team --wait=false >/dev/null
sleep 0.5
expect_out "namespace is Terminating while a finalizer holds content" "Terminating" K get ns team
expect_out "no new content in a terminating namespace" "unable to create new content in namespace team because it is being terminated" K -n team create -f "$W/dry.yaml"
expect_out "pods of the namespace are gone" "No resources found in team namespace." K -n team get pods
K -n team patch cm held --type merge -p '{"metadata":{"finalizers":null}}' >/dev/null
for _ in $(seq 1 50); do K get ns team >/dev/null 2>&1 || break; sleep 0.2; done
expect_out "namespace deleted once empty" 'namespaces "team" not found' K get ns team

# --- restart keeps everything
stop_kgate
start_kgate "$W/data" || exit 1
expect_eq "restart kept the deployment" "5 nginx:1.27" K get deploy web -o jsonpath='{.spec.replicas} {.spec.template.spec.containers[0].image}'
expect_out "restart kept the pod labels" "env=prod" K get pod web --show-labels
expect_out "delete" 'pod "web" deleted' K delete pod web

# --- AlwaysDeny
stop_kgate
start_kgate "$W/deny" --enable-admission-plugins=AlwaysDeny || exit 1
expect_out "AlwaysDeny rejects with the upstream message" 'Error from server (Forbidden): error when creating "'"$W"'/pod.yaml": pods "web" is forbidden: admission control is denying all modifications' K create -f "$W/pod.yaml"
stop_kgate

# --- bad flags stop start-up with a clear message
out=$("$KGATE" serve --data-dir "$W/flags" --secure-port 0 --enable-admission-plugins=NoSuchPlugin 2>&1)
if printf '%s' "$out" | grep -qF 'enable-admission-plugins plugin "NoSuchPlugin" is unknown'; then pass "unknown plugin stops start-up"; else failx "unknown plugin stops start-up" "$out"; fi

finish
