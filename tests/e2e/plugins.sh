#!/usr/bin/env bash
# Built-in admission plugins through the real kubectl: LimitRanger defaults, ResourceQuota rejection and true usage
# after deletes, the default ServiceAccount and its token volume, the default StorageClass, Priority.
KGATE=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
trap 'stop_kgate; rm -rf "$W"' EXIT
K() { kubectl --request-timeout=20s "$@"; }
start_kgate "$W/data" || exit 1

K create namespace team >/dev/null
# --- ServiceAccount: the namespace gets its default ServiceAccount and root CA, pods get the token volume
for _ in $(seq 1 50); do K -n team get sa default >/dev/null 2>&1 && break; sleep 0.1; done
expect_out "new namespace has its default ServiceAccount" "default" K -n team get sa default -o name
expect_out "new namespace has kube-root-ca.crt" "BEGIN CERTIFICATE" K -n team get cm kube-root-ca.crt -o jsonpath='{.data.ca\.crt}'

# --- LimitRanger: defaults from the namespace's LimitRange
cat >"$W/lr.yaml" <<'Y'
apiVersion: v1
kind: LimitRange
metadata: {name: limits, namespace: team}
spec:
  limits:
  - type: Container
    default: {cpu: 500m, memory: 256Mi}
    defaultRequest: {cpu: 100m, memory: 64Mi}
    max: {cpu: "1"}
Y
K apply -f "$W/lr.yaml" >/dev/null
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: team}\nspec:\n  containers: [{name: c, image: "nginx:1.25"}]\n' >"$W/p1.yaml"
expect_out "pod created" "pod/p1 created" K create -f "$W/p1.yaml"
expect_eq "LimitRanger set default requests and limits" '{"limits":{"cpu":"500m","memory":"256Mi"},"requests":{"cpu":"100m","memory":"64Mi"}}' \
  K -n team get pod p1 -o jsonpath='{.spec.containers[0].resources}'
expect_out "LimitRanger annotation" "LimitRanger plugin set: cpu, memory request for container c; cpu, memory limit for container c" \
  K -n team get pod p1 -o jsonpath='{.metadata.annotations.kubernetes\.io/limit-ranger}'
expect_eq "ServiceAccount set the account and mounted the token volume" "default /var/run/secrets/kubernetes.io/serviceaccount" \
  K -n team get pod p1 -o jsonpath='{.spec.serviceAccountName} {.spec.containers[0].volumeMounts[0].mountPath}'
expect_out "kube-api-access volume" "kube-api-access-" K -n team get pod p1 -o jsonpath='{.spec.volumes[0].name}'
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: big, namespace: team}\nspec:\n  containers: [{name: c, image: "nginx:1.25", resources: {limits: {cpu: "2"}}}]\n' >"$W/big.yaml"
expect_out "LimitRanger max rejects with the upstream message" 'pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2' K create -f "$W/big.yaml"
expect_eq "DefaultTolerationSeconds added the two tolerations" "300 300" K -n team get pod p1 -o jsonpath='{.spec.tolerations[*].tolerationSeconds}'
expect_eq "Priority set priority 0" "0" K -n team get pod p1 -o jsonpath='{.spec.priority}'
expect_out "built-in PriorityClasses exist" "system-cluster-critical" K get priorityclass

# --- ResourceQuota: rejection with upstream's message, true usage after deletes
printf 'apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q, namespace: team}\nspec:\n  hard: {pods: "2", requests.cpu: "250m"}\n' | K apply -f - >/dev/null
for _ in $(seq 1 50); do [ -n "$(K -n team get quota q -o jsonpath='{.status.used.pods}' 2>/dev/null)" ] && break; sleep 0.1; done
expect_eq "quota controller computed usage" "1 100m" K -n team get quota q -o jsonpath='{.status.used.pods} {.status.used.requests\.cpu}'
sed 's/name: p1/name: p2/' "$W/p1.yaml" | K create -f - >/dev/null
expect_eq "creates are charged" "2 200m" K -n team get quota q -o jsonpath='{.status.used.pods} {.status.used.requests\.cpu}'
sed 's/name: p1/name: p3/' "$W/p1.yaml" >"$W/p3.yaml"
expect_out "over quota: exceeded quota message" 'Error from server (Forbidden): error when creating "'"$W"'/p3.yaml": pods "p3" is forbidden: exceeded quota: q, requested: pods=1,requests.cpu=100m, used: pods=2,requests.cpu=200m, limited: pods=2,requests.cpu=250m' \
  K create -f "$W/p3.yaml"
K -n team delete pod p2 >/dev/null
for _ in $(seq 1 50); do [ "$(K -n team get quota q -o jsonpath='{.status.used.pods}')" = "1" ] && break; sleep 0.1; done
expect_eq "usage is true after a delete" "1 100m" K -n team get quota q -o jsonpath='{.status.used.pods} {.status.used.requests\.cpu}'
expect_out "kubectl get resourcequota shows usage" "pods: 1/2" K -n team get resourcequota q
expect_out "room again after the delete" "pod/p3 created" K create -f "$W/p3.yaml"

# --- DefaultStorageClass
printf 'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: standard\n  annotations: {storageclass.kubernetes.io/is-default-class: "true"}\nprovisioner: example.com/p\n' | K apply -f - >/dev/null
printf 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data, namespace: team}\nspec:\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 1Gi}}\n' | K apply -f - >/dev/null
expect_eq "PVC without storageClassName gets the default class" "standard" K -n team get pvc data -o jsonpath='{.spec.storageClassName}'
expect_out "StorageObjectInUseProtection finalizer" "kubernetes.io/pvc-protection" K -n team get pvc data -o jsonpath='{.metadata.finalizers}'

# --- PodSecurity (default-on): enforce rejects with the upstream message, warn and bad labels, the pod scan
K create namespace psa >/dev/null
K label ns psa pod-security.kubernetes.io/enforce=restricted >/dev/null
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: priv, namespace: psa}\nspec:\n  containers: [{name: c, image: "nginx:1.25", securityContext: {privileged: true}}]\n' >"$W/priv.yaml"
expect_out "PodSecurity: enforce=restricted rejects a privileged pod with the upstream message" \
  'pods "priv" is forbidden: violates PodSecurity "restricted:latest": privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")' \
  K create -f "$W/priv.yaml"
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: ok, namespace: psa}\nspec:\n  securityContext: {runAsNonRoot: true, seccompProfile: {type: RuntimeDefault}}\n  containers: [{name: c, image: "nginx:1.25", securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}}]\n  volumes: [{name: scratch}]\n' >"$W/ok.yaml"
expect_out "PodSecurity: enforce=restricted admits a compliant pod (a sourceless volume defaults to emptyDir)" "pod/ok created" \
  K create -f "$W/ok.yaml"
expect_out "PodSecurity: a Deployment's template is warned about, not rejected" \
  'Warning: would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "nginx" must set securityContext.allowPrivilegeEscalation=false)' \
  K -n psa create deployment web --image=nginx:1.25
K create namespace psb >/dev/null
expect_out "PodSecurity: enforce=bogus is rejected" \
  'metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "bogus": must be one of privileged, baseline, restricted' \
  K label ns psb pod-security.kubernetes.io/enforce=bogus
expect_eq "PodSecurity: the bogus label was not stored" "" K get ns psb -o jsonpath='{.metadata.labels.pod-security\.kubernetes\.io/enforce}'
K label ns psb pod-security.kubernetes.io/warn=baseline >/dev/null
sed 's/namespace: psa/namespace: psb/' "$W/priv.yaml" >"$W/privb.yaml"
expect_out "PodSecurity: warn mode admits with a warning" \
  'Warning: would violate PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)' \
  K create -f "$W/privb.yaml"
expect_out "PodSecurity: raising enforce warns about existing pods" \
  'existing pods in namespace "psb" violate the new PodSecurity enforce level "baseline:latest"' \
  K label ns psb pod-security.kubernetes.io/enforce=baseline
expect_out "PodSecurity: the warning names the pod and reason" "priv: privileged" \
  K label ns psb --overwrite pod-security.kubernetes.io/enforce=restricted pod-security.kubernetes.io/enforce-version=v1.0

# --- PodTopologyLabels (feature gate, off by default in v1.33): binding a pod copies the node's topology labels
stop_kgate
start_kgate "$W/gated" --feature-gates=PodTopologyLabelsAdmission=true || exit 1
printf 'apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels: {topology.kubernetes.io/zone: z1, topology.kubernetes.io/region: r1, other: x}\n' | K apply -f - >/dev/null
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: w}\nspec:\n  containers: [{name: c, image: "x:1"}]\n' | K apply -f - >/dev/null
TOKEN=$(awk '/token:/ {print $2}' "$W/gated/admin.kubeconfig")
URL=$(awk '/server:/ {print $2}' "$W/gated/admin.kubeconfig")
for _ in $(seq 1 30); do K get node n1 >/dev/null 2>&1 && break; sleep 0.1; done
sleep 0.5 # the node cache catches up
expect_out "pods/binding: 201" '"status":"Success","code":201' curl -sk -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -X POST \
  "$URL/api/v1/namespaces/default/pods/w/binding" -d '{"apiVersion":"v1","kind":"Binding","metadata":{"name":"w"},"target":{"kind":"Node","name":"n1"}}'
expect_eq "PodTopologyLabels: the bound pod carries zone and region, not other node labels" 'n1 {"topology.kubernetes.io/region":"r1","topology.kubernetes.io/zone":"z1"}' \
  K get pod w -o jsonpath='{.spec.nodeName} {.metadata.labels}'


# --- PodSecurity configuration: defaults and exemptions from the AdmissionConfiguration file; a bad one stops start-up
stop_kgate
cat >"$W/adm.yaml" <<'Y'
apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: PodSecurity
  configuration:
    apiVersion: pod-security.admission.config.k8s.io/v1
    kind: PodSecurityConfiguration
    defaults: {enforce: baseline}
    exemptions: {namespaces: [trusted]}
Y
start_kgate "$W/psacfg" --admission-control-config-file "$W/adm.yaml" || exit 1
K create namespace plain >/dev/null
K create namespace trusted >/dev/null
sed 's/namespace: psa/namespace: plain/' "$W/priv.yaml" >"$W/privp.yaml"
expect_out "PodSecurity config: the default enforce level applies to unlabelled namespaces" \
  'pods "priv" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)' \
  K create -f "$W/privp.yaml"
sed 's/namespace: psa/namespace: trusted/' "$W/priv.yaml" >"$W/privt.yaml"
expect_out "PodSecurity config: exempt namespaces are not evaluated" "pod/priv created" K create -f "$W/privt.yaml"
stop_kgate
sed 's/enforce: baseline/enforce: strict/' "$W/adm.yaml" >"$W/bad.yaml"
expect_out "PodSecurity config: an invalid configuration stops start-up naming file and field" \
  "couldn't init admission plugin \"PodSecurity\" (configured in \"$W/bad.yaml\"): defaults.enforce: Invalid value: \"strict\": must be one of privileged, baseline, restricted" \
  timeout 20 "$KGATE" serve --data-dir "$W/badcfg" --secure-port 0 --admission-control-config-file "$W/bad.yaml"
finish
