/* RequestInfo parsing: the cases of upstream's requestinfo_test.go plus kgate's additions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/requestinfo.h"

typedef struct ri_case {
    const char *method, *url, *verb, *prefix, *group, *version, *ns, *resource, *sub, *name;
    const char *parts; /* joined by '/' */
} ri_case;

static const ri_case success_cases[] = {
    /* resource paths */
    {"GET", "/api/v1/namespaces", "list", "api", "", "v1", "", "namespaces", "", "", "namespaces"},
    {"GET", "/api/v1/namespaces/other", "get", "api", "", "v1", "other", "namespaces", "", "other", "namespaces/other"},
    {"GET", "/api/v1/namespaces/other/pods", "list", "api", "", "v1", "other", "pods", "", "", "pods"},
    {"GET", "/api/v1/namespaces/other/pods/foo", "get", "api", "", "v1", "other", "pods", "", "foo", "pods/foo"},
    {"HEAD", "/api/v1/namespaces/other/pods/foo", "get", "api", "", "v1", "other", "pods", "", "foo", "pods/foo"},
    {"GET", "/api/v1/pods", "list", "api", "", "v1", "", "pods", "", "", "pods"},
    {"HEAD", "/api/v1/pods", "list", "api", "", "v1", "", "pods", "", "", "pods"},
    /* upstream's table expects namespace "" here but its code (and kube-apiserver) yields the name */
    {"PATCH", "/api/v1/namespaces/new-namespace", "patch", "api", "", "v1", "new-namespace", "namespaces", "",
     "new-namespace", "namespaces/new-namespace"},
    /* special verbs */
    {"GET", "/api/v1/proxy/namespaces/other/pods/foo", "proxy", "api", "", "v1", "other", "pods", "", "foo",
     "pods/foo"},
    {"GET", "/api/v1/proxy/namespaces/other/pods/foo/subpath/not/a/subresource", "proxy", "api", "", "v1", "other",
     "pods", "", "foo", "pods/foo/subpath/not/a/subresource"},
    {"GET", "/api/v1/watch/pods", "watch", "api", "", "v1", "", "pods", "", "", "pods"},
    {"GET", "/api/v1/pods?watch=true", "watch", "api", "", "v1", "", "pods", "", "", "pods"},
    {"GET", "/api/v1/pods?watch=false", "list", "api", "", "v1", "", "pods", "", "", "pods"},
    {"GET", "/api/v1/watch/namespaces/other/pods", "watch", "api", "", "v1", "other", "pods", "", "", "pods"},
    {"GET", "/api/v1/namespaces/other/pods?watch=1", "watch", "api", "", "v1", "other", "pods", "", "", "pods"},
    {"GET", "/api/v1/namespaces/other/pods?watch=0", "list", "api", "", "v1", "other", "pods", "", "", "pods"},
    /* Convert_Slice_string_To_bool: anything but "0"/"false" (any case) is true, even "" */
    {"GET", "/api/v1/pods?watch=FALSE", "list", "api", "", "v1", "", "pods", "", "", "pods"},
    {"GET", "/api/v1/pods?watch=", "watch", "api", "", "v1", "", "pods", "", "", "pods"},
    {"GET", "/api/v1/pods?watch=no", "watch", "api", "", "v1", "", "pods", "", "", "pods"},
    /* subresource identification */
    {"GET", "/api/v1/namespaces/other/pods/foo/status", "get", "api", "", "v1", "other", "pods", "status", "foo",
     "pods/foo/status"},
    {"GET", "/api/v1/namespaces/other/pods/foo/proxy/subpath", "get", "api", "", "v1", "other", "pods", "proxy", "foo",
     "pods/foo/proxy/subpath"},
    {"PUT", "/api/v1/namespaces/other/finalize", "update", "api", "", "v1", "other", "namespaces", "finalize", "other",
     "namespaces/other/finalize"},
    {"PUT", "/api/v1/namespaces/other/status", "update", "api", "", "v1", "other", "namespaces", "status", "other",
     "namespaces/other/status"},
    /* verb identification */
    {"PATCH", "/api/v1/namespaces/other/pods/foo", "patch", "api", "", "v1", "other", "pods", "", "foo", "pods/foo"},
    {"DELETE", "/api/v1/namespaces/other/pods/foo", "delete", "api", "", "v1", "other", "pods", "", "foo", "pods/foo"},
    {"POST", "/api/v1/namespaces/other/pods", "create", "api", "", "v1", "other", "pods", "", "", "pods"},
    /* deletecollection */
    {"DELETE", "/api/v1/nodes", "deletecollection", "api", "", "v1", "", "nodes", "", "", "nodes"},
    {"DELETE", "/api/v1/namespaces", "deletecollection", "api", "", "v1", "", "namespaces", "", "", "namespaces"},
    {"DELETE", "/api/v1/namespaces/other/pods", "deletecollection", "api", "", "v1", "other", "pods", "", "", "pods"},
    {"DELETE", "/apis/extensions/v1/namespaces/other/pods", "deletecollection", "apis", "extensions", "v1", "other",
     "pods", "", "", "pods"},
    /* api group / version */
    {"POST", "/apis/extensions/v1/namespaces/other/pods", "create", "apis", "extensions", "v1", "other", "pods", "", "",
     "pods"},
    {"POST", "/apis/extensions/v1beta3/namespaces/other/pods", "create", "apis", "extensions", "v1beta3", "other",
     "pods", "", "", "pods"},
    {"GET", "/apis/apps/v1/namespaces/ns/deployments/d/scale", "get", "apis", "apps", "v1", "ns", "deployments",
     "scale", "d", "deployments/d/scale"},
    {"PUT", "/apis/apps/v1/namespaces/ns/deployments/d/status", "update", "apis", "apps", "v1", "ns", "deployments",
     "status", "d", "deployments/d/status"},
    /* trailing and doubled slashes: Trim then Split */
    {"GET", "/api/v1/namespaces/other/pods/", "list", "api", "", "v1", "other", "pods", "", "", "pods"},
    /* unknown methods: empty verb */
    {"OPTIONS", "/api/v1/pods", "", "api", "", "v1", "", "pods", "", "", "pods"},
    /* field selector metadata.name on list/watch */
    {"GET", "/apis/group/version/resource?fieldSelector=metadata.name=name1", "list", "apis", "group", "version", "",
     "resource", "", "name1", "resource"},
    {"GET", "/apis/group/version/resource?watch=true&fieldSelector=metadata.name=name1", "watch", "apis", "group",
     "version", "", "resource", "", "name1", "resource"},
    {"GET", "/apis/group/version/resource?fieldSelector=metadata.name%3D%3Dname2%2Cspec.x%3Dy", "list", "apis", "group",
     "version", "", "resource", "", "name2", "resource"},
    {"GET", "/apis/group/version/resource?fieldSelector=foo=bar", "list", "apis", "group", "version", "", "resource",
     "", "", "resource"},
    {"GET", "/apis/group/version/resource?fieldSelector=metadata.name!=x", "list", "apis", "group", "version", "",
     "resource", "", "", "resource"},
    {"GET", "/apis/group/version/resource?fieldSelector=metadata.name=name1,foo", "list", "apis", "group", "version",
     "", "resource", "", "", "resource"},
    {"GET", "/apis/group/version/resource?fieldSelector=metadata.name=name1,foo&watch=true", "watch", "apis", "group",
     "version", "", "resource", "", "", "resource"},
    {"GET", "/apis/group/version/resource?fieldSelector=metadata.name=name1,foo&watch=false", "list", "apis", "group",
     "version", "", "resource", "", "", "resource"},
    /* a name that is not a valid path segment is not used */
    {"GET", "/api/v1/pods?fieldSelector=metadata.name%3D..", "list", "api", "", "v1", "", "pods", "", "", "pods"},
    {"GET", "/api/v1/pods?fieldSelector=metadata.name%3Da%2Fb", "list", "api", "", "v1", "", "pods", "", "", "pods"},
    /* DELETE with a name from a field selector is still deletecollection (only get becomes list) */
    {"DELETE", "/api/v1/pods?fieldSelector=metadata.name%3Dx", "deletecollection", "api", "", "v1", "", "pods", "", "",
     "pods"},
};

static char *join_parts(const kg_request_info *ri)
{
    size_t n = 1;
    for (size_t i = 0; i < ri->nparts; i++)
        n += strlen(ri->parts[i]) + 1;
    char *s = calloc(1, n);
    for (size_t i = 0; i < ri->nparts; i++) {
        if (i)
            strcat(s, "/");
        strcat(s, ri->parts[i]);
    }
    return s;
}

static void parse(kg_arena *a, const char *method, const char *url, kg_request_info *ri, bool expect_ok)
{
    char path[512];
    snprintf(path, sizeof(path), "%s", url);
    char *q = strchr(path, '?');
    const char *query = "";
    if (q) {
        *q = '\0';
        query = q + 1;
    }
    kg_error err = {0};
    bool ok = kg_requestinfo_parse_url(a, method, kg_arena_strdup(a, path), kg_arena_strdup(a, query), ri, &err);
    if (ok != expect_ok)
        fail_msg("%s %s: parse returned %d (%s)", method, url, ok, err.msg);
}

static void upstream_success_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(success_cases) / sizeof(success_cases[0]); i++) {
        const ri_case *c = &success_cases[i];
        kg_arena a;
        kg_arena_init(&a, 0);
        kg_request_info ri;
        parse(&a, c->method, c->url, &ri, true);
        char *parts = join_parts(&ri);
        if (!ri.is_resource_request || strcmp(ri.verb, c->verb) || strcmp(ri.api_prefix, c->prefix) ||
            strcmp(ri.api_group, c->group) || strcmp(ri.api_version, c->version) || strcmp(ri.namespace_, c->ns) ||
            strcmp(ri.resource, c->resource) || strcmp(ri.subresource, c->sub) || strcmp(ri.name, c->name) ||
            strcmp(parts, c->parts)) {
            fail_msg("%s %s: got resource=%d verb=%s prefix=%s group=%s version=%s ns=%s resource=%s sub=%s name=%s "
                     "parts=%s",
                     c->method, c->url, ri.is_resource_request, ri.verb, ri.api_prefix, ri.api_group, ri.api_version,
                     ri.namespace_, ri.resource, ri.subresource, ri.name, parts);
        }
        free(parts);
        kg_arena_free(&a);
    }
}

static void non_resource_requests(void **state)
{
    (void)state;
    static const struct {
        const char *url;
        bool resource;
    } cases[] = {
        {"/api/version/resource", true},
        {"/apis/group/version/resource/name/subresource", true},
        {"/api/version/resource/name/subresource", true},
        {"/apis/batch/v1/job", true},
        {"/apis/batch/v1/job/foo", true},
        {"/apis/batch/v1/job/foo/scale", true},
        {"/not-api/version/resource", false},
        {"/apis/extensions/v1beta1", false},
        {"/apis/extensions/v1beta1/", false},
        {"/api/version", false},
        {"/api", false},
        {"/", false},
        {"", false},
        {"/api/version/", false},
        {"/apis/group/version/", false},
        {"/badprefix/version/resource", false},
        {"/apis/version/resource", false},
        {"/healthz", false},
        {"/openapi/v2", false},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        kg_arena a;
        kg_arena_init(&a, 0);
        kg_request_info ri;
        parse(&a, "GET", cases[i].url, &ri, true);
        if (ri.is_resource_request != cases[i].resource)
            fail_msg("%s: resource request %d, want %d", cases[i].url, ri.is_resource_request, cases[i].resource);
        if (!cases[i].resource) {
            assert_string_equal(ri.verb, "get"); /* lower-cased method */
            assert_string_equal(ri.path, cases[i].url);
            assert_string_equal(ri.resource, "");
        }
        kg_arena_free(&a);
    }
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_request_info ri;
    parse(&a, "POST", "/apis", &ri, true);
    assert_false(ri.is_resource_request);
    assert_string_equal(ri.verb, "post");
    kg_arena_free(&a);
}

static void special_verb_without_resource_is_an_error(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_request_info ri;
    kg_error err = {0};
    assert_false(kg_requestinfo_parse_url(&a, "GET", "/api/v1/watch", "", &ri, &err));
    assert_string_equal(err.msg, "unable to determine kind and namespace from url, /api/v1/watch");
    assert_true(ri.is_resource_request);
    assert_string_equal(ri.api_version, "v1");
    assert_true(kg_requestinfo_parse_url(&a, "GET", "/api/v1/watch/pods", "", &ri, &err));
    assert_string_equal(ri.verb, "watch");
    kg_arena_free(&a);
}

static void long_running_requests(void **state)
{
    (void)state;
    static const struct {
        const char *method, *url;
        bool lr;
    } cases[] = {
        {"GET", "/api/v1/pods?watch=true", true},
        {"GET", "/api/v1/watch/namespaces/a/pods", true},
        {"GET", "/api/v1/namespaces/a/pods/p/log", true},
        {"POST", "/api/v1/namespaces/a/pods/p/exec", true},
        {"GET", "/api/v1/namespaces/a/pods/p/attach", true},
        {"GET", "/api/v1/namespaces/a/pods/p/portforward", true},
        {"GET", "/api/v1/namespaces/a/services/s/proxy/x", true},
        {"GET", "/api/v1/pods", false},
        {"GET", "/api/v1/namespaces/a/pods/p/status", false},
        {"GET", "/healthz", false},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        kg_arena a;
        kg_arena_init(&a, 0);
        kg_request_info ri;
        parse(&a, cases[i].method, cases[i].url, &ri, true);
        if (kg_requestinfo_is_long_running(&ri) != cases[i].lr)
            fail_msg("%s %s: long running %d", cases[i].method, cases[i].url, !cases[i].lr);
        kg_arena_free(&a);
    }
}

static void query_decoding(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_request_info ri;
    kg_error err = {0};
    /* first value wins; pairs with ';' or bad escapes are skipped like Go's url.ParseQuery */
    assert_true(kg_requestinfo_parse_url(&a, "GET", "/api/v1/pods", "watch=0&watch=1", &ri, &err));
    assert_string_equal(ri.verb, "list");
    assert_true(kg_requestinfo_parse_url(&a, "GET", "/api/v1/pods", "watch=0;x&watch=1", &ri, &err));
    assert_string_equal(ri.verb, "watch");
    assert_true(kg_requestinfo_parse_url(&a, "GET", "/api/v1/pods", "watch=%zz&watch=true", &ri, &err));
    assert_string_equal(ri.verb, "watch");
    assert_true(kg_requestinfo_parse_url(&a, "GET", "/api/v1/pods", "wat%63h=1", &ri, &err));
    assert_string_equal(ri.verb, "watch");
    assert_true(kg_requestinfo_parse_url(&a, "GET", "/api/v1/pods", "fieldSelector=metadata.name%3Dmy+pod", &ri, &err));
    assert_string_equal(ri.name, "my pod");
    kg_arena_free(&a);
}

/* Random paths and queries (deterministic): no crash, and the invariants upstream's parser keeps. */
static void random_inputs(void **state)
{
    (void)state;
    static const char *const seg[] = {"api",   "apis",  "v1",       "apps", "namespaces", "ns",  "pods", "p", "status",
                                      "watch", "proxy", "finalize", "",     "scale",      "%2F", "..",   "x"};
    static const char *const methods[] = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"};
    static const char *const queries[] = {
        "",      "watch=1", "watch=false",     "fieldSelector=metadata.name%3Dp", "fieldSelector=a%3D%3Db%2C%2C",
        "watch", "%",       "fieldSelector=\\"};
    uint32_t seed = 12345;
    for (int iter = 0; iter < 20000; iter++) {
        char path[256] = "";
        seed = seed * 1103515245u + 12345u;
        int n = (int)(seed >> 16) % 8;
        for (int i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            strcat(path, "/");
            strcat(path, seg[(seed >> 16) % (sizeof(seg) / sizeof(seg[0]))]);
        }
        if ((seed >> 8) & 1)
            strcat(path, "/");
        seed = seed * 1103515245u + 12345u;
        const char *method = methods[(seed >> 16) % 7];
        const char *query = queries[(seed >> 20) % 8];
        kg_arena a;
        kg_arena_init(&a, 0);
        kg_request_info ri;
        kg_error err = {0};
        bool ok = kg_requestinfo_parse_url(&a, method, path, query, &ri, &err);
        if (!ok) {
            /* only "/<prefix>[/<group>]/<version>/{watch|proxy}" with nothing after */
            assert_true(ri.is_resource_request);
            assert_non_null(strstr(err.msg, "unable to determine kind and namespace from url"));
        } else if (ri.is_resource_request) {
            assert_true(!strcmp(ri.api_prefix, "api") || !strcmp(ri.api_prefix, "apis"));
            assert_true(ri.nparts >= 1);
            assert_string_equal(ri.resource, ri.parts[0]);
            if (*ri.subresource)
                assert_true(ri.nparts >= 3 && !strcmp(ri.subresource, ri.parts[2]));
            /* collection verbs only when the path names no object */
            if (!strcmp(ri.verb, "list") || !strcmp(ri.verb, "deletecollection") ||
                (!strcmp(ri.verb, "watch") && strstr(path, "/watch") == NULL))
                assert_true(ri.nparts < 2 || !*ri.parts[1]);
        } else {
            /* upstream records the prefix before giving up ("/apis/g/v1" is non-resource with prefix apis) */
            assert_string_equal(ri.api_group, "");
            assert_string_equal(ri.resource, "");
            assert_int_equal(ri.nparts, 0);
        }
        kg_arena_free(&a);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(upstream_success_cases),
        cmocka_unit_test(non_resource_requests),
        cmocka_unit_test(special_verb_without_resource_is_an_error),
        cmocka_unit_test(long_running_requests),
        cmocka_unit_test(query_decoding),
        cmocka_unit_test(random_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
