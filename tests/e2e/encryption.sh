#!/usr/bin/env bash
# Encryption at rest (--encryption-provider-config, issue 20 point 6): Secrets (aescbc) and ConfigMaps (aesgcm)
# are stored encrypted (the raw database holds no plaintext value), kubectl reads them unchanged, watches see
# plaintext, keys rotate by rewriting every object (kubectl get -o json | kubectl replace --validate=false -f -),
# including from aescbc to secretbox (XSalsa20-Poly1305), and a bad configuration stops the server with upstream's
# validation message.
KGATE=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
trap 'stop_kgate; rm -rf "$W"' EXIT
D=$W/data
K1=$(head -c 32 /dev/urandom | base64)
K2=$(head -c 16 /dev/urandom | base64)
K3=$(head -c 24 /dev/urandom | base64)
config() { # config FILE SECRETS-PROVIDERS-YAML
  cat >"$1" <<EOF
apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
- resources: [secrets]
  providers:
$2
- resources: [configmaps]
  providers:
  - aesgcm:
      keys:
      - {name: gcm1, secret: "$K3"}
  - identity: {}
EOF
}
config "$W/enc1.yaml" "  - aescbc:
      keys:
      - {name: key1, secret: \"$K1\"}
  - identity: {}"

# a plain secret written before encryption is enabled: readable after, re-encrypted by the rewrite
start_kgate "$D" || exit 1
kubectl create secret generic before --from-literal=v=plain-before-enc-7731 >/dev/null
stop_kgate

start_kgate "$D" --encryption-provider-config "$W/enc1.yaml" || exit 1
VAL=s3cr3t-value-4f1e9a
VAL64=$(printf %s "$VAL" | base64)
# field(JSON-FILE, python expression over the document d): one kubectl call feeds several checks
field() { python3 -c 'import json,sys,base64; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
kubectl get --raw /api/v1/namespaces/default/secrets >"$W/l0.json"
RV=$(field "$W/l0.json" 'd["metadata"]["resourceVersion"]')
expect_out "create a secret, a configmap and a namespace" "secret/s1 created" sh -c "kubectl create --validate=false -f - <<EOF
{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [
 {\"apiVersion\": \"v1\", \"kind\": \"Secret\", \"metadata\": {\"name\": \"s1\"}, \"data\": {\"v\": \"$VAL64\"}},
 {\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"c1\"}, \"data\": {\"v\": \"cm-plain-8842\"}},
 {\"apiVersion\": \"v1\", \"kind\": \"Namespace\", \"metadata\": {\"name\": \"ns-plain-marker\"}}]}
EOF"
kubectl get secrets,configmaps -o json >"$W/l1.json"
obj='{i["metadata"]["name"]: i for i in d["items"]}'
expect_eq "kubectl reads the secret unchanged" "$VAL" field "$W/l1.json" "base64.b64decode(($obj)['s1']['data']['v']).decode()"
expect_eq "kubectl reads the configmap unchanged" "cm-plain-8842" field "$W/l1.json" "($obj)['c1']['data']['v']"
expect_eq "a secret written before encryption still reads (identity)" "plain-before-enc-7731" \
  field "$W/l1.json" "base64.b64decode(($obj)['before']['data']['v']).decode()"
expect_out "a watch from before the write sees plaintext" "$VAL64" \
  kubectl get --raw "/api/v1/namespaces/default/secrets?watch=1&resourceVersion=$RV&timeoutSeconds=1"
expect_out "a field selector filters decrypted objects" "s1" kubectl get secrets --field-selector metadata.name=s1 -o name
cat "$D"/kgate.db* | strings >"$W/raw"
raw() { cat "$W/raw"; }
expect_not "the raw database holds no plaintext secret value" "$VAL" raw
expect_not "... nor its base64 form" "$VAL64" raw
expect_not "... nor the configmap value" "cm-plain-8842" raw
expect_out "secrets are stored with upstream's aescbc prefix" "k8s:enc:aescbc:v1:key1:" raw
expect_out "configmaps with the aesgcm prefix" "k8s:enc:aesgcm:v1:gcm1:" raw
expect_out "other resources stay plain" '"name":"ns-plain-marker"' raw
stop_kgate

# rotation: key2 (aesgcm) first, key1 and identity still readable; rewriting re-encrypts; then key1 can go
config "$W/enc2.yaml" "  - aesgcm:
      keys:
      - {name: key2, secret: \"$K2\"}
  - aescbc:
      keys:
      - {name: key1, secret: \"$K1\"}
  - identity: {}"
start_kgate "$D" --encryption-provider-config "$W/enc2.yaml" || exit 1
kubectl get secrets -o json >"$W/l2.json"
expect_eq "old key still decrypts after the new key is added" "$VAL" \
  field "$W/l2.json" "base64.b64decode(($obj)['s1']['data']['v']).decode()"
RV1=$(field "$W/l2.json" "($obj)['s1']['metadata']['resourceVersion']")
expect_out "rewrite every secret" "secret/s1 replaced" sh -c "kubectl replace --validate=false -f $W/l2.json"
kubectl get secrets -o json >"$W/l3.json"
RV2=$(field "$W/l3.json" "($obj)['s1']['metadata']['resourceVersion']")
[ "$RV1" != "$RV2" ] && pass "an unchanged stale object is still written (rv $RV1 -> $RV2)" ||
  failx "an unchanged stale object is still written" "rv stayed $RV1"
kubectl replace --validate=false -f "$W/l3.json" >/dev/null
expect_eq "... but a fresh one is not rewritten (no-op update)" "$RV2" kubectl get secret s1 -o jsonpath='{.metadata.resourceVersion}'
stop_kgate
config "$W/enc3.yaml" "  - aesgcm:
      keys:
      - {name: key2, secret: \"$K2\"}"
sed -i 's/name: gcm1/name: gcm9/' "$W/enc3.yaml" # configmaps: the key c1 was written with is gone
start_kgate "$D" --encryption-provider-config "$W/enc3.yaml" || exit 1
kubectl get secrets -o json >"$W/l4.json"
expect_eq "after rotation the old key is not needed" "$VAL" \
  field "$W/l4.json" "base64.b64decode(($obj)['s1']['data']['v']).decode()"
expect_eq "... also for the secret once stored in plain text" "plain-before-enc-7731" \
  field "$W/l4.json" "base64.b64decode(($obj)['before']['data']['v']).decode()"
expect_out "a value no configured provider can read is an internal error" "no matching prefix found" \
  kubectl get configmap c1
stop_kgate

# rotation aescbc -> secretbox on a fresh data dir: secretbox first, aescbc still reads; rewrite; then secretbox only
D3=$W/data3
KB=$(head -c 32 /dev/urandom | base64)
box() { printf '  - secretbox:\n      keys:\n      - {name: box1, secret: "%s"}\n' "$KB"; }
cbc() { printf '  - aescbc:\n      keys:\n      - {name: key1, secret: "%s"}\n' "$K1"; }
config "$W/enc4.yaml" "$(cbc)"
config "$W/enc5.yaml" "$(box)
$(cbc)"
config "$W/enc6.yaml" "$(box)"
BVAL=box-plain-value-5e21c0
start_kgate "$D3" --encryption-provider-config "$W/enc4.yaml" || exit 1
kubectl create secret generic sb --from-literal=v=$BVAL >/dev/null
stop_kgate
start_kgate "$D3" --encryption-provider-config "$W/enc5.yaml" || exit 1
kubectl get secret sb -o json >"$W/b1.json"
expect_eq "secretbox first: the aescbc secret still reads" "$BVAL" field "$W/b1.json" "base64.b64decode(d['data']['v']).decode()"
expect_out "rewrite it" "secret/sb replaced" kubectl replace --validate=false -f "$W/b1.json"
kubectl create secret generic sb2 --from-literal=v=${BVAL}2 >/dev/null
cat "$D3"/kgate.db* | strings >"$W/raw"
expect_out "the rewritten secret is stored with upstream's secretbox prefix" "k8s:enc:secretbox:v1:box1:" raw
expect_not "the raw database holds no plaintext secretbox value" "$BVAL" raw
expect_not "... nor its base64 form" "$(printf %s $BVAL | base64)" raw
stop_kgate
start_kgate "$D3" --encryption-provider-config "$W/enc6.yaml" || exit 1
kubectl get secrets -o json >"$W/b2.json"
expect_eq "secretbox only: kubectl reads both secrets back" "$BVAL ${BVAL}2" \
  field "$W/b2.json" "' '.join(base64.b64decode(i['data']['v']).decode() for i in sorted(d['items'], key=lambda i: i['metadata']['name']) if i['metadata']['name'].startswith('sb'))"
stop_kgate

# validation as upstream
config "$W/bad.yaml" "  - aescbc:
      keys:
      - {name: k, secret: \"$(printf 12345678 | base64)\"}
  - secretbox:
      keys:
      - {name: b, secret: \"$K2\"}"
expect_out "a short key is refused with upstream's message" \
  'error while parsing encryption provider configuration file "'"$W"'/bad.yaml": error while parsing file: [resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 8, expected one of [16 24 32], resources[0].providers[1].secretbox.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 16, expected one of [32]]' \
  timeout 10 "$KGATE" serve --data-dir "$W/d2" --secure-port 0 --encryption-provider-config "$W/bad.yaml"
finish
