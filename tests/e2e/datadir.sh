#!/usr/bin/env bash
# One owner per data dir (issue 20): a second kgate serve on the same data dir exits at once naming the owner's
# pid and writes nothing; the data dir is 0700 and the database files 0600 whatever the existing modes; files
# that exist and are valid are not rewritten on restart.
KGATE=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
trap 'stop_kgate; rm -rf "$W"' EXIT
D=$W/data
mkdir -p "$D" && chmod 0755 "$D"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$KGATE" serve --data-dir "$D" --secure-port "$PORT" >"$W/serve1.log" 2>&1 &
KGATE_PID=$!
for _ in $(seq 1 200); do grep -q "is running" "$W/serve1.log" 2>/dev/null && break; sleep 0.05; done
export KUBECONFIG=$D/admin.kubeconfig
expect_eq "an existing data dir is made 0700" "700" stat -c %a "$D"
expect_eq "kgate.db is 0600" "600" stat -c %a "$D/kgate.db"
expect_eq "kgate.db-wal is 0600" "600" stat -c %a "$D/kgate.db-wal"
sums() { (cd "$D" && md5sum admin.kubeconfig admin.token ca.crt ca.key apiserver.crt apiserver.key); }
before=$(sums)
start=$(date +%s%N)
out=$(timeout 10 "$KGATE" serve --data-dir "$D" --secure-port 0 2>&1)
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
if [ $rc -ne 0 ] && [ $rc -ne 124 ]; then pass "a second instance exits with an error"; else failx "a second instance exits with an error" "rc=$rc"; fi
expect_eq "... naming the owner" "Error: data dir $D is in use by another kgate serve (pid $KGATE_PID)" echo "$out"
[ "$ms" -lt 2000 ] && pass "... at once (${ms} ms)" || failx "... at once" "${ms} ms"
expect_eq "... and rewrites nothing" "$before" sums
expect_out "the owner still serves writes" "configmap/after-second created" kubectl create configmap after-second
m1=$(stat -c %Y.%y "$D/admin.kubeconfig" "$D/ca.crt" "$D/apiserver.crt" "$D/admin.token")
stop_kgate
sleep 1.1
"$KGATE" serve --data-dir "$D" --secure-port "$PORT" >"$W/serve2.log" 2>&1 &
KGATE_PID=$!
for _ in $(seq 1 200); do grep -q "is running" "$W/serve2.log" 2>/dev/null && break; sleep 0.05; done
expect_out "restart on the same data dir (the lock died with the owner)" "after-second" kubectl get configmap after-second
expect_eq "a restart rewrites no valid existing file" "$m1" stat -c %Y.%y "$D/admin.kubeconfig" "$D/ca.crt" "$D/apiserver.crt" "$D/admin.token"
kill -9 "$KGATE_PID"; wait "$KGATE_PID" 2>/dev/null
KGATE_PID=""
start_kgate "$D" || exit 1
expect_out "after kill -9 the next instance gets the lock" "after-second" kubectl get configmap after-second
finish
