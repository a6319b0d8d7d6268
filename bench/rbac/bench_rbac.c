/* RBAC decision cost: 10,000 Roles, ClusterRoles, RoleBindings and ClusterRoleBindings, of which 20 bindings apply to
 * the user asking (10 ClusterRoleBindings to the user or one of its groups, 10 RoleBindings in its namespace, every
 * role 5 rules). Measured through the authorizer interface as the HTTP filter calls it, with a request arena reset
 * per decision:
 *   allow_last_ns   the rule that allows is the last rule of the last binding walked (all 20 bindings visited)
 *   deny_ns         nothing allows (all 20 bindings, 100 rules visited; the 403 path)
 *   allow_first_ns  the first binding allows
 *   deny_mt2_ns     deny_ns from 2 threads at once (per decision, each thread)
 * Per-decision cost in thread CPU time (the machine is shared), median of 5 runs of 300,000 decisions each; also the time from one change to the rebuilt snapshot of the whole
 * policy being published (snapshot_build_ms). JSON on stdout. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth/rbac/rbac.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU time of the calling thread: the machine is shared, wall time would count other processes' slices */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void add(kg_rbac *r, kg_rbac_kind k, const char *json)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    KG_ERROR_DECL(err);
    kg_json *j = kg_json_parse(&a, json, strlen(json), &err);
    if (!j) {
        fprintf(stderr, "bad json: %s\n", err.msg);
        exit(1);
    }
    kg_rbac_upsert(r, k, j);
    kg_arena_free(&a);
}

static const char *RULES =
    "[{\"verbs\":[\"get\",\"list\",\"watch\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\","
    "\"pods/log\",\"services\"]},{\"verbs\":[\"create\",\"update\"],\"apiGroups\":[\"apps\"],"
    "\"resources\":[\"deployments\",\"deployments/scale\"]},{\"verbs\":[\"get\"],\"apiGroups\":"
    "[\"batch\"],\"resources\":[\"jobs\"],\"resourceNames\":[\"j1\",\"j2\"]},{\"verbs\":[\"get\"],"
    "\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"]},{\"verbs\":[\"delete\"],\"apiGroups\":"
    "[\"policy\"],\"resources\":[\"poddisruptionbudgets\"]}]";

static kg_rbac *build_policy(double *build_s)
{
    kg_rbac *r = kg_rbac_new();
    char buf[4096];
    /* 2,500 of each kind; the user's 20 are among them */
    for (int i = 0; i < 2500; i++) {
        snprintf(buf, sizeof buf, "{\"metadata\":{\"name\":\"cr%d\"},\"rules\":%s}", i, RULES);
        add(r, KG_RBAC_CLUSTERROLE, buf);
        snprintf(buf, sizeof buf, "{\"metadata\":{\"name\":\"r%d\",\"namespace\":\"ns%d\"},\"rules\":%s}", i, i % 100,
                 RULES);
        add(r, KG_RBAC_ROLE, buf);
        snprintf(buf, sizeof buf,
                 "{\"metadata\":{\"name\":\"crb%d\"},\"roleRef\":{\"kind\":\"ClusterRole\",\"name\":\"cr%d\"},"
                 "\"subjects\":[{\"kind\":\"%s\",\"name\":\"%s%d\"}]}",
                 i, i, i % 2 ? "User" : "Group", i % 2 ? "user" : "group", i);
        add(r, KG_RBAC_CLUSTERROLEBINDING, buf);
        snprintf(buf, sizeof buf,
                 "{\"metadata\":{\"name\":\"rb%d\",\"namespace\":\"ns%d\"},\"roleRef\":{\"kind\":\"Role\","
                 "\"name\":\"r%d\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"user%d\"}]}",
                 i, i % 100, i, i);
        add(r, KG_RBAC_ROLEBINDING, buf);
    }
    /* alice: 5 ClusterRoleBindings to her, 5 to her group, 10 RoleBindings in ns7 (replacing some of the above) */
    for (int i = 0; i < 10; i++) {
        snprintf(buf, sizeof buf,
                 "{\"metadata\":{\"name\":\"crb%d\"},\"roleRef\":{\"kind\":\"ClusterRole\",\"name\":\"cr%d\"},"
                 "\"subjects\":[{\"kind\":\"%s\",\"name\":\"%s\"}]}",
                 i, i, i < 5 ? "User" : "Group", i < 5 ? "alice" : "devs");
        add(r, KG_RBAC_CLUSTERROLEBINDING, buf);
        snprintf(buf, sizeof buf,
                 "{\"metadata\":{\"name\":\"alice%d\",\"namespace\":\"ns7\"},\"roleRef\":{\"kind\":\"ClusterRole\","
                 "\"name\":\"cr%d\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"alice\"}]}",
                 i, 100 + i);
        add(r, KG_RBAC_ROLEBINDING, buf);
    }
    /* the last RoleBinding walked allows "delete widgets" through its last rule */
    add(r, KG_RBAC_CLUSTERROLE,
        "{\"metadata\":{\"name\":\"cr109\"},\"rules\":[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":"
        "[\"pods\"]},{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"services\"]},{\"verbs\":[\"get\"],"
        "\"apiGroups\":[\"\"],\"resources\":[\"secrets\"]},{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":"
        "[\"endpoints\"]},{\"verbs\":[\"delete\"],\"apiGroups\":[\"example.com\"],\"resources\":[\"widgets\"]}]}");
    if (!kg_rbac_sync(r, 60000)) {
        fprintf(stderr, "policy not built\n");
        exit(1);
    }
    /* one more change: the time until the rebuilt snapshot (all 10,000 objects) is published */
    double t0 = now();
    add(r, KG_RBAC_ROLE, "{\"metadata\":{\"name\":\"extra\",\"namespace\":\"ns1\"}}");
    kg_rbac_sync(r, 60000);
    *build_s = now() - t0;
    return r;
}

static const char *const alice_groups[] = {"devs", "system:authenticated"};
static const kg_user_info alice = {.name = "alice", .groups = alice_groups, .ngroups = 2};

typedef struct job {
    kg_authorizer *z;
    kg_authz_attributes at;
    kg_authz_decision want;
    long n;
    double ns;
} job;

static void *run(void *arg)
{
    job *j = arg;
    kg_arena a;
    kg_arena_init(&a, 0);
    double t0 = cpu_now();
    for (long i = 0; i < j->n; i++) {
        const char *reason;
        if (kg_authz_authorize(j->z, &j->at, &a, &reason, NULL) != j->want) {
            fprintf(stderr, "unexpected decision\n");
            exit(1);
        }
        kg_arena_reset(&a);
    }
    j->ns = (cpu_now() - t0) * 1e9 / (double)j->n;
    kg_arena_free(&a);
    return NULL;
}

static int cmp_d(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static double measure(kg_authorizer *z, kg_authz_attributes at, kg_authz_decision want, int threads)
{
    double runs[5];
    for (int r = 0; r < 5; r++) {
        job jobs[2];
        pthread_t t[2];
        for (int i = 0; i < threads; i++) {
            jobs[i] = (job){z, at, want, 300000, 0};
            pthread_create(&t[i], NULL, run, &jobs[i]);
        }
        double sum = 0;
        for (int i = 0; i < threads; i++) {
            pthread_join(t[i], NULL);
            sum += jobs[i].ns;
        }
        runs[r] = sum / threads;
    }
    qsort(runs, 5, sizeof runs[0], cmp_d);
    return runs[2];
}

int main(void)
{
    double build_s;
    kg_rbac *r = build_policy(&build_s);
    kg_authorizer *z = kg_rbac_authorizer(r);
    kg_authz_attributes base = {.user = &alice,
                                .resource_request = true,
                                .namespace_ = "ns7",
                                .api_version = "v1",
                                .subresource = "",
                                .name = ""};
    kg_authz_attributes last = base, deny = base, first = base;
    last.verb = "delete", last.api_group = "example.com", last.resource = "widgets";
    deny.verb = "escalate", deny.api_group = "rbac.authorization.k8s.io", deny.resource = "roles";
    first.verb = "get", first.api_group = "", first.resource = "pods";
    double allow_last = measure(z, last, KG_AUTHZ_ALLOW, 1);
    double denied = measure(z, deny, KG_AUTHZ_NO_OPINION, 1);
    double allow_first = measure(z, first, KG_AUTHZ_ALLOW, 1);
    double denied2 = measure(z, deny, KG_AUTHZ_NO_OPINION, 2);
    printf("{\"objects\":10000,\"user_bindings\":20,\"rules_per_role\":5,\"snapshot_build_ms\":%.1f,"
           "\"allow_last_ns\":%.0f,\"deny_ns\":%.0f,\"allow_first_ns\":%.0f,\"deny_mt2_ns\":%.0f}\n",
           build_s * 1e3, allow_last, denied, allow_first, denied2);
    kg_authorizer_free(z);
    kg_rbac_free(r);
    return 0;
}
