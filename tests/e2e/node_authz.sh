#!/usr/bin/env bash
# The Node authorizer and NodeRestriction as a kubelet sees them (issue 16): a token-file user system:node:n1 in
# group system:nodes registers its Node, reads the secret and configmap of a pod bound to it (once the graph has
# seen the pod), lists its pods with the spec.nodeName selector, keeps its Lease, and is refused unrelated secrets,
# other nodes, ordinary pods, restricted labels and other nodes' leases, with upstream's texts; its CSR records it as
# the requester, and approving needs approve on the signer (CertificateApproval over real RBAC). kubectl where the
# user would use it; curl for the rest (each kubectl run re-reads discovery, which is slow on a loaded machine).
KGATE=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
trap 'stop_kgate; rm -rf "$W"' EXIT
K() { kubectl --request-timeout=20s "$@"; }
N1() { kubectl --request-timeout=20s --token n1-token "$@"; }
# C TOKEN METHOD PATH [JSON-BODY]
C() {
  if [ $# -gt 3 ]; then
    curl -sk -X "$2" -H "Authorization: Bearer $1" -H "Content-Type: application/json" "$SERVER$3" -d "$4"
  else
    curl -sk -X "$2" -H "Authorization: Bearer $1" "$SERVER$3"
  fi
}
MERGE() { curl -sk -X PATCH -H "Authorization: Bearer $1" -H "Content-Type: application/merge-patch+json" "$SERVER$2" -d "$3"; }

{
  printf 'n1-token,system:node:n1,n1,"system:nodes"\nn2-token,system:node:n2,n2,"system:nodes"\n'
  printf 'n3-token,system:node:n3,n3,"system:nodes"\nbob-token,bob,1001\n'
} >"$W/tokens.csv"
start_kgate "$W/data" --token-auth-file "$W/tokens.csv" --enable-admission-plugins=NodeRestriction || exit 1
SERVER=$(K config view --raw -o jsonpath='{.clusters[0].cluster.server}')
ADMIN=$(cat "$W/data/admin.token")

node() { printf '{"apiVersion":"v1","kind":"Node","metadata":{"name":"%s"%s}}' "$1" "${2:-}"; }
expect_out "n1 registers its own Node" '"name":"n1"' C n1-token POST /api/v1/nodes "$(node n1)"
expect_out "n2 registers its own Node" '"name":"n2"' C n2-token POST /api/v1/nodes "$(node n2)"
expect_out "n1 may not register n4" 'nodes \"n4\" is forbidden: node \"n1\" is not allowed to modify node \"n4\"' \
  C n1-token POST /api/v1/nodes "$(node n4)"
expect_out "n3 may not register with a node-restriction label" \
  'node \"n3\" is not allowed to set the following labels: node-restriction.kubernetes.io/x' \
  C n3-token POST /api/v1/nodes "$(node n3 ',"labels":{"node-restriction.kubernetes.io/x":"y"}')"
expect_out "n1 reads its own Node (kubectl)" "node/n1" N1 get node n1 -o name
expect_out "n1 may not read n2" \
  "nodes \\\"n2\\\" is forbidden: User \\\"system:node:n1\\\" cannot get resource \\\"nodes\\\" in API group \\\"\\\" at the cluster scope: node 'n1' cannot read 'n2', only its own Node object" \
  C n1-token GET /api/v1/nodes/n2
expect_out "n1 may not change n2" 'nodes \"n2\" is forbidden: node \"n1\" is not allowed to modify node \"n2\"' \
  MERGE n1-token /api/v1/nodes/n2 '{"metadata":{"labels":{"a":"b"}}}'
expect_out "n1 may set an ordinary label on itself (kubectl)" "node/n1 labeled" N1 label node n1 team=a
expect_out "n1 may not set a kubernetes.io label outside the kubelet set" \
  'is not allowed to modify labels: example.kubernetes.io/role' \
  MERGE n1-token /api/v1/nodes/n1 '{"metadata":{"labels":{"example.kubernetes.io/role":"x"}}}'
expect_out "n1 may not change its taints" 'node \"n1\" is not allowed to modify taints' \
  MERGE n1-token /api/v1/nodes/n1 '{"spec":{"taints":[{"key":"k","effect":"NoSchedule"}]}}'

# a pod bound to n1 references s1 and c1; s2 is unrelated
C "$ADMIN" POST /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns1"}}' >/dev/null
for s in s1 s2; do
  C "$ADMIN" POST /api/v1/namespaces/ns1/secrets "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"$s\"},\"data\":{\"a\":\"Yg==\"}}" >/dev/null
done
C "$ADMIN" POST /api/v1/namespaces/ns1/configmaps '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c1"},"data":{"a":"b"}}' >/dev/null
C "$ADMIN" POST /api/v1/namespaces/ns1/pods '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1"},"spec":{"nodeName":"n1",
  "automountServiceAccountToken":false,"containers":[{"name":"c","image":"busybox","envFrom":[{"configMapRef":
  {"name":"c1"}}]}],"volumes":[{"name":"s","secret":{"secretName":"s1"}}]}}' >/dev/null
# the graph follows the pod cache: poll until the edge is there (upstream's informers are asynchronous too)
for _ in $(seq 1 200); do C n1-token GET /api/v1/namespaces/ns1/secrets/s1 | grep -q '"kind":"Secret"' && break; sleep 0.02; done
expect_out "n1 reads the secret of its pod (kubectl)" "secret/s1" N1 get secret s1 -n ns1 -o name
expect_out "n1 reads the configmap of its pod" '"name":"c1"' C n1-token GET /api/v1/namespaces/ns1/configmaps/c1
expect_out "n1 may not read an unrelated secret (kubectl)" \
  "secrets \"s2\" is forbidden: User \"system:node:n1\" cannot get resource \"secrets\" in API group \"\" in the namespace \"ns1\": no relationship found between node 'n1' and this object" \
  N1 get secret s2 -n ns1
expect_out "n2 may not read n1's secret" "no relationship found between node 'n2' and this object" \
  C n2-token GET /api/v1/namespaces/ns1/secrets/s1
expect_out "n1 gets its pod" '"name":"p1"' C n1-token GET /api/v1/namespaces/ns1/pods/p1
expect_out "n1 lists its pods with the nodeName selector" '"name":"p1"' \
  C n1-token GET "/api/v1/pods?fieldSelector=spec.nodeName%3Dn1"
expect_out "n1 may not list all pods" "can only list/watch pods with spec.nodeName field selector" \
  C n1-token GET /api/v1/pods
expect_out "n2 may not delete n1's pod" 'node \"n2\" can only delete pods with spec.nodeName set to itself' \
  C n2-token DELETE /api/v1/namespaces/ns1/pods/p1
expect_out "n1 may not create an ordinary pod (kubectl)" \
  'pods "x" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "n1" can only create mirror pods' \
  N1 run x -n ns1 --image=busybox
expect_out "n1 may create events (static node rules)" '{"apiVersion":"v1","kind":"Event"' C n1-token POST /api/v1/namespaces/ns1/events \
  '{"apiVersion":"v1","kind":"Event","metadata":{"name":"e1"},"involvedObject":{"kind":"Node","name":"n1","namespace":"ns1"},"reason":"R","message":"m"}'
expect_out "n1 may not delete namespaces" 'cannot delete resource \"namespaces\"' \
  C n1-token DELETE /api/v1/namespaces/ns1

lease() { printf '{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"%s"},"spec":{"holderIdentity":"%s"}}' "$1" "$1"; }
L=/apis/coordination.k8s.io/v1/namespaces
expect_out "n1 keeps its Lease" '"holderIdentity":"n1"' C n1-token POST $L/kube-node-lease/leases "$(lease n1)"
expect_out "n1 may not create n2's Lease" \
  'leases.coordination.k8s.io \"n2\" is forbidden: can only access node lease with the same name as the requesting node' \
  C n1-token POST $L/kube-node-lease/leases "$(lease n2)"
expect_out "n1 may not touch leases elsewhere" \
  'in the namespace \"default\": can only access leases in the \"kube-node-lease\" system namespace' \
  C n1-token POST $L/default/leases "$(lease n1)"

# CSRs record their requester (PrepareForCreate); approving needs `approve` on the signer (CertificateApproval)
REQ=LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIV01INENBUUF3SERFTU1Bb0dBMVVFQXd3RFltOWlNUXd3Q2dZRFZRUUtEQU5rWlhZd1dUQVRCZ2NxaGtqTwpQUUlCQmdncWhrak9QUU1CQndOQ0FBUlFQN1JMNkxOVGVBRHY4K1p6OVpudm42MTAyellzZlRzQWp4V21kcklxCjg4V2F0VUdyWWpoNHF4SWVnT2NxeWc3Y2paT1pGbURvU2pxcUlYUkJxWmRtb0FBd0NnWUlLb1pJemowRUF3SUQKU0FBd1JRSWdYeUN5L3V6REtOZzZnV01RVGJFVXF0b1M3NnZiQ05EN3lOOXd0ZFRtekdVQ0lRQ2hXdzBCd2pkbAovVTBMdVNSNWowRk5OMUkydnMzZnFNV3RObUpOVEtOV3l3PT0KLS0tLS1FTkQgQ0VSVElGSUNBVEUgUkVRVUVTVC0tLS0tCg==
expect_out "a CSR records its requester, not what the client claimed" '"username":"system:node:n1"' \
  C n1-token POST /apis/certificates.k8s.io/v1/certificatesigningrequests "{\"apiVersion\":\"certificates.k8s.io/v1\",
  \"kind\":\"CertificateSigningRequest\",\"metadata\":{\"name\":\"csr1\"},\"spec\":{\"signerName\":\"example.com/foo\",
  \"request\":\"$REQ\",\"usages\":[\"client auth\"],\"username\":\"evil\"}}"
expect_out "... with its groups" '"groups":["system:nodes"' C "$ADMIN" GET /apis/certificates.k8s.io/v1/certificatesigningrequests/csr1
# grant ClusterRole ROLE to bob (curl: a kubectl run costs a discovery round on a loaded machine)
grant() {
  C "$ADMIN" POST /apis/rbac.authorization.k8s.io/v1/clusterrolebindings "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",
  \"kind\":\"ClusterRoleBinding\",\"metadata\":{\"name\":\"bob-$1\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",
  \"kind\":\"ClusterRole\",\"name\":\"$1\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"bob\"}]}" >/dev/null
}
C "$ADMIN" POST /apis/rbac.authorization.k8s.io/v1/clusterroles '{"apiVersion":"rbac.authorization.k8s.io/v1",
  "kind":"ClusterRole","metadata":{"name":"csr-approver"},"rules":[{"apiGroups":["certificates.k8s.io"],
  "resources":["certificatesigningrequests","certificatesigningrequests/approval"],"verbs":["get","list","update"]}]}' >/dev/null
grant csr-approver
for _ in $(seq 1 200); do C bob-token GET /apis/certificates.k8s.io/v1/certificatesigningrequests/csr1 | grep -q '"kind":"CertificateSigningRequest"' && break; sleep 0.02; done
expect_out "bob may not approve for a signer he holds no approve on (kubectl)" \
  'user not permitted to approve requests with signerName "example.com/foo"' \
  kubectl --token bob-token certificate approve csr1
C "$ADMIN" POST /apis/rbac.authorization.k8s.io/v1/clusterroles '{"apiVersion":"rbac.authorization.k8s.io/v1",
  "kind":"ClusterRole","metadata":{"name":"signer-approver"},"rules":[{"apiGroups":["certificates.k8s.io"],
  "resources":["signers"],"resourceNames":["example.com/*"],"verbs":["approve"]}]}' >/dev/null
grant signer-approver
SAR='{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"bob","resourceAttributes":
  {"group":"certificates.k8s.io","resource":"signers","verb":"approve","name":"example.com/*"}}}'
for _ in $(seq 1 200); do
  C "$ADMIN" POST /apis/authorization.k8s.io/v1/subjectaccessreviews "$SAR" | grep -q '"allowed":true' && break
  sleep 0.02
done
expect_out "with approve on example.com/* he may (the domain wildcard)" "approved" \
  kubectl --token bob-token certificate approve csr1

# CEL's authorizer library asks the server's authorizer: here the Node graph decides for the requesting node
C "$ADMIN" POST /apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies '{"apiVersion":
  "admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"needs-s1"},"spec":{
  "failurePolicy":"Fail","matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],
  "operations":["CREATE"],"resources":["events"]}]},"validations":[{"expression":
  "authorizer.group(\"\").resource(\"secrets\").namespace(\"ns1\").name(\"s1\").check(\"get\").allowed()",
  "message":"may not read s1"}]}}' >/dev/null
C "$ADMIN" POST /apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings '{"apiVersion":
  "admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"needs-s1"},
  "spec":{"policyName":"needs-s1","validationActions":["Deny"]}}' >/dev/null
ev() { printf '{"apiVersion":"v1","kind":"Event","metadata":{"name":"%s"},"involvedObject":{"kind":"Node","name":"x","namespace":"ns1"},"reason":"R","message":"m"}' "$1"; }
for i in $(seq 1 200); do
  C n2-token POST /api/v1/namespaces/ns1/events "$(ev probe$i)" | grep -q 'may not read s1' && break
  sleep 0.02
done
expect_out "CEL authorizer: n2 is denied by the Node graph's answer" \
  'events \"e2\" is forbidden: ValidatingAdmissionPolicy '"'needs-s1'"' with binding '"'needs-s1'"' denied request: may not read s1' \
  C n2-token POST /api/v1/namespaces/ns1/events "$(ev e2)"
expect_out "CEL authorizer: n1 (whose pod uses s1) passes" '"kind":"Event"' \
  C n1-token POST /api/v1/namespaces/ns1/events "$(ev e3)"
C "$ADMIN" DELETE /apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/needs-s1 >/dev/null

# the pod is deleted: the edge goes with it
C "$ADMIN" DELETE "/api/v1/namespaces/ns1/pods/p1?gracePeriodSeconds=0" >/dev/null
for _ in $(seq 1 200); do C n1-token GET /api/v1/namespaces/ns1/secrets/s1 | grep -q 'no relationship' && break; sleep 0.02; done
expect_out "after the pod is gone, n1 may no longer read s1" "no relationship found between node 'n1' and this object" \
  C n1-token GET /api/v1/namespaces/ns1/secrets/s1
finish
