#!/usr/bin/env bash
# Disk full (issue 20): on a small tmpfs, a write that cannot be stored fails with a 500 Status naming the
# cause, /readyz fails until a write succeeds again, deletes still succeed (the disk reserve is given back; other
# writes wait until it can be allocated again), and a restart on the full disk succeeds (existing files are not rewritten; a kubeconfig that must change
# is left as it is with a warning). Skipped where mounting a tmpfs is not permitted.
KGATE=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
M=$W/mnt
mkdir -p "$M"
if ! mount -t tmpfs -o size=16m tmpfs "$M" 2>/dev/null; then
  echo "skipping: mounting a tmpfs is not permitted here (needs root or CAP_SYS_ADMIN)"
  rmdir "$M"; rm -rf "$W"
  exit 77
fi
trap 'stop_kgate; umount "$M"; rm -rf "$W"' EXIT
start_kgate "$M/d" || exit 1
head -c 6000000 /dev/zero >"$M/ballast" # freed later: space comes back from outside the API
TOKEN=$(awk '/token:/ {print $2}' "$M/d/admin.kubeconfig")
URL=$(awk '/server:/ {print $2}' "$M/d/admin.kubeconfig")
H=(-sk -H "Authorization: Bearer $TOKEN")
python3 -c "import json; print(json.dumps({'apiVersion':'v1','kind':'ConfigMap','metadata':{'generateName':'f-'},'data':{'a':'x'*500000}}))" >"$W/cm.json"
code=""
for _ in $(seq 1 60); do
  code=$(curl "${H[@]}" -H 'Content-Type: application/json' -X POST "$URL/api/v1/namespaces/default/configmaps" \
    --data-binary @"$W/cm.json" -o "$W/resp" -w '%{http_code}')
  [ "$code" != 201 ] && break
done
expect_eq "a write on the full disk fails with 500" "500" echo "$code"
expect_out "... a Status naming the cause" '"message":"sqlite: commit: database or disk is full"' cat "$W/resp"
RZ=(curl "${H[@]}" -w ' %{http_code}' "$URL/readyz")
expect_out "/readyz fails while writes fail" "[-]etcd failed: reason withheld" "${RZ[@]}"
expect_out "... with 500" "readyz check failed
 500" "${RZ[@]}"
expect_eq "/livez stays ok" "ok 200" curl "${H[@]}" -w ' %{http_code}' "$URL/livez"
# deletes on the full disk: the reserve (kgate.reserve) is given back so that every delete succeeds
names=$(curl "${H[@]}" "$URL/api/v1/namespaces/default/configmaps" | python3 -c \
  'import json,sys; print(" ".join(i["metadata"]["name"] for i in json.load(sys.stdin)["items"] if i["metadata"]["name"].startswith("f-")))')
ndel=0 nok=0
for n in $names; do
  ndel=$((ndel + 1))
  c=$(curl "${H[@]}" -X DELETE "$URL/api/v1/namespaces/default/configmaps/$n" -o "$W/resp" -w '%{http_code}')
  [ "$c" = 200 ] && nok=$((nok + 1)) || cat "$W/resp"
done
[ "$ndel" -ge 3 ] && pass "the disk was filled with $ndel objects" || failx "the disk was filled with $ndel objects"
expect_eq "every delete succeeds on the full disk" "$ndel" echo "$nok"
expect_out "... after the reserve is given back" "releasing the 4194304-byte reserve" cat "$M/d/serve.log"
expect_eq "... (the reserve file is gone)" "gone" bash -c "[ -e '$M/d/kgate.reserve' ] && echo present || echo gone"
expect_eq "until there is room again, other writes are refused" "500" curl "${H[@]}" -H 'Content-Type: application/json' \
  -X POST "$URL/api/v1/namespaces/default/configmaps" -d '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"f-"}}' \
  -o "$W/resp" -w '%{http_code}'
expect_out "... saying so" "only deletes are accepted until space is freed" cat "$W/resp"
expect_out "... and /readyz still fails" "[-]etcd failed" "${RZ[@]}"
rm -f "$M/ballast"
expect_eq "space freed: a write succeeds again" "201" curl "${H[@]}" -H 'Content-Type: application/json' -X POST \
  "$URL/api/v1/namespaces/default/configmaps" -d '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"f-"}}' \
  -o /dev/null -w '%{http_code}'
expect_eq "... and /readyz is ok again" "ok 200" "${RZ[@]}"
expect_eq "... and the reserve is allocated again" "4194304" stat -c %s "$M/d/kgate.reserve"
stored=$(curl "${H[@]}" "$URL/api/v1/namespaces/default/configmaps" | grep -o '"generateName":"f-"' | wc -l)
stop_kgate
head -c 20000000 /dev/zero >"$M/ballast2" 2>/dev/null # the disk is full again for the restart
expect_eq "the disk is full" "0" bash -c "df --output=avail '$M' | tail -1 | tr -d ' '"
"$KGATE" serve --data-dir "$M/d" --secure-port 0 >"$W/serve2.log" 2>&1 &
KGATE_PID=$!
for _ in $(seq 1 100); do grep -q "is running" "$W/serve2.log" && break; sleep 0.05; done
expect_out "restart on the full disk succeeds" "kgate serve is running" cat "$W/serve2.log"
expect_out "... warning that the kubeconfig could not be updated" "could not update" cat "$W/serve2.log"
URL2=$(grep -o 'https://127.0.0.1:[0-9]*' "$W/serve2.log" | head -1)
expect_eq "... and every acknowledged object is there" "$stored" \
  bash -c "curl -sk -H 'Authorization: Bearer $TOKEN' '$URL2/api/v1/namespaces/default/configmaps' | grep -o '\"generateName\":\"f-\"' | wc -l"
finish
