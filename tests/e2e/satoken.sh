#!/usr/bin/env bash
# Service-account tokens (issue 16): `kubectl create token` (defaults, limits, bound objects), the token as a kubectl
# credential (auth whoami, RBAC via a RoleBinding to the ServiceAccount), tokens of a deleted ServiceAccount / pod
# → 401, TokenReview, the OIDC discovery documents whose JWKS verifies a token (python3 + the openssl CLI), and the
# generated signing key reused across a restart. kubectl where the feature is user-facing, curl for the rest (each
# kubectl start costs ~1 s on a loaded machine).
KGATE=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
trap 'stop_kgate; rm -rf "$W"' EXIT
K() { kubectl --request-timeout=20s "$@"; }
# C TOKEN PATH [curl args...]: the API as TOKEN
C() { local t=$1 p=$2; shift 2; curl -sk -H "Authorization: Bearer $t" "$@" "$SERVER$p"; }
# payload TOKEN: the JWT's claims (JSON as kgate wrote it); num TOKEN CLAIM: a numeric claim; field JSON KEY: the
# first "KEY":"value" string in JSON (no python: each interpreter start costs on a loaded machine)
payload() { local p; p=$(cut -d. -f2 <<<"$1" | tr '_-' '/+'); while [ $((${#p} % 4)) -ne 0 ]; do p="$p="; done; base64 -d <<<"$p"; }
num() { payload "$1" | grep -o "\"$2\":[0-9]*" | head -1 | cut -d: -f2; }
field() { grep -o "\"$2\":\"[^\"]*\"" <<<"$1" | head -1 | cut -d'"' -f4; }
lifetime() { echo $(($(num "$1" exp) - $(num "$1" iat))); }
# treq NAME JSON [curl args...]: POST a TokenRequest for team/NAME as the admin
treq() { local n=$1 b=$2; shift 2; C "$ADMIN" "/api/v1/namespaces/team/serviceaccounts/$n/token" -X POST -H 'Content-Type: application/json' -d "$b" "$@"; }
review() { C "$ADMIN" /apis/authentication.k8s.io/v1/tokenreviews -X POST -H 'Content-Type: application/json' \
  -d "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"TokenReview\",\"spec\":{\"token\":\"$1\"${2:-}}}"; }
whoami_raw() { C "$1" /apis/authentication.k8s.io/v1/selfsubjectreviews -X POST -H 'Content-Type: application/json' \
  -d '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}'; }

start_kgate "$W/data" --service-account-max-token-expiration 2h || exit 1
SERVER=$(awk '/server:/ {print $2; exit}' "$KUBECONFIG")
ADMIN=$(cat "$W/data/admin.token")
expect_eq "the signing key is generated in the data dir, 0600" "600" stat -c %a "$W/data/sa.key"
cat >"$W/setup.yaml" <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: team}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: bot, namespace: team}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: bot2, namespace: team}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: bot-view, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects: [{kind: ServiceAccount, name: bot, namespace: team}]
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: team}
spec: {serviceAccountName: bot, containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: other, namespace: team}
spec: {serviceAccountName: bot2, containers: [{name: c, image: nginx}]}
YAML
K create -f "$W/setup.yaml" >/dev/null || failx "setup"
SA_UID=$(field "$(C "$ADMIN" /api/v1/namespaces/team/serviceaccounts/bot)" uid)

# --- kubectl create token: the claims ---
TOK=$(K create token bot -n team)
expect_eq "default token: 1 hour" "3600" lifetime "$TOK"
expect_eq "nbf = iat" "$(num "$TOK" iat)" num "$TOK" nbf
expect_out "aud and iss = the default issuer" \
  '{"aud":["https://kubernetes.default.svc.cluster.local"],"exp":' payload "$TOK"
expect_out "claims: iss, kubernetes.io, sub" \
  '"iss":"https://kubernetes.default.svc.cluster.local","jti":"'"$(field "$(payload "$TOK")" jti)"'","kubernetes.io":{"namespace":"team","serviceaccount":{"name":"bot","uid":"'"$SA_UID"'"}},"nbf":'"$(num "$TOK" iat)"',"sub":"system:serviceaccount:team:bot"}' \
  payload "$TOK"

# --- the token as a kubectl credential ---
WHO=$(K --token "$TOK" auth whoami 2>&1)
expect_out "whoami: the service account" "system:serviceaccount:team:bot" echo "$WHO"
expect_out "whoami: its groups" "[system:serviceaccounts system:serviceaccounts:team system:authenticated]" echo "$WHO"
expect_out "whoami: the credential-id extra" "JTI=$(field "$(payload "$TOK")" jti)" echo "$WHO"
expect_out "no binding in default: forbidden" \
  'pods is forbidden: User \"system:serviceaccount:team:bot\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\"' \
  C "$TOK" /api/v1/namespaces/default/pods
for _ in $(seq 1 100); do C "$TOK" /api/v1/namespaces/team/pods -o /dev/null -w '%{http_code}' | grep -q 200 && break; sleep 0.1; done
expect_out "the RoleBinding to the ServiceAccount grants list" "web" K --token "$TOK" get pods -n team

# --- limits and errors, upstream's texts ---
expect_out "duration under 10 minutes → 422 (kubectl create token --duration)" \
  'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes' \
  K create token bot -n team --duration 1m
OUT=$(treq bot '{"spec":{"expirationSeconds":36000}}' -D "$W/treq.hdr")
expect_out "over --service-account-max-token-expiration: a warning" \
  'Warning: 299 - "requested expiration of 36000 seconds shortened to 7200 seconds"' cat "$W/treq.hdr"
expect_eq "... and capped" "7200" lifetime "$(field "$OUT" token)"
expect_out "unknown service account → 404" '"message":"serviceaccounts \"nobody\" not found"' treq nobody '{}'
expect_out "body name must match" 'metadata.name: Invalid value: \"x\": must match the service account name if specified' \
  treq bot '{"metadata":{"name":"x"}}'
expect_out "bound to a missing pod → 404" '"message":"pods \"nope\" not found"' \
  treq bot '{"spec":{"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"nope"}}}'
expect_out "an unsupported kind → 400" "cannot bind token to object of type /v1, Kind=ConfigMap" \
  treq bot '{"spec":{"boundObjectRef":{"kind":"ConfigMap","apiVersion":"v1","name":"x"}}}'
expect_out "a pod of another service account → 400" \
  'cannot bind token for serviceaccount \"bot\" to pod running with different serviceaccount name.' \
  treq bot '{"spec":{"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"other"}}}'
expect_out "a stale pod uid → 409" \
  'Operation cannot be fulfilled on Pod \"web\": the UID in the bound object reference (0000) does not match the UID in record.' \
  treq bot '{"spec":{"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"web","uid":"0000"}}}'
AUD=$(field "$(treq bot '{"spec":{"audiences":["vault","https://kubernetes.default.svc.cluster.local"]}}')" token)
expect_out "audiences" '{"aud":["vault","https://kubernetes.default.svc.cluster.local"],' payload "$AUD"
VAULT=$(field "$(treq bot '{"spec":{"audiences":["vault"]}}')" token)
expect_out "a token for another audience is no API credential → 401" '"code":401' whoami_raw "$VAULT"

# --- bound to a pod ---
POD_UID=$(field "$(C "$ADMIN" /api/v1/namespaces/team/pods/web)" uid)
PTOK=$(K create token bot -n team --bound-object-kind Pod --bound-object-name web)
expect_out "pod-bound claims" '"pod":{"name":"web","uid":"'"$POD_UID"'"},"serviceaccount"' payload "$PTOK"
expect_out "pod-bound token: the pod-name extra" '"authentication.kubernetes.io/pod-name":["web"]' whoami_raw "$PTOK"
C "$ADMIN" "/api/v1/namespaces/team/pods/web?gracePeriodSeconds=0" -X DELETE -o /dev/null
for _ in $(seq 1 100); do C "$ADMIN" /api/v1/namespaces/team/pods/web -o /dev/null -w '%{http_code}' | grep -q 404 && break; sleep 0.1; done
expect_out "the pod deleted: its token → 401" "Unauthorized" K --token "$PTOK" auth whoami

# --- TokenReview ---
printf '{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"%s"}}' "$TOK" >"$W/tr.json"
R=$(K create --raw /apis/authentication.k8s.io/v1/tokenreviews -f "$W/tr.json")
expect_out "TokenReview (kubectl create -f): authenticated" '"authenticated":true' echo "$R"
expect_out "TokenReview: the user" '"username":"system:serviceaccount:team:bot","uid":"'"$SA_UID"'"' echo "$R"
expect_out "TokenReview: audiences" '"audiences":["https://kubernetes.default.svc.cluster.local"]' echo "$R"
printf 'apiVersion: authentication.k8s.io/v1\nkind: TokenReview\nspec: {token: "%s"}\n' "$TOK" >"$W/tr.yaml"
expect_eq "TokenReview through kubectl create -f (the reviews are in discovery)" "true system:serviceaccount:team:bot" \
  K create -f "$W/tr.yaml" -o jsonpath='{.status.authenticated} {.status.user.username}'
expect_out "kubectl api-resources lists the reviews" "selfsubjectaccessreviews" K api-resources --api-group=authorization.k8s.io
expect_out "TokenReview: token of a deleted pod" '"error":"service account token has been invalidated"' review "$PTOK"
expect_out "TokenReview: requested audiences" '"audiences":["vault"]' review "$VAULT" ',"audiences":["vault"]'
expect_out "TokenReview: wrong audience" \
  '"error":"token audiences [\"vault\"] is invalid for the target audiences [\"https://kubernetes.default.svc.cluster.local\"]"' \
  review "$VAULT"
expect_out "TokenReview: the admin's static token" '"username":"kgate-admin"' review "$ADMIN"
expect_out "TokenReview: an unknown token" '"status":{"user":{}}' review garbage
expect_out "TokenReview: a token is required" "token is required for TokenReview in authentication" review ""

# --- legacy Secret-based tokens: the tokens controller fills them; the Secret's deletion revokes them ---
mksecret() { C "$ADMIN" /api/v1/namespaces/team/secrets -X POST -H 'Content-Type: application/json' -o /dev/null -d \
  "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"$1\",\"annotations\":{\"kubernetes.io/service-account.name\":\"$2\"}},\"type\":\"kubernetes.io/service-account-token\"}"; }
mksecret bot-token bot
mksecret ghost-token ghost
for _ in $(seq 1 100); do LEGACY=$(field "$(C "$ADMIN" /api/v1/namespaces/team/secrets/bot-token)" token); [ -n "$LEGACY" ] && break; sleep 0.1; done
LEGACY=$(base64 -d <<<"$LEGACY")
expect_out "legacy token: issuer kubernetes/serviceaccount" '"iss":"kubernetes/serviceaccount","kubernetes.io/serviceaccount/namespace":"team","kubernetes.io/serviceaccount/secret.name":"bot-token"' payload "$LEGACY"
expect_out "the controller sets ca.crt, namespace and the uid annotation" '"kubernetes.io/service-account.uid":"'"$SA_UID"'"' \
  C "$ADMIN" /api/v1/namespaces/team/secrets/bot-token
expect_out "legacy token authenticates" '"username":"system:serviceaccount:team:bot"' whoami_raw "$LEGACY"
for _ in $(seq 1 100); do C "$ADMIN" /api/v1/namespaces/team/secrets/ghost-token -o /dev/null -w '%{http_code}' | grep -q 404 && break; sleep 0.1; done
expect_out "a token Secret of a missing service account is deleted" '"code":404' C "$ADMIN" /api/v1/namespaces/team/secrets/ghost-token
C "$ADMIN" /api/v1/namespaces/team/secrets/bot-token -X DELETE -o /dev/null
expect_out "the Secret deleted: its token → 401" '"code":401' whoami_raw "$LEGACY"
expect_out "TokenReview: the Secret deleted" '"error":"Token has been invalidated"' review "$LEGACY"

# --- OIDC discovery: readable by service accounts; the JWKS verifies a token ---
expect_out "openid-configuration (as a service account)" \
  '{"issuer":"https://kubernetes.default.svc.cluster.local","jwks_uri":"https://kubernetes.default.svc.cluster.local/openid/v1/jwks","response_types_supported":["id_token"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["RS256"]}' \
  C "$TOK" /.well-known/openid-configuration
expect_out "openid-configuration: Cache-Control" "Cache-Control: public, max-age=3600" \
  C "$TOK" /.well-known/openid-configuration -D - -o /dev/null
expect_out "anonymous may not read the JWKS" '"code":403' curl -sk "$SERVER/openid/v1/jwks"
C "$TOK" /openid/v1/jwks -D "$W/jwks.hdr" >"$W/jwks.json"
expect_out "JWKS content type" "Content-Type: application/jwk-set+json" cat "$W/jwks.hdr"
python3 - "$W" "$TOK" <<'PY'
import base64, json, sys
w, tok = sys.argv[1], sys.argv[2]
b64 = lambda s: base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))
hdr = json.loads(b64(tok.split(".")[0]))
key = [k for k in json.load(open(w + "/jwks.json"))["keys"] if k["kid"] == hdr["kid"]][0]
def der(tag, body):
    n = len(body)
    ln = bytes([n]) if n < 128 else bytes([0x80 | ((n.bit_length() + 7) // 8)]) + n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([tag]) + ln + body
def integer(b):
    return der(0x02, (b"\0" + b) if b[0] & 0x80 else b)
rsa = der(0x30, integer(b64(key["n"])) + integer(b64(key["e"])))
alg = der(0x30, der(0x06, bytes.fromhex("2a864886f70d010101")) + b"\x05\x00")
spki = der(0x30, alg + der(0x03, b"\0" + rsa))
open(w + "/pub.pem", "w").write("-----BEGIN PUBLIC KEY-----\n" + base64.encodebytes(spki).decode() + "-----END PUBLIC KEY-----\n")
h, p, s = tok.split(".")
open(w + "/input", "w").write(h + "." + p)
open(w + "/sig", "wb").write(b64(s))
PY
expect_out "the JWKS key verifies the token (openssl)" "Verified OK" \
  openssl dgst -sha256 -verify "$W/pub.pem" -signature "$W/sig" "$W/input"

# --- the ServiceAccount deleted: its tokens stop working ---
T2=$(field "$(treq bot2 '{}')" token)
C "$ADMIN" /api/v1/namespaces/team/serviceaccounts/bot -X DELETE -o /dev/null
expect_out "token of a deleted service account → 401" '"code":401' whoami_raw "$TOK"
expect_out "TokenReview: deleted service account" '"error":"serviceaccounts \"bot\" not found"' review "$TOK"

# --- a restart reuses the key: tokens issued before stay valid ---
stop_kgate
start_kgate "$W/data" || exit 1
SERVER=$(awk '/server:/ {print $2; exit}' "$KUBECONFIG")
expect_out "after a restart the same key verifies old tokens" '"username":"system:serviceaccount:team:bot2"' whoami_raw "$T2"
finish
