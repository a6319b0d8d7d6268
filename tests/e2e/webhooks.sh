#!/usr/bin/env bash
# Admission webhooks through the real kubectl: a ValidatingWebhookConfiguration whose HTTPS webhook (Python's ssl
# server, CA made here with openssl) denies pods labelled deny=true; a MutatingWebhookConfiguration that labels pods;
# failurePolicy Fail at an unreachable URL rejecting requests; a webhook named noDots rejected at write; a TLS failure; a
# Service-referenced webhook; two 2 s validating webhooks costing ~2 s.
KGATE=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
PY_PID=""
trap 'stop_kgate; [ -n "$PY_PID" ] && kill "$PY_PID" 2>/dev/null; rm -rf "$W"' EXIT
K() { kubectl --request-timeout=20s "$@"; }

# --- the webhook server
(
  cd "$W"
  EC='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes'
  openssl req -x509 $EC -keyout ca.key -out ca.crt -days 2 -subj /CN=e2e-webhook-ca 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:hook.default.svc\nextendedKeyUsage=serverAuth\n' >srv.ext
  openssl req $EC -keyout srv.key -out srv.csr -subj /CN=127.0.0.1 2>/dev/null
  openssl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile srv.ext -out srv.crt 2>/dev/null
) || { echo "openssl failed"; exit 1; }
cat >"$W/hook.py" <<'PY'
import base64, json, ssl, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_POST(self):
        review = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        req = review["request"]
        resp = {"uid": req["uid"], "allowed": True}
        labels = ((req.get("object") or {}).get("metadata") or {}).get("labels") or {}
        if self.path.startswith("/deny-label") and labels.get("deny") == "true":
            resp = {"uid": req["uid"], "allowed": False,
                    "status": {"code": 403, "reason": "Forbidden", "message": "pods labelled deny=true are not allowed"}}
        elif self.path.startswith("/sleep2"):
            time.sleep(2)
        elif self.path.startswith("/label"):
            patch = [{"op": "add", "path": "/metadata/labels/webhook", "value": "was-here"}]
            resp["patchType"] = "JSONPatch"
            resp["patch"] = base64.b64encode(json.dumps(patch).encode()).decode()
            resp["warnings"] = ["labelled by the e2e webhook"]
        body = json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": resp}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(sys.argv[1], sys.argv[2])
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
with open(sys.argv[3], "w") as f:
    f.write(str(srv.server_address[1]))
srv.serve_forever()
PY
python3 "$W/hook.py" "$W/srv.crt" "$W/srv.key" "$W/port" &
PY_PID=$!
for _ in $(seq 1 100); do [ -s "$W/port" ] && break; sleep 0.05; done
PORT=$(cat "$W/port")
CA=$(base64 -w0 <"$W/ca.crt")

start_kgate "$W/data" || exit 1

pod() { # name labels
  printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: %s, namespace: default, labels: {%s}}\nspec:\n  containers: [{name: c, image: "nginx:1.25"}]\n' "$1" "$2"
}
rules_pods='[{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]'

# --- write-time validation
cat >"$W/nodots.yaml" <<Y
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: nodots}
webhooks:
- name: noDots
  clientConfig: {url: "https://127.0.0.1:$PORT/allow"}
  admissionReviewVersions: [v1]
Y
expect_out "a webhook named noDots is rejected at write" 'webhooks[0].name: Invalid value: "noDots"' K create -f "$W/nodots.yaml"
expect_out "sideEffects is required" 'webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun' K create -f "$W/nodots.yaml"
sed 's|https://127|http://127|; s|noDots|a.b.c|' "$W/nodots.yaml" >"$W/http.yaml"
expect_out "http URLs are rejected" "'https' is the only allowed URL scheme" K create -f "$W/http.yaml"

# --- a validating webhook that denies pods labelled deny=true
cat >"$W/deny.yaml" <<Y
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: deny-labelled}
webhooks:
- name: deny.e2e.example.com
  clientConfig: {url: "https://127.0.0.1:$PORT/deny-label", caBundle: "$CA"}
  rules: $rules_pods
  sideEffects: None
  admissionReviewVersions: [v1]
Y
expect_out "validating configuration created" "created" K apply -f "$W/deny.yaml"
expect_eq "defaults applied at write" "Fail Equivalent 10" \
  K get validatingwebhookconfiguration deny-labelled -o jsonpath='{.webhooks[0].failurePolicy} {.webhooks[0].matchPolicy} {.webhooks[0].timeoutSeconds}'
for _ in $(seq 1 50); do # the configuration reaches the webhook plugin through the watch
  pod probe 'deny: "true"' | K create --dry-run=server -f - 2>&1 | grep -q "denied the request" && break
  sleep 0.1
done
expect_out "the webhook denies a pod labelled deny=true" \
  'admission webhook "deny.e2e.example.com" denied the request: pods labelled deny=true are not allowed' \
  sh -c "$(declare -f pod); pod bad 'deny: \"true\"' | kubectl --request-timeout=20s create -f -"
expect_out "a pod without the label is admitted" "pod/good created" sh -c "$(declare -f pod); pod good '' | kubectl --request-timeout=20s create -f -"

# --- a mutating webhook that labels pods (with a warning)
cat >"$W/label.yaml" <<Y
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: labeller}
webhooks:
- name: label.e2e.example.com
  clientConfig: {url: "https://127.0.0.1:$PORT/label", caBundle: "$CA"}
  rules: $rules_pods
  sideEffects: None
  admissionReviewVersions: [v1]
Y
K apply -f "$W/label.yaml" >/dev/null
for _ in $(seq 1 50); do
  pod probe '' | K create --dry-run=server -o jsonpath='{.metadata.labels.webhook}' -f - 2>/dev/null | grep -q was-here && break
  sleep 0.1
done
expect_out "the mutating webhook's warning reaches kubectl" "Warning: labelled by the e2e webhook" \
  sh -c "$(declare -f pod); pod labelled '' | kubectl --request-timeout=20s create -f -"
expect_eq "the mutating webhook's patch is stored" "was-here" K get pod labelled -o jsonpath='{.metadata.labels.webhook}'

# --- failurePolicy Fail at an unreachable URL rejects requests
cat >"$W/unreachable.yaml" <<Y
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: unreachable}
webhooks:
- name: unreachable.e2e.example.com
  clientConfig: {url: "https://127.0.0.1:1/nothing", caBundle: "$CA"}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
  sideEffects: None
  failurePolicy: Fail
  timeoutSeconds: 2
  admissionReviewVersions: [v1]
Y
K apply -f "$W/unreachable.yaml" >/dev/null
for _ in $(seq 1 50); do
  K create configmap probe --dry-run=server 2>&1 | grep -q "failed calling webhook" && break
  sleep 0.1
done
expect_out "failurePolicy Fail rejects when the webhook is unreachable" \
  'Internal error occurred: failed calling webhook "unreachable.e2e.example.com": failed to call webhook: Post "https://127.0.0.1:1/nothing?timeout=2s"' \
  K create configmap cm1
sed 's/failurePolicy: Fail/failurePolicy: Ignore/' "$W/unreachable.yaml" | K apply -f - >/dev/null
for _ in $(seq 1 50); do
  K create configmap probe --dry-run=server >/dev/null 2>&1 && break
  sleep 0.1
done
expect_out "failurePolicy Ignore lets the request through" "configmap/cm2 created" K create configmap cm2
# the configurations themselves are never sent to webhooks
expect_out "webhook configurations are exempt" "deleted" K delete validatingwebhookconfiguration unreachable

# --- TLS: a webhook whose certificate the caBundle does not vouch for (no caBundle: the system roots)
cat >"$W/tls.yaml" <<Y
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: tls}
webhooks:
- name: tls.e2e.example.com
  clientConfig: {url: "https://127.0.0.1:$PORT/allow"}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [secrets]}]
  sideEffects: None
  admissionReviewVersions: [v1]
Y
K apply -f "$W/tls.yaml" >/dev/null
for _ in $(seq 1 50); do
  K create secret generic probe --dry-run=server 2>&1 | grep -q "failed calling webhook" && break
  sleep 0.1
done
expect_out "an untrusted webhook certificate fails the call (failurePolicy Fail)" \
  'failed calling webhook "tls.e2e.example.com": failed to call webhook: Post "https://127.0.0.1:'"$PORT"'/allow?timeout=10s": tls: ' \
  K create secret generic s1
K delete validatingwebhookconfiguration tls >/dev/null

# --- a Service reference: dialled at the Service's ready endpoint, verified as hook.default.svc
cat >"$W/svc.yaml" <<Y
apiVersion: v1
kind: Service
metadata: {name: hook, namespace: default}
spec:
  ports: [{name: https, port: 443, targetPort: $PORT}]
---
apiVersion: v1
kind: Endpoints
metadata: {name: hook, namespace: default}
subsets:
- addresses: [{ip: 127.0.0.1}]
  ports: [{name: https, port: $PORT}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: by-service}
webhooks:
- name: svc.e2e.example.com
  clientConfig:
    service: {namespace: default, name: hook, path: /deny-label}
    caBundle: "$CA"
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [serviceaccounts]}]
  sideEffects: None
  admissionReviewVersions: [v1]
Y
K apply -f "$W/svc.yaml" >/dev/null
sa() { printf 'apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: %s, namespace: default, labels: {%s}}\n' "$1" "$2"; }
for _ in $(seq 1 50); do
  sa probe 'deny: "true"' | K create --dry-run=server -f - 2>&1 | grep -q "denied the request" && break
  sleep 0.1
done
expect_out "a service-referenced webhook is called through its endpoint" \
  'admission webhook "svc.e2e.example.com" denied the request: pods labelled deny=true are not allowed' \
  sh -c "$(declare -f sa); sa sa1 'deny: \"true\"' | kubectl --request-timeout=20s create -f -"
K delete validatingwebhookconfiguration by-service >/dev/null

# --- validating webhooks run in parallel: two 2 s webhooks cost about 2 s, not 4 (2 s each leaves room for kubectl
# and a loaded CI machine: in sequence the request could not take less than 4 s)
cat >"$W/slow.yaml" <<Y
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: slow}
webhooks:
- name: slow1.e2e.example.com
  clientConfig: {url: "https://127.0.0.1:$PORT/sleep2", caBundle: "$CA"}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
  sideEffects: None
  admissionReviewVersions: [v1]
- name: slow2.e2e.example.com
  clientConfig: {url: "https://127.0.0.1:$PORT/sleep2", caBundle: "$CA"}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
  sideEffects: None
  admissionReviewVersions: [v1]
Y
K delete validatingwebhookconfiguration unreachable >/dev/null 2>&1
K apply -f "$W/slow.yaml" >/dev/null
# timed with curl's own clock (the HTTP request alone): kubectl's start-up on a loaded machine is not the webhooks'
TOKEN=$(awk '/token:/ {print $2}' "$KUBECONFIG")
URL=$(awk '/server:/ {print $2}' "$KUBECONFIG")
create_ms() { # create_ms NAME [QUERY] -> milliseconds the create took
  curl -sk -o /dev/null -w '%{time_total}' -X POST -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" \
    --data-binary '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"'"$1"'"}}' \
    "$URL/api/v1/namespaces/default/configmaps${2-}" | awk '{printf "%d", $1 * 1000}'
}
for _ in $(seq 1 50); do # until the configuration is in force
  [ "$(create_ms probe '?dryRun=All')" -ge 2000 ] && break
  sleep 0.1
done
ms=$(create_ms slow)
if [ "$ms" -ge 2000 ] && [ "$ms" -lt 3600 ]; then pass "two 2 s validating webhooks took ${ms} ms"; else failx "two 2 s validating webhooks took ${ms} ms (want 2000..3599: in sequence they would take 4000)"; fi
expect_out "the configmap admitted by both was created" "configmap/slow" K get configmap slow -o name
finish
