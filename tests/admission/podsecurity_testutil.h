/* Helpers for the PodSecurity tests: the minimal valid pods of the upstream fixture generator
 * (pod-security-admission test/fixtures.go) and a JSON merge used to mutate them.
 *
 * Fixture JSON is written with single quotes for readability; sq() turns them into double quotes (no fixture value
 * contains a single quote). */
#ifndef KG_TEST_PODSECURITY_TESTUTIL_H
#define KG_TEST_PODSECURITY_TESTUTIL_H

#include "admission_testutil.h"
#include "admission/plugins/podsecurity/podsecurity.h"

static inline kg_json *sq(kg_arena *a, const char *text)
{
    char *s = kg_arena_strdup(a, text);
    for (char *p = s; *p; p++)
        if (*p == '\'')
            *p = '"';
    return tj(a, s);
}

/* Merge patch into dst: objects recursively, null deletes, arrays element-wise by index (longer patches append),
 * anything else replaces. Returns the merged value. */
static inline kg_json *ps_merge(kg_arena *a, kg_json *dst, const kg_json *patch)
{
    if (kg_json_is(patch, KG_JSON_OBJECT)) {
        if (!kg_json_is(dst, KG_JSON_OBJECT))
            dst = kg_json_new_object(a);
        for (size_t i = 0; i < patch->len; i++) {
            const kg_json_member *m = &patch->u.members[i];
            if (kg_json_is(m->val, KG_JSON_NULL)) {
                kg_json_del(dst, m->key);
                continue;
            }
            kg_json *cur = kg_json_getn(dst, m->key, m->key_len);
            kg_json_setn(a, dst, m->key, m->key_len, ps_merge(a, cur, m->val));
        }
        return dst;
    }
    if (kg_json_is(patch, KG_JSON_ARRAY)) {
        if (!kg_json_is(dst, KG_JSON_ARRAY))
            dst = kg_json_new_array(a);
        for (size_t i = 0; i < patch->len; i++) {
            if (i < dst->len)
                dst->u.items[i] = ps_merge(a, dst->u.items[i], kg_json_at(patch, i));
            else
                kg_json_array_append(a, dst, ps_merge(a, NULL, kg_json_at(patch, i)));
        }
        return dst;
    }
    return kg_json_clone(a, patch);
}

/* GetMinimalValidPod(level, v): one init container and one container; restricted adds runAsNonRoot (v1.0),
 * allowPrivilegeEscalation=false (v1.8), a RuntimeDefault seccomp profile (v1.19) and drop ALL (v1.22). */
static inline kg_json *ps_minimal_pod(kg_arena *a, ps_level level, int minor)
{
    kg_json *pod = sq(a, "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'test'},'spec':{"
                         "'initContainers':[{'name':'initcontainer1','image':'registry.k8s.io/pause'}],"
                         "'containers':[{'name':'container1','image':'registry.k8s.io/pause'}]}}");
    if (level != PS_RESTRICTED)
        return pod;
    pod = ps_merge(a, pod, sq(a, "{'spec':{'securityContext':{'runAsNonRoot':true}}}"));
    if (minor >= 8)
        pod = ps_merge(a, pod,
                       sq(a, "{'spec':{'initContainers':[{'securityContext':{'allowPrivilegeEscalation':false}}],"
                             "'containers':[{'securityContext':{'allowPrivilegeEscalation':false}}]}}"));
    if (minor >= 19)
        pod = ps_merge(a, pod, sq(a, "{'spec':{'securityContext':{'seccompProfile':{'type':'RuntimeDefault'}}}}"));
    if (minor >= 22)
        pod = ps_merge(a, pod,
                       sq(a, "{'spec':{'initContainers':[{'securityContext':{'capabilities':{'drop':['ALL']}}}],"
                             "'containers':[{'securityContext':{'capabilities':{'drop':['ALL']}}}]}}"));
    return pod;
}

#endif
