#!/usr/bin/env bash
# TLS settings (issue 20): --tls-min-version and --tls-cipher-suites with upstream's names; by default TLS 1.2+
# with AEAD suites only (no CBC-SHA1), checked with openssl s_client; the serving pair reloads when its files change.
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
# serving certificate reload: a new pair on disk is served to new connections within seconds; a broken one is not
serial() { timeout 10 openssl s_client -connect "$(hostport)" </dev/null 2>/dev/null | openssl x509 -noout -serial; }
wait_serial() { # wait_serial WANT: polls for up to 8 s
  for _ in $(seq 1 80); do [ "$(serial)" = "serial=$1" ] && return 0; sleep 0.1; done
  return 1
}
newpair() { # newpair SERIAL OUT-PREFIX: a pair signed by the data dir's CA
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=kgate-reloaded \
    -keyout "$2.key" -out "$2.csr" 2>/dev/null &&
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nextendedKeyUsage=serverAuth\n' >"$2.ext" &&
    openssl x509 -req -in "$2.csr" -CA "$W/data/ca.crt" -CAkey "$W/data/ca.key" -set_serial "0x$1" -days 2 \
      -extfile "$2.ext" -out "$2.crt" 2>/dev/null
}
newpair 4B474154 "$W/p1" && newpair 4B474155 "$W/p2" || failx "openssl could not make test certificates"
cp "$W/p1.key" "$W/data/apiserver.key.tmp" && cp "$W/p1.crt" "$W/data/apiserver.crt.tmp" &&
  mv "$W/data/apiserver.key.tmp" "$W/data/apiserver.key" && mv "$W/data/apiserver.crt.tmp" "$W/data/apiserver.crt"
wait_serial 4B474154 && pass "a new serving pair on disk is served to new connections" ||
  failx "a new serving pair on disk is served to new connections" "$(serial)"
expect_out "kubectl verifies the reloaded certificate" "default" kubectl get ns default
cp "$W/p2.crt" "$W/data/apiserver.crt" # its key is p2.key: the pair on disk does not match
sleep 2.5
expect_eq "a mismatched pair is refused and the current one kept" "serial=4B474154" serial
expect_out "... and logged" "serving certificate not reloaded, keeping the current one" cat "$W/data/serve.log"
cp "$W/p2.key" "$W/data/apiserver.key"
wait_serial 4B474155 && pass "... and picked up once the pair matches again" ||
  failx "... and picked up once the pair matches again" "$(serial)"
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
