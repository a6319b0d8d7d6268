/* See faulty_services.h. */
#include "faulty_services.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_READ_FAULTS 32

typedef struct read_fault {
    char *resource;
    int live;
    kg_errcode code;
} read_fault;

struct kg_faulty_services {
    kg_admission_services inner;
    pthread_mutex_t lock;
    int fail_writes;
    kg_errcode fail_write_code;
    read_fault reads[MAX_READ_FAULTS];
    size_t nreads;
    int nth; /* countdown to the failing call; 0 = off */
    kg_errcode nth_code;
    kg_errcode all_reads, all_writes;
};

kg_faulty_services *kg_faulty_services_new(const kg_admission_services *inner)
{
    kg_faulty_services *f = calloc(1, sizeof *f);
    if (!f)
        abort();
    f->inner = *inner;
    pthread_mutex_init(&f->lock, NULL);
    return f;
}

void kg_faulty_services_free(kg_faulty_services *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->nreads; i++)
        free(f->reads[i].resource);
    pthread_mutex_destroy(&f->lock);
    free(f);
}

void kg_faulty_fail_writes(kg_faulty_services *f, int n, kg_errcode code)
{
    pthread_mutex_lock(&f->lock);
    f->fail_writes = n;
    f->fail_write_code = code ? code : KG_EIO;
    pthread_mutex_unlock(&f->lock);
}

void kg_faulty_fail_reads(kg_faulty_services *f, const char *resource, int live, kg_errcode code)
{
    pthread_mutex_lock(&f->lock);
    size_t i = 0;
    while (i < f->nreads && !(strcmp(f->reads[i].resource, resource) == 0 && f->reads[i].live == live))
        i++;
    if (i == f->nreads && i < MAX_READ_FAULTS) {
        f->reads[i].resource = strdup(resource);
        f->reads[i].live = live;
        f->nreads++;
    }
    if (i < f->nreads)
        f->reads[i].code = code;
    pthread_mutex_unlock(&f->lock);
}

void kg_faulty_fail_nth(kg_faulty_services *f, int nth, kg_errcode code)
{
    pthread_mutex_lock(&f->lock);
    f->nth = nth;
    f->nth_code = code ? code : KG_EIO;
    pthread_mutex_unlock(&f->lock);
}

void kg_faulty_fail_all(kg_faulty_services *f, bool reads, bool writes, kg_errcode code)
{
    pthread_mutex_lock(&f->lock);
    f->all_reads = reads ? code : KG_OK;
    f->all_writes = writes ? code : KG_OK;
    pthread_mutex_unlock(&f->lock);
}

/* The injected failure for this call, or KG_OK. Counts the call toward fail_nth. */
static kg_errcode take_fault(kg_faulty_services *f, bool write, const char *resource, bool live)
{
    kg_errcode code = KG_OK;
    pthread_mutex_lock(&f->lock);
    if (f->nth > 0 && --f->nth == 0)
        code = f->nth_code;
    if (!code && write) {
        if (f->all_writes)
            code = f->all_writes;
        else if (f->fail_writes > 0) {
            f->fail_writes--;
            code = f->fail_write_code;
        }
    }
    if (!code && !write) {
        code = f->all_reads;
        for (size_t i = 0; !code && i < f->nreads; i++)
            if (f->reads[i].live == (live ? 1 : 0) && strcmp(f->reads[i].resource, resource) == 0)
                code = f->reads[i].code;
    }
    pthread_mutex_unlock(&f->lock);
    return code;
}

static kg_json *f_get(void *ctx, kg_arena *a, const char *resource, const char *ns, const char *name, unsigned flags,
                      kg_error *err)
{
    kg_faulty_services *f = ctx;
    kg_errcode c = take_fault(f, false, resource, flags & KG_ADMISSION_GET_LIVE);
    if (c) {
        kg_err_set(err, c, "injected read failure for %s \"%s\"", resource, name);
        return NULL;
    }
    return f->inner.get(f->inner.ctx, a, resource, ns, name, flags, err);
}

static kg_json *f_list(void *ctx, kg_arena *a, const char *resource, const char *ns, unsigned flags, kg_error *err)
{
    kg_faulty_services *f = ctx;
    kg_errcode c = take_fault(f, false, resource, flags & KG_ADMISSION_GET_LIVE);
    if (c) {
        kg_err_set(err, c, "injected read failure for %s", resource);
        return NULL;
    }
    return f->inner.list(f->inner.ctx, a, resource, ns, flags, err);
}

static kg_json_shared *f_view(void *ctx, kg_arena *a, const char *resource, const char *ns, const char *name,
                              kg_error *err)
{
    kg_faulty_services *f = ctx;
    kg_errcode c = take_fault(f, false, resource, false);
    if (c) {
        kg_err_set(err, c, "injected read failure for %s \"%s\"", resource, name);
        return NULL;
    }
    return f->inner.view(f->inner.ctx, a, resource, ns, name, err);
}

static size_t f_view_list(void *ctx, kg_arena *a, const char *resource, const char *ns, kg_json_shared ***out,
                          kg_error *err)
{
    kg_faulty_services *f = ctx;
    kg_errcode c = take_fault(f, false, resource, false);
    if (c) {
        kg_err_set(err, c, "injected read failure for %s", resource);
        return (size_t)-1;
    }
    return f->inner.view_list(f->inner.ctx, a, resource, ns, out, err);
}

static kg_json *f_create(void *ctx, kg_arena *a, const char *resource, const char *ns, const kg_json *obj,
                         kg_error *err)
{
    kg_faulty_services *f = ctx;
    kg_errcode c = take_fault(f, true, resource, false);
    if (c) {
        kg_err_set(err, c, "injected write failure");
        return NULL;
    }
    return f->inner.create(f->inner.ctx, a, resource, ns, obj, err);
}

static kg_json *f_update(void *ctx, kg_arena *a, const char *resource, const char *ns, const kg_json *obj,
                         kg_error *err)
{
    kg_faulty_services *f = ctx;
    kg_errcode c = take_fault(f, true, resource, false);
    if (c) {
        kg_err_set(err, c, "injected write failure");
        return NULL;
    }
    return f->inner.update(f->inner.ctx, a, resource, ns, obj, err);
}

static bool f_ready(void *ctx, const char *resource)
{
    kg_faulty_services *f = ctx;
    return f->inner.ready(f->inner.ctx, resource);
}

static bool f_feature(void *ctx, const char *gate)
{
    kg_faulty_services *f = ctx;
    return f->inner.feature_enabled(f->inner.ctx, gate);
}

static int64_t f_now(void *ctx)
{
    kg_faulty_services *f = ctx;
    return f->inner.now_ns(f->inner.ctx);
}

static void f_sleep(void *ctx, int64_t ns)
{
    kg_faulty_services *f = ctx;
    f->inner.sleep_ns(f->inner.ctx, ns);
}

static uint64_t f_subscribe(void *ctx, const char *resource, kg_admission_event_fn fn, void *ud, kg_error *err)
{
    kg_faulty_services *f = ctx;
    return f->inner.subscribe(f->inner.ctx, resource, fn, ud, err);
}

static void f_unsubscribe(void *ctx, uint64_t id)
{
    kg_faulty_services *f = ctx;
    f->inner.unsubscribe(f->inner.ctx, id);
}

kg_admission_services kg_faulty_services_get(kg_faulty_services *f)
{
    const kg_admission_services *in = &f->inner;
    return (kg_admission_services){
        .ctx = f,
        .get = in->get ? f_get : NULL,
        .list = in->list ? f_list : NULL,
        .view = in->view ? f_view : NULL,
        .view_list = in->view_list ? f_view_list : NULL,
        .ready = in->ready ? f_ready : NULL,
        .create = in->create ? f_create : NULL,
        .update = in->update ? f_update : NULL,
        .feature_enabled = in->feature_enabled ? f_feature : NULL,
        .now_ns = in->now_ns ? f_now : NULL,
        .sleep_ns = in->sleep_ns ? f_sleep : NULL,
        .subscribe = in->subscribe ? f_subscribe : NULL,
        .unsubscribe = in->unsubscribe ? f_unsubscribe : NULL,
        .authorizer = in->authorizer,
        .options = in->options,
        .metrics = in->metrics,
    };
}
