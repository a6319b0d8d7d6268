#!/usr/bin/env bash
# Authentication and the audit log through the real kubectl and curl (issue 16 points 1, 6): x509 client certificates
# made here with openssl (--client-ca-file), bootstrap tokens (--enable-bootstrap-token-auth), anonymous probes and
# discovery, and the audit log (--audit-policy-file, --audit-log-path) checked event by event with python3.
KGATE=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
trap 'stop_kgate; rm -rf "$W"' EXIT
cd "$W" || exit 1

# --- certificates: a client CA, alice (O=devs, O=qa) signed by it, mallory (O=system:masters) by another CA ---
mkca() {
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$1.key" -out "$1.crt" -days 2 \
    -subj "/CN=$1" 2>/dev/null
}
mkcert() { # name ca subject
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$1.key" -out "$1.csr" -subj "$3" 2>/dev/null
  printf 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\n' >"$1.ext"
  openssl x509 -req -in "$1.csr" -CA "$2.crt" -CAkey "$2.key" -CAcreateserial -out "$1.crt" -days 1 \
    -extfile "$1.ext" 2>/dev/null
}
mkca clientca
mkca otherca
mkcert alice clientca "/CN=alice/O=devs/O=qa"
mkcert mallory otherca "/CN=mallory/O=system:masters"

cat >policy.yaml <<'POLICY'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/livez*", "/readyz*"]
- level: RequestResponse
  resources:
  - group: ""
    resources: [configmaps]
- level: Metadata
POLICY

start_kgate "$W/data" --client-ca-file clientca.crt --enable-bootstrap-token-auth \
  --audit-policy-file policy.yaml --audit-log-path "$W/audit.log" || exit 1
SERVER=$(sed -n 's/^ *server: //p' "$KUBECONFIG")
CA="$W/data/ca.crt"
# kubectl without the admin kubeconfig: only the credentials given on the command line
KX() { kubectl --kubeconfig=/dev/null --server "$SERVER" --certificate-authority "$CA" --request-timeout=20s "$@"; }
ALICE() { KX --client-certificate alice.crt --client-key alice.key "$@"; }
ADMIN=(-s --cacert "$CA" -H "Authorization: Bearer $(cat data/admin.token)")

# --- x509 ---
expect_out "admin.kubeconfig keeps its token (the audit check below sees kgate-admin)" "token: " cat "$KUBECONFIG"
WHO=$(ALICE auth whoami 2>&1)
expect_out "client certificate: user is the CN" "alice" printf '%s' "$WHO"
expect_out "client certificate: groups are the O values + system:authenticated" "[devs qa system:authenticated]" \
  printf '%s' "$WHO"
expect_out "client-certificate user passes discovery (system:discovery)" "v1" ALICE api-versions
expect_out "client-certificate user is authorized as alice" \
  'configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "default"' \
  ALICE create configmap nope -n default --from-literal=a=b
# (curl --next: several requests per process, the machine running the suite is busy)
OUT=$(curl -s --cacert "$CA" --cert mallory.crt --key mallory.key -w '\n' "$SERVER/api" \
  --next "${ADMIN[@]}" --cert mallory.crt --key mallory.key -X POST -H 'Content-Type: application/json' \
  -d '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}' \
  "$SERVER/apis/authentication.k8s.io/v1/selfsubjectreviews")
expect_out "certificate from another CA: 401" '"code":401' sed -n 1p <<<"$OUT"
expect_out "certificate from another CA with a valid token: the token authenticates" "kgate-admin" sed -n 2p <<<"$OUT"

# --- bootstrap tokens ---
b64() { printf '%s' "$1" | base64 -w0; }
secret() { # id secret expiration extra-groups (data base64-encoded: kubectl create secret's form)
  printf '%s' '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"bootstrap-token-'"$1"'"},
    "type":"bootstrap.kubernetes.io/token","data":{"token-id":"'"$(b64 "$1")"'","token-secret":"'"$(b64 "$2")"'",
    "usage-bootstrap-authentication":"dHJ1ZQ==","expiration":"'"$(b64 "$3")"'","auth-extra-groups":"'"$(b64 "$4")"'"}}'
}
SECRETS="$SERVER/api/v1/namespaces/kube-system/secrets"
JSON=(-o /dev/null -X POST -H 'Content-Type: application/json')
curl "${ADMIN[@]}" "${JSON[@]}" "$SECRETS" -d "$(secret abcdef 0123456789abcdef 2099-01-01T00:00:00Z system:bootstrappers:worker)" \
  --next "${ADMIN[@]}" "${JSON[@]}" "$SECRETS" -d "$(secret oldtok 0123456789abcdef 2020-01-01T00:00:00Z system:bootstrappers:w)" \
  --next "${ADMIN[@]}" "${JSON[@]}" "$SECRETS" -d "$(secret badgrp 0123456789abcdef 2099-01-01T00:00:00Z system:masters)"
BOOT=(-s -w '\n' -X POST --cacert "$CA" -H 'Content-Type: application/json'
  -d '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}'
  "$SERVER/apis/authentication.k8s.io/v1/selfsubjectreviews")
for _ in $(seq 1 50); do # the Secret cache follows the store a moment later
  curl "${BOOT[@]}" -H "Authorization: Bearer abcdef.0123456789abcdef" | grep -q bootstrap && break
  sleep 0.1
done
WHO=$(KX --token abcdef.0123456789abcdef auth whoami 2>&1)
expect_out "bootstrap token: user system:bootstrap:<id>" "system:bootstrap:abcdef" printf '%s' "$WHO"
expect_out "bootstrap token: groups" "[system:bootstrappers system:bootstrappers:worker system:authenticated]" \
  printf '%s' "$WHO"
OUT=$(curl "${BOOT[@]}" -H "Authorization: Bearer abcdef.0123456789abcdee" \
  --next "${BOOT[@]}" -H "Authorization: Bearer oldtok.0123456789abcdef" \
  --next "${BOOT[@]}" -H "Authorization: Bearer badgrp.0123456789abcdef")
expect_out "bootstrap token: wrong secret is 401" '"code":401' sed -n 1p <<<"$OUT"
expect_out "bootstrap token: expired is 401" '"code":401' sed -n 2p <<<"$OUT"
expect_out "bootstrap token: extra group outside system:bootstrappers: is 401" '"code":401' sed -n 3p <<<"$OUT"

# --- anonymous ---
OUT=$(curl -s --cacert "$CA" -w '\n' "$SERVER/healthz" "$SERVER/livez" "$SERVER/readyz" "$SERVER/version" \
  --next -s --cacert "$CA" -D - -H "Audit-ID: e2e-audit-1" "$SERVER/api")
expect_eq "anonymous /healthz, /livez, /readyz (system:public-info-viewer)" "ok ok ok" \
  printf '%s' "$(sed -n 1,3p <<<"$OUT" | tr '\n' ' ' | sed 's/ $//')"
expect_out "anonymous /version" '"gitVersion"' printf '%s' "$OUT"
expect_out "anonymous /api: 403 with upstream's text" \
  '"message":"forbidden: User \"system:anonymous\" cannot get path \"/api\""' printf '%s' "$OUT"

# --- audit log ---
expect_out "Audit-Id response header echoes Audit-ID" "Audit-Id: e2e-audit-1" printf '%s' "$OUT"
kubectl create configmap audited -n default --from-literal=k=v >/dev/null
kubectl get configmap audited -n default --as=bob >/dev/null 2>&1
curl "${ADMIN[@]}" -A kubectl/e2e -o /dev/null "$SERVER/api/v1/namespaces/default/pods" \
  --next "${ADMIN[@]}" "${JSON[@]}" "$SERVER/api/v1/namespaces/default/pods?dryRun=All" \
  -d '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}]}}'
check_audit() {
  python3 - "$W/audit.log" <<'PY'
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1])]
fails = []
def check(name, ok):
    print(("ok   - " if ok else "FAIL - ") + "audit: " + name)
    if not ok: fails.append(name)
def find(**kw):
    return [e for e in evs if all(e.get(k) == v for k, v in kw.items())]
for e in evs:
    e["user"].setdefault("username", "")
ok = [e for e in evs if e["responseStatus"]["code"] != 401]
check("every event is an audit.k8s.io/v1 Event, ResponseComplete only (RequestReceived omitted)",
      evs and all(e["apiVersion"] == "audit.k8s.io/v1" and e["kind"] == "Event" and e["stage"] == "ResponseComplete" for e in ok))
f = [e for e in evs if e["responseStatus"]["code"] == 401]
check("failed authentications: ResponseStarted, no user, upstream's message",
      f and all(e["stage"] == "ResponseStarted" and e["user"] == {"username": ""} for e in f)
      and "Authentication failed, attempted: x509" in [e["responseStatus"].get("message") for e in f]
      and "Authentication failed, attempted: bearer" in [e["responseStatus"].get("message") for e in f])
check("probes are level None (not logged)", not [e for e in evs if e["requestURI"].startswith("/healthz")])
a = find(auditID="e2e-audit-1")
check("anonymous /api: Metadata, 403, forbid", len(a) == 1 and a[0]["level"] == "Metadata" and a[0]["responseStatus"]["code"] == 403
      and a[0]["user"]["username"] == "system:anonymous" and a[0]["annotations"]["authorization.k8s.io/decision"] == "forbid"
      and "cannot get path" in a[0]["responseStatus"]["message"])
c = [e for e in find(verb="create") if e.get("objectRef", {}).get("name") in (None, "") and e["objectRef"]["resource"] == "configmaps"
     and e["user"]["username"] == "kgate-admin"]
check("admin's configmap create: RequestResponse with request and response objects",
      len(c) == 1 and c[0]["level"] == "RequestResponse" and c[0]["requestObject"]["metadata"]["name"] == "audited"
      and c[0]["responseObject"]["metadata"]["uid"] and c[0]["responseStatus"]["code"] == 201
      and c[0]["objectRef"] == {"resource": "configmaps", "namespace": "default", "apiVersion": "v1"})
check("timestamps are RFC 3339 with microseconds", c and len(c[0]["stageTimestamp"]) == 27 and c[0]["stageTimestamp"].endswith("Z"))
x = [e for e in find(verb="create") if e["user"]["username"] == "alice" and e["objectRef"]["resource"] == "configmaps"]
check("alice's (x509) forbidden create: user, groups, 403", len(x) == 1 and x[0]["user"]["groups"] == ["devs", "qa", "system:authenticated"]
      and x[0]["responseStatus"]["code"] == 403 and x[0]["responseStatus"]["reason"] == "Forbidden")
i = [e for e in evs if e.get("impersonatedUser", {}).get("username") == "bob" and "objectRef" in e]
check("impersonation: user is the admin, impersonatedUser bob", len(i) == 1 and i[0]["user"]["username"] == "kgate-admin"
      and i[0]["responseStatus"]["code"] == 403)
p = [e for e in find(verb="list") if e.get("objectRef", {}).get("resource") == "pods"]
check("pods list: Metadata level, no objects, allow annotation", p and p[-1]["level"] == "Metadata" and "requestObject" not in p[-1]
      and "responseObject" not in p[-1] and p[-1]["annotations"]["authorization.k8s.io/decision"] == "allow"
      and p[-1]["sourceIPs"] == ["127.0.0.1"] and p[-1]["userAgent"].startswith("kubectl/"))
pc = [e for e in find(verb="create") if e.get("objectRef", {}).get("resource") == "pods"]
check("admission's audit annotations reach the event (PodSecurity)",
      len(pc) == 1 and pc[0]["annotations"].get("pod-security.kubernetes.io/enforce-policy") == "privileged:latest")
sys.exit(1 if fails else 0)
PY
}
# the last event is written when its response completes: poll briefly
for _ in $(seq 1 30); do
  [ "$(grep -c '"resource":"pods"' "$W/audit.log" 2>/dev/null)" = 2 ] && break
  sleep 0.1
done
if out=$(check_audit 2>&1); then pass "audit log content"; else failx "audit log content" "$out"; fi
finish
