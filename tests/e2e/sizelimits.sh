#!/usr/bin/env bash
# Size limits (issue 20): JSON patch copy amplification is cut at upstream's 3 MiB copy budget (422), a stored
# object is at most --max-object-bytes (500 "etcdserver: request is too large", as kube-apiserver passes etcd's
# error through), ConfigMap/Secret data at most 1 MiB (MaxSecretSize) with upstream's field error; server memory
# stays bounded through all of it. Errors echo at most 4096 bytes of a huge invalid value, key or name (a 1 MiB
# label value got a 2 MB 422 before).
KGATE=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
trap 'stop_kgate; rm -rf "$W"' EXIT
start_kgate "$W/data" || exit 1
TOKEN=$(awk '/token:/ {print $2}' "$W/data/admin.kubeconfig")
URL=$(awk '/server:/ {print $2}' "$W/data/admin.kubeconfig")
H=(-sk -H "Authorization: Bearer $TOKEN")
CM=$URL/api/v1/namespaces/default/configmaps
rss() { awk '/VmRSS/ {print int($2 / 1024)}' /proc/$KGATE_PID/status; }
# a 300 kB value doubled by copy operations: 18 of them would reach 78 GB
python3 - >"$W/cm.json" <<'PY'
import json
print(json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "amp"}, "data": {"a": "x" * 300000}}))
PY
curl "${H[@]}" -H 'Content-Type: application/json' -X POST "$CM" --data-binary @"$W/cm.json" -o /dev/null
python3 - >"$W/patch.json" <<'PY'
import json
ops = [{"op": "copy", "from": "/data", "path": "/metadata/annotations"}]
for i in range(18):
    ops.append({"op": "copy", "from": "/data", "path": f"/data/k{i}"} if i == 0 else
               {"op": "copy", "from": "/data/a", "path": f"/data/k{i}"})
print(json.dumps(ops))
PY
rss0=$(rss)
out=$(curl "${H[@]}" -H 'Content-Type: application/json-patch+json' -X PATCH "$CM/amp" --data-binary @"$W/patch.json" -w ' %{http_code}')
expect_out "copy amplification: 422" " 422" echo "$out"
expect_out "... with upstream's AccumulatedCopySizeLimit message" \
  'Unable to complete the copy, the accumulated size increase of copy is' echo "$out"
expect_out "... and the limit" 'exceeding the limit 3145728' echo "$out"
rss1=$(rss)
[ $((rss1 - rss0)) -lt 100 ] && pass "RSS stays bounded (${rss0} -> ${rss1} MB)" || failx "RSS bounded" "${rss0} -> ${rss1} MB"
# an object under the 3 MiB body limit but over the 1.5 MiB storage limit: the store refuses it
python3 - >"$W/ev.json" <<'PY'
import json
print(json.dumps({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "huge"}, "message": "m" * 2000000,
                  "involvedObject": {"kind": "ConfigMap", "name": "amp", "namespace": "default"}}))
PY
out=$(curl "${H[@]}" -H 'Content-Type: application/json' -X POST "$URL/api/v1/namespaces/default/events" --data-binary @"$W/ev.json" -w ' %{http_code}')
expect_eq "object over 1.5 MiB: etcd's error, 500" \
  '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"etcdserver: request is too large","code":500} 500' \
  echo "$out"
expect_out "... and nothing stored" '"code":404' curl "${H[@]}" "$URL/api/v1/namespaces/default/events/huge"
# ConfigMap and Secret data over 1 MiB: validation
python3 - >"$W/big.json" <<'PY'
import json
print(json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "big"},
                  "data": {"a": "x" * 600000, "b": "x" * 600000}}))
PY
out=$(curl "${H[@]}" -H 'Content-Type: application/json' -X POST "$CM" --data-binary @"$W/big.json" -w ' %{http_code}')
expect_out "ConfigMap data over 1 MiB: 422" " 422" echo "$out"
expect_out "... upstream's message" 'ConfigMap \"big\" is invalid: []: Too long: may not be more than 1048576 bytes' echo "$out"
python3 - >"$W/secret.json" <<'PY'
import base64, json
v = base64.b64encode(b"s" * 1100000).decode()
print(json.dumps({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "big"}, "data": {"a": v}}))
PY
out=$(curl "${H[@]}" -H 'Content-Type: application/json' -X POST "$URL/api/v1/namespaces/default/secrets" --data-binary @"$W/secret.json" -w ' %{http_code}')
expect_out "Secret data over 1 MiB (decoded): 422" " 422" echo "$out"
expect_out "... upstream's message" 'Secret \"big\" is invalid: data: Too long: may not be more than 1048576 bytes' echo "$out"
# huge invalid values are echoed bounded: a 1 MiB label value, a 1 MiB data key (in the field path too), a 1 MiB name
python3 - "$W" <<'PY'
import json, sys
big = "v" * 1048576
bodies = {"label": {"metadata": {"name": "lbl", "labels": {"k": big}}, "data": {}},
          "key": {"metadata": {"name": "key"}, "data": {"bad key " + big: "x"}},
          "name": {"metadata": {"name": "n" + big}}}
for f, b in bodies.items():
    b.update({"apiVersion": "v1", "kind": "ConfigMap"})
    open(f"{sys.argv[1]}/{f}.json", "w").write(json.dumps(b))
PY
for f in label key name; do
  curl "${H[@]}" -H 'Content-Type: application/json' -X POST "$CM" --data-binary @"$W/$f.json" -o "$W/$f.out" -w '%{http_code} %{size_download}' >"$W/$f.code"
done
read -r code size <"$W/label.code"
[ "$code" = 422 ] && [ "$size" -lt 10240 ] && pass "a 1 MiB invalid label value: 422 of $size bytes" ||
  failx "a 1 MiB invalid label value gets a bounded 422" "code $code, $size bytes"
expect_out "... upstream's text, the value cut at 4096 bytes and marked" \
  "ConfigMap \\\"lbl\\\" is invalid: metadata.labels: Invalid value: \\\"$(printf 'v%.0s' $(seq 4096))\\\"... (truncated from 1048576 bytes): must be no more than 63 characters" cat "$W/label.out"
read -r code size <"$W/key.code"
[ "$code" = 422 ] && [ "$size" -lt 20480 ] && pass "a 1 MiB invalid data key (value and field path): 422 of $size bytes" ||
  failx "a 1 MiB invalid data key gets a bounded 422" "code $code, $size bytes"
expect_out "... the path is cut too" '"field":"data[bad key vvvv' cat "$W/key.out"
read -r code size <"$W/name.code"
[ "$code" = 422 ] && [ "$size" -lt 20480 ] && pass "a 1 MiB invalid name: 422 of $size bytes" ||
  failx "a 1 MiB invalid name gets a bounded 422" "code $code, $size bytes"
# decode errors too: a 1 MB integer literal, a 1 MB unknown field name under fieldValidation=Strict (400)
python3 - "$W" <<'PY'
import sys
open(f"{sys.argv[1]}/num.json", "w").write('{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"priority":' + "9" * 1000000 + '}}')
open(f"{sys.argv[1]}/unk.json", "w").write('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"u"},"' + "f" * 1000000 + '":1}')
PY
out=$(curl "${H[@]}" -H 'Content-Type: application/json' -X POST "$URL/api/v1/namespaces/default/pods" --data-binary @"$W/num.json" -w ' %{http_code} %{size_download}')
expect_out "a 1 MB integer literal: 400, the literal cut" '... (truncated from 1000000 bytes) into Go struct field PodSpec.spec.priority of type int32' echo "$out"
[ "${out##* }" -lt 6144 ] && pass "... in ${out##* } bytes" || failx "... bounded" "${out##* } bytes"
out=$(curl "${H[@]}" -H 'Content-Type: application/json' -X POST "$CM?fieldValidation=Strict" --data-binary @"$W/unk.json" -w ' %{http_code} %{size_download}')
expect_out "a 1 MB unknown field name (Strict): 400, the name cut" '... (truncated from 1000000 bytes)\"","reason":"BadRequest","code":400} 400' echo "$out"
[ "${out##* }" -lt 6144 ] && pass "... in ${out##* } bytes" || failx "... bounded" "${out##* } bytes"
# --max-object-bytes lowers the limit
stop_kgate
start_kgate "$W/data" --max-object-bytes=100000 || exit 1
URL=$(awk '/server:/ {print $2}' "$W/data/admin.kubeconfig")
CM=$URL/api/v1/namespaces/default/configmaps
out=$(curl "${H[@]}" -H 'Content-Type: application/merge-patch+json' -X PATCH "$CM/amp" -d '{"data":{"b":"c"}}' -w ' %{http_code}')
expect_out "--max-object-bytes=100000 refuses a 300 kB object" 'etcdserver: request is too large","code":500} 500' echo "$out"
finish
