#!/usr/bin/env bash
# One storage, several served versions (docs/serve.md): autoscaling/v1 and v2 HorizontalPodAutoscalers are the same
# objects, and so are core/v1 and events.k8s.io/v1 Events. Each is created through one version and read, listed,
# watched, updated, patched and deleted through the other, over HTTP (curl with the admin token; the answers are
# kgate's compact JSON, checked by substring); kubectl autoscale, get hpa and events when kubectl is installed.
KGATE=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
WATCH_PID=""
trap '[ -n "$WATCH_PID" ] && kill "$WATCH_PID" 2>/dev/null; stop_kgate; rm -rf "$W"' EXIT
start_kgate "$W/data" || exit 1
S=$(awk '/server:/ {print $2; exit}' "$KUBECONFIG")
T=$(awk '/token:/ {print $2; exit}' "$KUBECONFIG")
C() { curl -sk -H "Authorization: Bearer $T" -H 'Content-Type: application/json' "$@"; }
MP() { curl -sk -X PATCH -H "Authorization: Bearer $T" -H 'Content-Type: application/merge-patch+json' "$@"; }
HPA1=$S/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers
HPA2=$S/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers
EV1=$S/api/v1/namespaces/default/events
EV2=$S/apis/events.k8s.io/v1/namespaces/default/events

# ---- discovery ----
C "$S/apis/autoscaling" >"$W/g.json"
expect_out "autoscaling: v2 preferred" '"preferredVersion":{"groupVersion":"autoscaling/v2","version":"v2"}' cat "$W/g.json"
expect_out "autoscaling: v2 and v1 served" \
  '"versions":[{"groupVersion":"autoscaling/v2","version":"v2"},{"groupVersion":"autoscaling/v1","version":"v1"}]' \
  cat "$W/g.json"
expect_out "autoscaling/v1 lists horizontalpodautoscalers/status" '"horizontalpodautoscalers/status"' \
  C "$S/apis/autoscaling/v1"

# ---- HPA: v1 -> v2 ----
C -X POST "$HPA1" -d '{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"h1"},
  "spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":5,
  "targetCPUUtilizationPercentage":70}}' >"$W/h1.json"
expect_out "created through v1: answered in v1" '{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler"' \
  cat "$W/h1.json"
expect_out "created through v1: minReplicas defaulted" '"minReplicas":1,"maxReplicas":5,"targetCPUUtilizationPercentage":70}' \
  cat "$W/h1.json"
C "$HPA2/h1" >"$W/h1v2.json"
expect_out "read through v2: the CPU target is a Resource metric" \
  '"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":70}}}]' \
  cat "$W/h1v2.json"
UID1=$(grep -o '"uid":"[^"]*"' "$W/h1.json" | head -1)
expect_out "one object: the same uid through v2" "$UID1" cat "$W/h1v2.json"

# ---- HPA: v2 -> v1, the annotations round trip ----
C -X POST "$HPA2" -d '{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"h2"},
  "spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":5,"metrics":[
  {"type":"Resource","resource":{"name":"memory","target":{"type":"AverageValue","averageValue":"100Mi"}}},
  {"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":60}}}],
  "behavior":{"scaleDown":{"stabilizationWindowSeconds":30}}}}' >/dev/null
C "$HPA1/h2" >"$W/h2v1.json"
expect_out "read through v1: targetCPUUtilizationPercentage" '"targetCPUUtilizationPercentage":60}' cat "$W/h2v1.json"
expect_out "read through v1: the memory metric in upstream's annotation" \
  '"autoscaling.alpha.kubernetes.io/metrics":"[{\"type\":\"Resource\",\"resource\":{\"name\":\"memory\",\"targetAverageValue\":\"100Mi\"}}]"' \
  cat "$W/h2v1.json"
expect_out "read through v1: behavior in upstream's annotation" \
  '\"ScaleDown\":{\"StabilizationWindowSeconds\":30' cat "$W/h2v1.json"
# PUT the v1 object back with a new maxReplicas: the v2-only parts survive through the annotations
sed -i 's/"maxReplicas":5/"maxReplicas":7/' "$W/h2v1.json"
expect_out "update through v1" '"maxReplicas":7' C -X PUT --data-binary "@$W/h2v1.json" "$HPA1/h2"
C "$HPA2/h2" >"$W/h2v2.json"
expect_out "after the v1 update, v2 keeps both metrics" \
  '"maxReplicas":7,"metrics":[{"type":"Resource","resource":{"name":"memory","target":{"type":"AverageValue","averageValue":"100Mi"}}},{"type":"Resource","resource":{"name":"cpu"' \
  cat "$W/h2v2.json"
expect_out "after the v1 update, v2 keeps behavior" '"scaleDown":{"stabilizationWindowSeconds":30' cat "$W/h2v2.json"
expect_not "no round-trip annotation is stored" 'autoscaling.alpha' cat "$W/h2v2.json"
expect_out "merge patch through v1" '"targetCPUUtilizationPercentage":90}' \
  MP -d '{"spec":{"targetCPUUtilizationPercentage":90}}' "$HPA1/h2"
C "$HPA2/h2" >"$W/h2v2.json"
expect_out "the patch seen through v2" '"averageUtilization":90' cat "$W/h2v2.json"
expect_out "the patch kept the memory metric" '"name":"memory"' cat "$W/h2v2.json"
expect_out "status through v1" '"currentCPUUtilizationPercentage":42' \
  MP -d '{"status":{"currentReplicas":2,"desiredReplicas":3,"currentCPUUtilizationPercentage":42}}' "$HPA1/h2/status"
expect_out "status seen through v2 as a current metric" \
  '"currentMetrics":[{"type":"Resource","resource":{"name":"cpu","current":{"averageUtilization":42}}}]' C "$HPA2/h2"
expect_out "v1 list is in v1" '{"kind":"HorizontalPodAutoscalerList","apiVersion":"autoscaling/v1"' C "$HPA1"
expect_not "v1 list holds no v2 object" '{"apiVersion":"autoscaling/v2","kind"' C "$HPA1"
expect_out "v1 table has upstream's HPA columns" '"name":"Targets"' \
  C -H 'Accept: application/json;as=Table;v=v1;g=meta.k8s.io' "$HPA1"

# ---- watch through the other version ----
RV=$(C "$HPA1" | grep -o '"resourceVersion":"[0-9]*"' | head -1 | tr -dc 0-9)
C -N "$HPA1?watch=1&timeoutSeconds=20&resourceVersion=$RV" >"$W/watch.out" &
WATCH_PID=$!
sleep 0.3
C -X POST "$HPA2" -d '{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"h3"},
  "spec":{"scaleTargetRef":{"kind":"Deployment","name":"web"},"maxReplicas":2,"metrics":[{"type":"Resource",
  "resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":33}}}]}}' >/dev/null
C -X DELETE "$HPA2/h3" >/dev/null
for _ in $(seq 1 400); do grep -q '"DELETED"' "$W/watch.out" 2>/dev/null && break; sleep 0.05; done
kill "$WATCH_PID" 2>/dev/null
wait "$WATCH_PID" 2>/dev/null
WATCH_PID=""
expect_out "v1 watch sees the v2 create in v1's shape" '"type":"ADDED","object":{"apiVersion":"autoscaling/v1"' cat "$W/watch.out"
expect_out "v1 watch event converted" '"targetCPUUtilizationPercentage":33' cat "$W/watch.out"
expect_out "v1 watch sees the v2 delete" '"type":"DELETED","object":{"apiVersion":"autoscaling/v1"' cat "$W/watch.out"

# ---- Events: one store ----
C -X POST "$EV2" -d '{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"e1"},
  "eventTime":"2026-01-01T00:00:00.000000Z","reportingController":"example.com/ctl","reportingInstance":"ctl-1",
  "action":"Scale","reason":"Scaled","type":"Normal","note":"scaled web",
  "regarding":{"kind":"Deployment","namespace":"default","name":"web","apiVersion":"apps/v1"}}' >/dev/null
C "$EV1/e1" >"$W/e1.json"
expect_out "events.k8s.io create read through core: involvedObject, message" \
  '"involvedObject":{"kind":"Deployment","namespace":"default","name":"web","apiVersion":"apps/v1"},"reason":"Scaled","message":"scaled web"' \
  cat "$W/e1.json"
expect_out "events.k8s.io create read through core: reportingComponent" '"reportingComponent":"example.com/ctl"' cat "$W/e1.json"
C -X POST "$EV1" -d '{"apiVersion":"v1","kind":"Event","metadata":{"name":"e2"},"involvedObject":{"kind":"Pod",
  "namespace":"default","name":"p1"},"reason":"Pulled","message":"pulled image","source":{"component":"kubelet"},
  "firstTimestamp":"2026-01-01T00:00:00Z","lastTimestamp":"2026-01-01T00:00:05Z","count":3,"type":"Normal"}' >/dev/null
expect_out "core create read through events.k8s.io: regarding, note, deprecated fields" \
  '"regarding":{"kind":"Pod","namespace":"default","name":"p1"},"note":"pulled image","type":"Normal","deprecatedSource":{"component":"kubelet"},"deprecatedFirstTimestamp":"2026-01-01T00:00:00Z","deprecatedLastTimestamp":"2026-01-01T00:00:05Z","deprecatedCount":3}' \
  C "$EV2/e2"
C "$EV2?fieldSelector=regarding.name%3Dweb" >"$W/l2.json"
expect_out "events.k8s.io list with regarding.name: e1" '"name":"e1"' cat "$W/l2.json"
expect_not "events.k8s.io list with regarding.name: not e2" '"name":"e2"' cat "$W/l2.json"
C "$EV1?fieldSelector=involvedObject.name%3Dp1" >"$W/l1.json"
expect_out "core list with involvedObject.name: e2" '"name":"e2"' cat "$W/l1.json"
expect_not "core list with involvedObject.name: not e1" '"name":"e1"' cat "$W/l1.json"
expect_out "events.k8s.io rejects involvedObject.name" "field label not supported: involvedObject.name" \
  C "$EV2?fieldSelector=involvedObject.name%3Dp1"
expect_out "events.k8s.io validation: reportingController required (422, upstream message)" \
  'Event.events.k8s.io \"e3\" is invalid: [reportingController: Required value' \
  C -X POST "$EV2" -d '{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"e3"},
  "eventTime":"2026-01-01T00:00:00.000000Z","reportingInstance":"i","action":"A","reason":"R","type":"Normal",
  "regarding":{"namespace":"default"}}'
expect_out "events.k8s.io validation: deprecated fields must be unset" 'deprecatedCount: Invalid value: \"\": needs to be unset' \
  C -X POST "$EV2" -d '{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"e4"},
  "eventTime":"2026-01-01T00:00:00.000000Z","reportingController":"c","reportingInstance":"i","action":"A",
  "reason":"R","type":"Normal","regarding":{"namespace":"default"},"deprecatedCount":2}'
expect_out "delete through events.k8s.io" '"status":"Success"' C -X DELETE "$EV2/e2"
expect_out "gone from core too" '"code":404' C "$EV1/e2"
expect_out "deletecollection through core" '"kind":"EventList"' C -X DELETE "$EV1"
expect_out "empty through events.k8s.io" '"items":[]' C "$EV2"

# ---- kubectl ----
if command -v kubectl >/dev/null; then
  K() { kubectl "$@"; }
  C -X POST "$S/apis/apps/v1/namespaces/default/deployments" -d '{"apiVersion":"apps/v1","kind":"Deployment",
    "metadata":{"name":"web"},"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":
    {"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}' >/dev/null
  expect_out "kubectl autoscale (autoscaling/v1, protobuf)" "horizontalpodautoscaler.autoscaling/web autoscaled" \
    K autoscale deployment web --max=4 --cpu-percent=50
  expect_out "kubectl get hpa prints the v1-created HPA" "cpu: <unknown>/50%" K get hpa web
  C -X POST "$EV2" -d '{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"e5"},
    "eventTime":"2026-01-01T00:00:00.000000Z","reportingController":"example.com/ctl","reportingInstance":"ctl-1",
    "action":"Scale","reason":"Scaled","type":"Normal","note":"scaled to 3",
    "regarding":{"kind":"Deployment","namespace":"default","name":"web","apiVersion":"apps/v1"}}' >/dev/null
  expect_out "kubectl events shows the events.k8s.io event" "scaled to 3" K events
  expect_out "kubectl get events --field-selector involvedObject.name: upstream's columns" "deployment/web   scaled to 3" \
    K get events --field-selector involvedObject.name=web
fi
finish
