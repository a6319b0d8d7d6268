/* Shared helpers for the admission tests. */
#ifndef KG_TEST_ADMISSION_TESTUTIL_H
#define KG_TEST_ADMISSION_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "admission/attributes.h"
#include "admission/chain.h"
#include "admission/memcluster.h"
#include "admission/registry.h"
#include "json/json.h"
#include "meta/status.h"

static inline kg_json *tj(kg_arena *a, const char *text)
{
    kg_error e = {0};
    kg_json *j = kg_json_parse(a, text, strlen(text), &e);
    if (!j)
        fail_msg("bad test JSON: %s: %s", e.msg, text);
    return j;
}

/* Attributes for a core/v1 object of kind/resource in ns (name may be ""). */
static inline void tattrs(kg_admission_attributes *at, kg_arena *a, kg_admission_op op, const char *kind,
                          const char *resource, const char *ns, const char *name, kg_json *obj, kg_json *old)
{
    kg_admission_attrs_init(at, a);
    at->operation = op;
    at->kind = (kg_gvk){"", "v1", kind};
    at->resource = (kg_gvr){"", "v1", resource};
    at->ns = ns;
    at->name = name;
    at->object = obj;
    at->old_object = old;
}

static inline void tput(kg_admission_memcluster *m, const char *resource, const char *json, unsigned flags)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_error e = {0};
    assert_true(kg_admission_memcluster_put(m, resource, tj(&a, json), flags, &e));
    kg_arena_free(&a);
}

#define assert_status(st, want_code, want_reason, want_msg)                                                            \
    do {                                                                                                               \
        const kg_status *st_ = (st);                                                                                   \
        assert_non_null(st_);                                                                                          \
        assert_string_equal(st_->message, (want_msg));                                                                 \
        assert_int_equal(kg_status_http_code(st_), (want_code));                                                       \
        assert_string_equal(st_->reason ? st_->reason : "", (want_reason));                                            \
    } while (0)

#endif
