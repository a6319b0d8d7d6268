/* A kg_controller_client over an in-memory cluster (admission/memcluster.h), for the controller tests: get, list,
 * create and update go to the cluster's services (live reads); delete, the namespace sweep and watch are not
 * implemented (NULL), so only controllers' sync functions can be driven with it. */
#ifndef KG_TEST_CONTROLLERS_CLIENT_MEMCLUSTER_H
#define KG_TEST_CONTROLLERS_CLIENT_MEMCLUSTER_H

#include "admission/memcluster.h"
#include "controllers/client.h"

typedef struct test_client {
    kg_admission_services svc;
    kg_controller_client c;
} test_client;

static inline kg_json *tc_get(void *ctx, kg_arena *a, const char *resource, const char *ns, const char *name,
                              kg_error *err)
{
    const kg_admission_services *s = ctx;
    return s->get(s->ctx, a, resource, ns, name, KG_ADMISSION_GET_LIVE, err);
}

static inline kg_json *tc_list(void *ctx, kg_arena *a, const char *resource, const char *ns, kg_error *err)
{
    const kg_admission_services *s = ctx;
    return s->list(s->ctx, a, resource, ns, KG_ADMISSION_GET_LIVE, err);
}

static inline kg_json *tc_create(void *ctx, kg_arena *a, const char *resource, const char *ns, const kg_json *obj,
                                 kg_error *err)
{
    const kg_admission_services *s = ctx;
    return s->create(s->ctx, a, resource, ns, obj, err);
}

static inline kg_json *tc_update(void *ctx, kg_arena *a, const char *resource, const char *ns, const kg_json *obj,
                                 kg_error *err)
{
    const kg_admission_services *s = ctx;
    return s->update(s->ctx, a, resource, ns, obj, err);
}

/* tc must stay where it is while the client is used (ctx points into it). */
static inline void test_client_init(test_client *tc, kg_admission_memcluster *m)
{
    tc->svc = kg_admission_memcluster_services(m, NULL);
    tc->c = (kg_controller_client){
        .ctx = &tc->svc,
        .get = tc_get,
        .list = tc_list,
        .create = tc_create,
        .update = tc_update,
        .services = &tc->svc,
    };
}

#endif
