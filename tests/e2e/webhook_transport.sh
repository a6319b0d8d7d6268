#!/usr/bin/env bash
# Webhook client credentials from the AdmissionConfiguration's WebhookAdmissionConfiguration kubeConfigFile, through
# the real kubectl: one Python ssl webhook that requires a client certificate (kubeconfig user named by its exact
# host:port) and one that checks a bearer token (the "*" user); a third webhook at a host no user names gets the "*"
# token and no certificate, so the certificate-requiring server refuses it. HTTP/2: a node http2 webhook that refuses
# HTTP/1.1 (allowHTTP1 false) answers; the Python servers above speak HTTP/1.1 only. Also the safety warnings that
# kubectl prints when a configuration is written.
KGATE=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
PIDS=""
trap 'stop_kgate; for p in $PIDS; do kill "$p" 2>/dev/null; done; rm -rf "$W"' EXIT
K() { kubectl --request-timeout=20s "$@"; }

(
  cd "$W"
  EC='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes'
  openssl req -x509 $EC -keyout ca.key -out ca.crt -days 2 -subj /CN=e2e-cred-ca 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >srv.ext
  openssl req $EC -keyout srv.key -out srv.csr -subj /CN=127.0.0.1 2>/dev/null
  openssl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile srv.ext -out srv.crt 2>/dev/null
  printf 'extendedKeyUsage=clientAuth\n' >cli.ext
  openssl req $EC -keyout cli.key -out cli.csr -subj /CN=kgate-admission 2>/dev/null
  openssl x509 -req -in cli.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile cli.ext -out cli.crt 2>/dev/null
) || { echo "openssl failed"; exit 1; }
cat >"$W/hook.py" <<'PY'
import json, ssl, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
MODE = sys.argv[1]  # "cert": requires a client certificate; "token": requires Bearer s3cret

class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_POST(self):
        review = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        uid = review["request"]["uid"]
        if MODE == "cert":
            cn = dict(x[0] for x in self.connection.getpeercert()["subject"])["commonName"]
            resp = {"uid": uid, "allowed": True, "warnings": ["client certificate CN=" + cn]}
        elif self.headers.get("Authorization") == "Bearer s3cret":
            resp = {"uid": uid, "allowed": True, "warnings": ["bearer token accepted"]}
        else:
            resp = {"uid": uid, "allowed": False, "status": {"code": 401, "message": "no token: %s" % self.headers.get("Authorization")}}
        body = json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": resp}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(sys.argv[2], sys.argv[3])
if MODE == "cert":
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.load_verify_locations(sys.argv[4])
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
with open(sys.argv[5], "w") as f:
    f.write(str(srv.server_address[1]))
srv.serve_forever()
PY
for mode in cert token; do
  python3 "$W/hook.py" $mode "$W/srv.crt" "$W/srv.key" "$W/ca.crt" "$W/$mode.port" &
  PIDS="$PIDS $!"
done
cat >"$W/h2.js" <<'JS'
const http2 = require("http2"), fs = require("fs");
const [key, cert, portFile] = process.argv.slice(2);
const srv = http2.createSecureServer({key: fs.readFileSync(key), cert: fs.readFileSync(cert), allowHTTP1: false});
srv.on("request", (req, res) => {
  let body = "";
  req.on("data", (d) => (body += d));
  req.on("end", () => {
    const uid = JSON.parse(body).request.uid;
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview",
                            response: {uid, allowed: true, warnings: ["served over HTTP/" + req.httpVersion]}}));
  });
});
srv.listen(0, "127.0.0.1", () => fs.writeFileSync(portFile, String(srv.address().port)));
JS
HAVE_NODE=0
if command -v node >/dev/null 2>&1; then
  node "$W/h2.js" "$W/srv.key" "$W/srv.crt" "$W/h2.port" &
  PIDS="$PIDS $!"
  HAVE_NODE=1
fi
for _ in $(seq 1 100); do [ -s "$W/cert.port" ] && [ -s "$W/token.port" ] && { [ $HAVE_NODE = 0 ] || [ -s "$W/h2.port" ]; } && break; sleep 0.05; done
CP=$(cat "$W/cert.port")
TP=$(cat "$W/token.port")
CA=$(base64 -w0 <"$W/ca.crt")

cat >"$W/webhook.kubeconfig" <<Y
apiVersion: v1
kind: Config
users:
- name: "127.0.0.1:$CP"
  user: {client-certificate: cli.crt, client-key: cli.key}
- name: "*"
  user: {token: s3cret}
Y
cat >"$W/admission.yaml" <<Y
apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ValidatingAdmissionWebhook
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: WebhookAdmissionConfiguration
    kubeConfigFile: $W/webhook.kubeconfig
Y
sed "s|kubeConfigFile: .*|kubeConfigFile: webhook.kubeconfig|" "$W/admission.yaml" >"$W/relative.yaml"
mkdir -p "$W/bad"
expect_out "a relative kubeConfigFile is refused at start" \
  'kubeConfigFile: Invalid value: "webhook.kubeconfig": must be an absolute file path' \
  timeout 20 "$KGATE" serve --data-dir "$W/bad" --secure-port 0 --admission-control-config-file "$W/relative.yaml"

start_kgate "$W/data" --admission-control-config-file "$W/admission.yaml" || exit 1

hook() { # name host port failurePolicy
  printf -- '- name: %s\n  clientConfig: {url: "https://%s:%s/x", caBundle: "%s"}\n  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]\n  sideEffects: None\n  failurePolicy: %s\n  timeoutSeconds: 5\n  admissionReviewVersions: [v1]\n' "$1" "$2" "$3" "$CA" "$4"
}
{
  printf 'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: creds}\nwebhooks:\n'
  hook cert.e2e.example.com 127.0.0.1 "$CP" Fail
  hook token.e2e.example.com 127.0.0.1 "$TP" Fail
} >"$W/creds.yaml"
expect_out "configuration created" "created" K apply -f "$W/creds.yaml"
pod() { printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: %s, namespace: default}\nspec:\n  containers: [{name: c, image: "nginx:1.25"}]\n' "$1"; }
for _ in $(seq 1 50); do
  pod probe | K create --dry-run=server -f - 2>&1 | grep -q "bearer token accepted" && break
  sleep 0.1
done
out=$(pod p1 | K create -f - 2>&1)
expect_out "the exact host:port user's client certificate is presented" "client certificate CN=kgate-admission" echo "$out"
expect_out "the \"*\" user's bearer token is sent" "bearer token accepted" echo "$out"
expect_out "the pod is admitted" "pod/p1 created" echo "$out"

# localhost:<cert port> is named by no user: the "*" token, no certificate; the server refuses the handshake
{
  printf 'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: creds}\nwebhooks:\n'
  hook nocert.e2e.example.com localhost "$CP" Fail
} >"$W/nocert.yaml"
K apply -f "$W/nocert.yaml" >/dev/null 2>&1
for _ in $(seq 1 50); do
  pod probe | K create --dry-run=server -f - 2>&1 | grep -q "nocert.e2e.example.com" && break
  sleep 0.1
done
expect_out "without a client certificate the call fails (failurePolicy Fail)" \
  'Internal error occurred: failed calling webhook "nocert.e2e.example.com": failed to call webhook: Post "https://localhost:' \
  sh -c "$(declare -f pod); pod p2 | kubectl --request-timeout=20s create -f -"

# --- HTTP/2 where the webhook offers it (this one offers nothing else)
if [ $HAVE_NODE = 1 ]; then
  {
    printf 'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: creds}\nwebhooks:\n'
    hook h2.e2e.example.com 127.0.0.1 "$(cat "$W/h2.port")" Fail
  } >"$W/h2.yaml"
  K apply -f "$W/h2.yaml" >/dev/null 2>&1
  for _ in $(seq 1 50); do
    pod probe | K create --dry-run=server -f - 2>&1 | grep -q "HTTP/2" && break
    sleep 0.1
  done
  out=$(pod p3 | K create -f - 2>&1)
  expect_out "an HTTP/2-only webhook is called over HTTP/2" "served over HTTP/2.0" echo "$out"
  expect_out "and admits the pod" "pod/p3 created" echo "$out"
else
  failx "node is required for the HTTP/2 webhook (scripts/install-deps installs nodejs)"
fi

# --- safety warnings, printed by kubectl on write
cat >"$W/self.yaml" <<Y
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: self}
webhooks:
- name: self.e2e.example.com
  clientConfig: {service: {name: hook, namespace: hooks}}
  rules: [{operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"]}]
  sideEffects: None
  timeoutSeconds: 30
  failurePolicy: Fail
  admissionReviewVersions: [v1]
- name: self2.e2e.example.com
  clientConfig: {service: {name: hook, namespace: hooks}}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]
  sideEffects: None
  timeoutSeconds: 30
  failurePolicy: Ignore
  admissionReviewVersions: [v1]
Y
out=$(K create --dry-run=server -f "$W/self.yaml" 2>&1)
expect_out "kubectl prints the self-blocking warning" \
  'Warning: webhook "self.e2e.example.com" has failurePolicy Fail and matches the creation of pods in namespace "hooks"' echo "$out"
expect_out "kubectl prints the deadline warning" \
  'Warning: webhook timeouts exceed the request deadline: the webhooks that can match one request (CREATE pods) may take 65s (2 mutating webhooks in sequence: 60s, slowest validating webhook: 5s)' echo "$out"
finish
