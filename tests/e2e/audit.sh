#!/usr/bin/env bash
# The fidelity audit as a new user sees it, through the real kubectl: kubectl get prints upstream's columns and
# cells for the kinds that had none (events, endpoints, PVs, ingresses, role bindings, Name/Created At), -o wide
# adds the priority-1 columns, and the semantic validations users hit most answer with upstream's exact text.
KGATE=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
trap 'stop_kgate; rm -rf "$W"' EXIT
start_kgate "$W/data" || exit 1
K() { kubectl "$@"; }

cat >"$W/objs.yaml" <<'Y'
apiVersion: v1
kind: Event
metadata: {name: ev1}
involvedObject: {kind: Pod, name: web, namespace: default}
reason: Started
type: Normal
message: Started container
source: {component: kubelet, host: n1}
---
apiVersion: v1
kind: Endpoints
metadata: {name: ep1}
subsets: [{addresses: [{ip: 10.1.0.1}], ports: [{port: 8080}]}]
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv1}
spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], hostPath: {path: /tmp/x}, storageClassName: manual}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: ing1}
spec:
  tls: [{hosts: [a.example.com]}]
  rules: [{host: a.example.com}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: rb1}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects: [{kind: User, name: alice}, {kind: ServiceAccount, name: sa1, namespace: default}]
---
apiVersion: v1
kind: LimitRange
metadata: {name: lr1}
spec: {limits: [{type: Container, max: {cpu: "2"}}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: j1}
spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: cj1}
spec:
  schedule: "*/5 * * * *"
  jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}}}
---
apiVersion: v1
kind: Service
metadata: {name: c1}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm1}
immutable: true
data: {a: b}
Y
K create -f "$W/objs.yaml" >/dev/null
# one kubectl call for every table (kubectl is slow to start on a loaded machine)
OUT=$(K get events,endpoints,pv,ingress,rolebinding,limitrange,priorityclass,job,cronjob -o wide 2>&1)
has() { expect_out "$1" "$2" printf '%s' "$OUT"; }
has "events -o wide: every column" "LAST SEEN   TYPE     REASON    OBJECT    SUBOBJECT   SOURCE        MESSAGE             FIRST SEEN   COUNT   NAME"
has "events: object, source and count" "kubelet, n1   Started container   <unknown>    1       event/ev1"
has "endpoints: ip:port" "endpoints/ep1   10.1.0.1:8080"
has "pv: capacity, access modes, reclaim policy" "persistentvolume/pv1   1Gi        RWO            Retain"
has "ingress: hosts and TLS ports" "ingress.networking.k8s.io/ing1   <none>   a.example.com             80, 443"
has "rolebinding -o wide: role and subjects" "ClusterRole/view"
has "rolebinding -o wide: service accounts" "default/sa1"
has "limitrange: the default convertor's Created At" "CREATED AT"
has "priorityclass: preemption policy" "PREEMPTIONPOLICY"
has "job -o wide: the generated selector" "batch.kubernetes.io/controller-uid="
has "cronjob: time zone column" "*/5 * * * *   <none>     False     0        <none>"

cat >"$W/svc.yaml" <<'Y'
apiVersion: v1
kind: Service
metadata: {name: s1}
spec:
  selector: {app: x}
  ports:
  - {name: a, port: 80}
  - {name: a, port: 81}
  - {name: b, port: 82, nodePort: 30082}
Y
cat >>"$W/svc.yaml" <<'Y'
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d1}
spec:
  selector: {matchLabels: {app: d1}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 0, maxUnavailable: 0}}
  template:
    metadata: {labels: {app: d2}}
    spec: {containers: [{name: c, image: nginx, env: [{name: "A=B", value: x}]}]}
---
apiVersion: v1
kind: Secret
metadata: {name: t1}
type: kubernetes.io/tls
stringData: {a: b}
Y
# one apply for every invalid object: kubectl reports each one's error
OUT=$(K apply -f "$W/svc.yaml" 2>&1)
has "service: duplicate port name" 'spec.ports[1].name: Duplicate value: "a"'
has "service: nodePort on ClusterIP" "spec.ports[2].nodePort: Forbidden: may not be used when \`type\` is 'ClusterIP'"
has "tls secret without its keys" "[data[tls.crt]: Required value, data[tls.key]: Required value]"
has "deployment: selector vs labels as Go's map" \
  'spec.template.metadata.labels: Invalid value: map[string]string{"app":"d2"}: `selector` does not match template `labels`'
has "deployment: maxSurge and maxUnavailable both 0" \
  'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 when `maxSurge` is 0'
has "env var name with =" \
  "spec.template.spec.containers[0].env[0].name: Invalid value: \"A=B\": a valid environment variable name must consist only of printable ASCII characters other than '='"
expect_out "service: cluster IP may not change" "may not change once set" \
  K patch svc c1 -p '{"spec":{"clusterIP":"10.96.0.77","clusterIPs":["10.96.0.77"]}}'
expect_out "immutable configmap" 'data: Forbidden: field is immutable when `immutable` is set' \
  K patch configmap cm1 -p '{"data":{"a":"c"}}'
expect_out "job completions immutable" "spec.completions: Invalid value: 3: field is immutable" \
  K patch job j1 -p '{"spec":{"completions":3}}'
finish
