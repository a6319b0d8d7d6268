#!/usr/bin/env bash
# TLS settings (issue 20): --tls-min-version and --tls-cipher-suites with upstream's names; by default TLS 1.2+
# with AEAD suites only (no CBC-SHA1), checked with openssl s_client.
KGATE=$1
. "$(dirname "$0")/lib.sh"
command -v openssl >/dev/null || { echo "openssl not found: skipping"; exit 77; }
W=$(mktemp -d)
trap 'stop_kgate; rm -rf "$W"' EXIT
hostport() { awk '/server:/ {print $2}' "$W/data/admin.kubeconfig" | sed 's|https://||'; }
# handshake NAME ARGS... : prints "ok <protocol> <suite>" or "refused"
handshake() {
  local out
  out=$(timeout 10 openssl s_client -brief -connect "$(hostport)" "$@" </dev/null 2>&1)
  if printf '%s' "$out" | grep -q "CONNECTION ESTABLISHED"; then
    echo "ok $(printf '%s' "$out" | awk -F': ' '/Protocol version/ {print $2}') $(printf '%s' "$out" | awk -F': ' '/Ciphersuite/ {print $2}')"
  else
    echo refused
  fi
}
start_kgate "$W/data" || exit 1
expect_out "default: TLS 1.3" "ok TLSv1.3" handshake -tls1_3
expect_eq "default: TLS 1.2 with an ECDHE AES-GCM suite" "ok TLSv1.2 ECDHE-ECDSA-AES128-GCM-SHA256" \
  handshake -tls1_2 -cipher ECDHE-ECDSA-AES128-GCM-SHA256
expect_eq "default: TLS 1.2 ChaCha20-Poly1305" "ok TLSv1.2 ECDHE-ECDSA-CHACHA20-POLY1305" \
  handshake -tls1_2 -cipher ECDHE-ECDSA-CHACHA20-POLY1305
expect_eq "default: no CBC-SHA1 suite" "refused" handshake -tls1_2 -cipher ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA
expect_eq "default: no CBC-SHA256 suite" "refused" handshake -tls1_2 -cipher ECDHE-ECDSA-AES128-SHA256
expect_eq "default: no TLS 1.1" "refused" handshake -tls1_1 -cipher 'DEFAULT:@SECLEVEL=0'
expect_out "kubectl works with the defaults" "default" kubectl get ns default
stop_kgate
start_kgate "$W/data" --tls-min-version=VersionTLS13 || exit 1
expect_eq "--tls-min-version=VersionTLS13: no TLS 1.2" "refused" handshake -tls1_2
expect_out "--tls-min-version=VersionTLS13: TLS 1.3" "ok TLSv1.3" handshake -tls1_3
expect_out "kubectl works over TLS 1.3 only" "default" kubectl get ns default
stop_kgate
start_kgate "$W/data" --tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA,TLS_AES_128_GCM_SHA256 || exit 1
expect_eq "--tls-cipher-suites: a listed CBC suite is offered" "ok TLSv1.2 ECDHE-ECDSA-AES128-SHA" \
  handshake -tls1_2 -cipher ECDHE-ECDSA-AES128-SHA
expect_eq "--tls-cipher-suites: an unlisted one is not" "refused" handshake -tls1_2 -cipher ECDHE-ECDSA-CHACHA20-POLY1305
stop_kgate
expect_out "bad --tls-min-version: upstream's error" 'Error: unknown tls version "VersionTLS14"' \
  "$KGATE" serve --data-dir "$W/data" --secure-port 0 --tls-min-version=VersionTLS14
expect_out "bad --tls-cipher-suites: upstream's error" "Error: Cipher suite TLS_FOO not supported or doesn't exist" \
  "$KGATE" serve --data-dir "$W/data" --secure-port 0 --tls-cipher-suites=TLS_FOO
finish
