#!/usr/bin/env bash
# RBAC, access reviews and impersonation through the real kubectl, with --token-auth-file users (issue 16): the
# bootstrap policy, forbidden texts, a RoleBinding granting list, can-i / whoami, --as, escalation prevention,
# roleRef immutability and --authorization-mode.
KGATE=$1
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d)
trap 'stop_kgate; rm -rf "$W"' EXIT
K() { kubectl --request-timeout=20s "$@"; }
BOB() { kubectl --request-timeout=20s --token bob-token "$@"; }
ALICE() { kubectl --request-timeout=20s --token alice-token "$@"; }
# a policy change is seen by the authorizer a moment after the write (watch-fed, as upstream's informers):
# wait_can USER-TOKEN ARGS... polls `kubectl auth can-i ARGS` until yes (at most ~10 s)
wait_can() {
  local tok=$1
  shift
  for _ in $(seq 1 100); do
    [ "$(kubectl --token "$tok" auth can-i "$@" 2>/dev/null)" = yes ] && return 0
    sleep 0.1
  done
}

printf 'bob-token,bob,1001\nalice-token,alice,1002,"devs,qa"\n' >"$W/tokens.csv"
start_kgate "$W/data" --token-auth-file "$W/tokens.csv" || exit 1
SERVER=$(K config view --raw -o jsonpath='{.clusters[0].cluster.server}')
ADMIN=$(cat "$W/data/admin.token")

# --- bootstrap policy ---
expect_out "bootstrap: cluster-admin, admin/edit/view, discovery roles exist" "system:public-info-viewer" \
  K get clusterroles -o name
expect_out "bootstrap: view is aggregated from system:aggregate-to-view" "pods/log" K get clusterrole view -o yaml
expect_out "bootstrap: admin aggregates edit's rules" "impersonate" K get clusterrole admin -o yaml
expect_eq "bootstrap: cluster-admin bound to system:masters" "system:masters" \
  K get clusterrolebinding cluster-admin -o jsonpath='{.subjects[0].name}'
expect_eq "bootstrap: autoupdate annotation" "true" \
  K get clusterrole system:discovery -o jsonpath='{.metadata.annotations.rbac\.authorization\.kubernetes\.io/autoupdate}'

# --- a non-admin user: discovery yes, resources no, exact forbidden texts ---
expect_out "bob may use discovery" "v1" BOB api-versions
expect_out "bob cannot list configmaps (namespaced text)" \
  'configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "default"' \
  BOB get configmaps -n default
expect_out "bob cannot get a node (cluster-scoped text)" \
  'nodes "n1" is forbidden: User "bob" cannot get resource "nodes" in API group "" at the cluster scope' \
  BOB get node n1
expect_out "bob cannot get /metrics (non-resource text)" 'User \"bob\" cannot get path \"/metrics\"' \
  curl -sk -H "Authorization: Bearer bob-token" "$SERVER/metrics"
expect_eq "anonymous may get /healthz (system:public-info-viewer)" "ok" curl -sk "$SERVER/healthz"
expect_out "anonymous may not list /apis" 'User \"system:anonymous\" cannot get path \"/apis\"' curl -sk "$SERVER/apis"

# --- a RoleBinding grants what it says, in its namespace only ---
K create namespace team >/dev/null
K create namespace other >/dev/null
K create configmap c1 -n team --from-literal=a=b >/dev/null
K create rolebinding bob-view --clusterrole=view --user=bob -n team >/dev/null
wait_can bob-token list configmaps -n team
expect_out "RoleBinding to view: bob lists configmaps in team" "c1" BOB get configmaps -n team
expect_out "... but not secrets (view has none)" 'secrets is forbidden: User "bob" cannot list resource "secrets"' \
  BOB get secrets -n team
expect_out "... and not in another namespace" 'in the namespace "other"' BOB get configmaps -n other
expect_out "... and may get its namespace" "team" BOB get namespace team

# --- kubectl auth can-i / whoami ---
expect_eq "can-i: list configmaps in team" "yes" BOB auth can-i list configmaps -n team
expect_eq "can-i: create pods in team" "no" BOB auth can-i create pods -n team
BOB auth can-i create pods -n team >/dev/null 2>&1
expect_eq "can-i: a no exits 1" "1" echo $?
expect_eq "can-i: admin may do everything" "yes" K auth can-i '*' '*'
expect_eq "can-i: non-resource URL" "yes" BOB auth can-i get /healthz
expect_out "can-i --list shows the namespace's rules" "configmaps" BOB auth can-i --list -n team
expect_out "can-i --list shows the self-review rules" "selfsubjectaccessreviews.authorization.k8s.io" \
  BOB auth can-i --list -n team
expect_out "whoami: username" "bob" BOB auth whoami
expect_out "whoami: groups" "[devs qa system:authenticated]" ALICE auth whoami
expect_out "SSRR without namespace: 400" "no namespace on request" \
  curl -sk -XPOST -H "Authorization: Bearer bob-token" -H 'Content-Type: application/json' \
  -d '{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","spec":{}}' \
  "$SERVER/apis/authorization.k8s.io/v1/selfsubjectrulesreviews"
expect_out "SAR without user or groups: 422" "at least one of user or group must be specified" \
  curl -sk -XPOST -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
  -d '{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"resourceAttributes":{"verb":"get","resource":"pods"}}}' \
  "$SERVER/apis/authorization.k8s.io/v1/subjectaccessreviews"
expect_out "SAR for bob answers from RBAC" '"allowed":true,"reason":"RBAC: allowed by RoleBinding \"bob-view/team\" of ClusterRole \"view\" to User \"bob\""' \
  curl -sk -XPOST -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
  -d '{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"bob","resourceAttributes":{"namespace":"team","verb":"list","resource":"configmaps"}}}' \
  "$SERVER/apis/authorization.k8s.io/v1/subjectaccessreviews"
expect_out "SSAR by bob cannot review others (bob may not create subjectaccessreviews)" \
  'subjectaccessreviews.authorization.k8s.io is forbidden: User \"bob\" cannot create resource' \
  curl -sk -XPOST -H "Authorization: Bearer bob-token" -H 'Content-Type: application/json' -d '{}' \
  "$SERVER/apis/authorization.k8s.io/v1/subjectaccessreviews"

# --- impersonation ---
expect_out "--as: admin acts as bob" "c1" K get configmaps -n team --as=bob
expect_out "--as: as bob, forbidden as bob" 'User "bob" cannot list resource "secrets"' K get secrets -n team --as=bob
expect_out "--as: whoami shows the impersonated user and groups" "[g1 system:authenticated]" \
  K auth whoami --as=carol --as-group=g1
expect_out "--as a ServiceAccount gets its groups" "[system:serviceaccounts system:serviceaccounts:team system:authenticated]" \
  K auth whoami --as=system:serviceaccount:team:builder
expect_out "bob may not impersonate" \
  'users \"alice\" is forbidden: User \"bob\" cannot impersonate resource \"users\" in API group \"\" at the cluster scope' \
  curl -sk -H "Authorization: Bearer bob-token" -H 'Impersonate-User: alice' "$SERVER/api/v1/namespaces/team/configmaps"
expect_out "a group without a user: 500" 'requested [{Group  g    }] without impersonating a user' \
  curl -sk -H "Authorization: Bearer $ADMIN" -H 'Impersonate-Group: g' "$SERVER/api"
expect_out "extras: lower-cased, percent-decoded" '"extra":{"example.com/scopes":["s1"]}' \
  curl -sk -XPOST -H "Authorization: Bearer $ADMIN" -H 'Impersonate-User: x' \
  -H 'Impersonate-Extra-Example.com%2fScopes: s1' -H 'Content-Type: application/json' -d '{}' \
  "$SERVER/apis/authentication.k8s.io/v1/selfsubjectreviews"

# --- escalation prevention ---
K create rolebinding bob-admin --clusterrole=admin --user=bob -n team >/dev/null
wait_can bob-token create roles -n team
expect_out "escalation: a Role with held rules is fine" "role.rbac.authorization.k8s.io/r1 created" \
  BOB create role r1 --verb=get --resource=secrets -n team
expect_out "escalation: a Role with rules not held is 403" \
  'roles.rbac.authorization.k8s.io "r2" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:' \
  BOB create role r2 --verb=get,list --resource=nodes -n team
expect_out "escalation: ... listing the missing rules" '{APIGroups:[""], Resources:["nodes"], Verbs:["get" "list"]}' \
  BOB create role r2 --verb=get,list --resource=nodes -n team
expect_out "escalation: binding cluster-admin is 403" \
  'rolebindings.rbac.authorization.k8s.io "rb1" is forbidden: user "bob"' \
  BOB create rolebinding rb1 --clusterrole=cluster-admin --user=bob -n team
K create clusterrole bind-cluster-admin --verb=bind --resource=clusterroles --resource-name=cluster-admin >/dev/null
K create rolebinding bob-bind --clusterrole=bind-cluster-admin --user=bob -n team >/dev/null
wait_can bob-token bind clusterroles/cluster-admin -n team
expect_out "escalation: with bind on clusterroles/cluster-admin it is allowed" "rolebinding.rbac.authorization.k8s.io/rb1 created" \
  BOB create rolebinding rb1 --clusterrole=cluster-admin --user=bob -n team
K create rolebinding carol --clusterrole=view --user=carol -n team >/dev/null
expect_out "roleRef is immutable" \
  'roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"edit"}: cannot change roleRef' \
  K patch rolebinding carol -n team --type=merge -p '{"roleRef":{"name":"edit"}}'
expect_out "validation: a rule needs verbs" "rules[0].verbs: Required value: verbs must contain at least one value" \
  curl -sk -XPOST -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
  -d '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"v"},"rules":[{"apiGroups":[""],"resources":["pods"]}]}' \
  "$SERVER/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles"
stop_kgate

# --- --authorization-mode ---
start_kgate "$W/deny" --token-auth-file "$W/tokens.csv" --authorization-mode=AlwaysDeny || exit 1
SERVER=$(K config view --raw -o jsonpath='{.clusters[0].cluster.server}')
expect_out "AlwaysDeny: bob is forbidden with its reason" 'in the namespace \"default\": Everything is forbidden.' \
  curl -sk -H "Authorization: Bearer bob-token" "$SERVER/api/v1/namespaces/default/configmaps"
expect_out "AlwaysDeny: system:masters still allowed" "default" K get namespaces
stop_kgate
start_kgate "$W/allow" --token-auth-file "$W/tokens.csv" --authorization-mode=AlwaysAllow,RBAC || exit 1
SERVER=$(K config view --raw -o jsonpath='{.clusters[0].cluster.server}')
expect_out "AlwaysAllow: bob may do anything" "kube-system" BOB get namespaces
expect_out "AlwaysAllow: anonymous auth is turned off" "Unauthorized" curl -sk "$SERVER/api"
stop_kgate
expect_out "a bad mode is refused" 'authorization-mode "Foo" is not a valid mode' \
  "$KGATE" serve --data-dir "$W/bad" --secure-port 0 --authorization-mode=RBAC,Foo
expect_out "a repeated mode is refused" 'authorization-mode "RBAC" has mode specified more than once' \
  "$KGATE" serve --data-dir "$W/bad" --secure-port 0 --authorization-mode=RBAC,RBAC
finish
