/* NamespaceLifecycle (k8s.io/apiserver pkg/admission/plugin/namespace/lifecycle), mutating phase (admit only),
 * CREATE/UPDATE/DELETE:
 *   - the immortal namespaces default, kube-system and kube-public may not be deleted;
 *   - objects cannot be created in a namespace that is being terminated, nor created/updated in one that does not
 *     exist (404 `namespaces "x" not found`);
 *   - after a namespace DELETE passes through here, lookups of that namespace bypass the cache for 30 s while the
 *     cache still says Active ("force live lookup"), so a stale cache cannot let creates slip into a namespace that
 *     is being deleted. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "admission/plugin.h"
#include "admission/registry.h"
#include "base/hash.h"

#define FORCE_LIVE_SLOTS 100                         /* upstream LRUExpireCache size */
#define FORCE_LIVE_TTL_NS (30LL * 1000000000LL)      /* forceLiveLookupTTL */
#define MISSING_NAMESPACE_WAIT_NS (50LL * 1000000LL) /* missingNamespaceWait */

/* The force-live-lookup set, lock-free: slots hold (name hash, expiry); inserts overwrite the oldest insertion
 * (round robin). A hash collision can only cause an extra live lookup, never a wrong answer. */
typedef struct lifecycle_state {
    _Atomic uint64_t hash[FORCE_LIVE_SLOTS];
    _Atomic int64_t expires[FORCE_LIVE_SLOTS];
    _Atomic uint32_t next;
} lifecycle_state;

static uint64_t name_hash(const char *s)
{
    return kg_fnv1a64_str(s) | 1; /* never 0: 0 marks an empty slot */
}

static void force_live_add(lifecycle_state *st, const char *name, int64_t now)
{
    uint64_t h = name_hash(name);
    uint32_t used = atomic_load(&st->next);
    for (uint32_t i = 0; i < used && i < FORCE_LIVE_SLOTS; i++) { /* refresh an existing entry */
        if (atomic_load(&st->hash[i]) == h) {
            atomic_store(&st->expires[i], now + FORCE_LIVE_TTL_NS);
            return;
        }
    }
    uint32_t i = atomic_fetch_add(&st->next, 1) % FORCE_LIVE_SLOTS;
    atomic_store(&st->expires[i], 0);
    atomic_store(&st->hash[i], h);
    atomic_store(&st->expires[i], now + FORCE_LIVE_TTL_NS);
}

static bool force_live_has(lifecycle_state *st, const char *name, int64_t now)
{
    /* slots fill in order from 0 (round robin): only the ones ever written can hold an entry */
    uint32_t used = atomic_load(&st->next);
    if (!used)
        return false;
    uint64_t h = name_hash(name);
    for (uint32_t i = 0; i < used && i < FORCE_LIVE_SLOTS; i++)
        if (atomic_load(&st->hash[i]) == h && atomic_load(&st->expires[i]) > now)
            return true;
    return false;
}

static bool init(const kg_json *config, const kg_admission_services *svc, void **state, kg_error *err)
{
    lifecycle_state *st = calloc(1, sizeof *st);
    if (!st)
        return kg_err_set(err, KG_EINTERNAL, "out of memory");
    *state = st;
    return true;
}

static void destroy(void *state)
{
    free(state);
}

static bool is_immortal(const char *name)
{
    return strcmp(name, "default") == 0 || strcmp(name, "kube-system") == 0 || strcmp(name, "kube-public") == 0;
}

static const char *phase_of(const kg_json *ns)
{
    const char *p = kg_json_get_str(kg_json_get(ns, "status"), "phase");
    return p ? p : "";
}

static kg_status *admit(void *state, kg_admission_attributes *a, const kg_admission_services *svc)
{
    lifecycle_state *st = state;
    kg_arena *ar = a->arena;
    bool ns_kind = kg_admission_is_namespace_kind(a);

    if (a->operation == KG_ADMISSION_DELETE && ns_kind && is_immortal(a->name))
        return kg_status_forbidden(ar, KG_GR(a->resource.group, a->resource.resource), a->name,
                                   "this namespace may not be deleted");
    if (!a->ns[0] && !ns_kind)
        return NULL; /* cluster-scoped */
    if (ns_kind) {
        if (a->operation == KG_ADMISSION_DELETE)
            force_live_add(st, a->name, kg_admission_now_ns(svc));
        return NULL;
    }
    if (a->operation == KG_ADMISSION_DELETE)
        return NULL;
    /* access reviews must not reveal whether a namespace exists */
    if (strcmp(a->resource.group, "authorization.k8s.io") == 0 &&
        strcmp(a->resource.resource, "localsubjectaccessreviews") == 0)
        return NULL;
    if (!kg_admission_wait_ready(svc, "namespaces"))
        return kg_admission_forbidden(a, "not yet ready to handle request");

    KG_ERROR_DECL(e);
    const kg_json *ns = kg_admission_view_obj(svc, ar, "namespaces", "", a->ns, &e);
    if (!ns && e.code != KG_ENOTFOUND)
        return kg_status_internal(ar, e.msg);
    if (!ns && a->operation == KG_ADMISSION_CREATE) {
        /* give the cache time to observe a namespace created just before */
        kg_admission_sleep_ns(svc, MISSING_NAMESPACE_WAIT_NS);
        kg_err_clear(&e);
        ns = kg_admission_view_obj(svc, ar, "namespaces", "", a->ns, &e);
        if (!ns && e.code != KG_ENOTFOUND)
            return kg_status_internal(ar, e.msg);
    }
    bool force_live = ns && strcmp(phase_of(ns), "Active") == 0 && force_live_has(st, a->ns, kg_admission_now_ns(svc));
    if (!ns || force_live) {
        kg_err_clear(&e);
        ns = kg_admission_get(svc, ar, "namespaces", "", a->ns, KG_ADMISSION_GET_LIVE, &e);
        if (!ns) {
            if (e.code == KG_ENOTFOUND)
                return kg_status_not_found(ar, KG_GR("", "namespaces"), a->ns);
            return kg_status_internal(ar, e.msg);
        }
    }
    if (a->operation == KG_ADMISSION_CREATE && strcmp(phase_of(ns), "Terminating") == 0) {
        kg_status *s = kg_admission_forbidden(
            a, "unable to create new content in namespace %s because it is being terminated", a->ns);
        kg_status_add_cause(ar, s, "NamespaceTerminating",
                            kg_arena_sprintf(ar, "namespace %s is being terminated", a->ns), "metadata.namespace");
        return s;
    }
    return NULL;
}

const kg_admission_plugin kg_admission_plugin_namespace_lifecycle = {
    .name = "NamespaceLifecycle",
    .handles = KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE | KG_ADMISSION_DELETE,
    .init = init,
    .admit = admit,
    .destroy = destroy,
};
