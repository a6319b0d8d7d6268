/* Lazily wrapped JSON DOM values (kg_json): arrays and objects are read in place, children are wrapped on access.
 * The vtables live in the core (not in the kgate_cel_json bridge) so the evaluator can recognise JSON values and
 * walk the DOM directly (fused field paths, comprehensions over JSON arrays). */
#include "cel/cel_internal.h"

static size_t jarr_size(const cel_value *l)
{
    return ((const kg_json *)l->u.ptr)->len;
}
static cel_value jarr_get(cel_call_ctx *ctx, const cel_value *l, size_t i)
{
    (void)ctx;
    return cel_json_wrap(((const kg_json *)l->u.ptr)->u.items[i]);
}
const cel_list_vt cel_jarr_vt = {jarr_size, jarr_get};

static size_t jobj_size(const cel_value *m)
{
    return ((const kg_json *)m->u.ptr)->len;
}

static bool jobj_get_str(cel_call_ctx *ctx, const cel_value *m, const char *k, size_t kl, cel_value *out)
{
    (void)ctx;
    const kg_json_member *mb = cel_jobj_find(m->u.ptr, k, (uint32_t)kl);
    if (!mb)
        return false;
    *out = cel_json_wrap(mb->val);
    return true;
}

static bool jobj_get(cel_call_ctx *ctx, const cel_value *m, const cel_value *k, cel_value *out)
{
    if (k->kind != CEL_STRING)
        return false;
    return jobj_get_str(ctx, m, k->u.s, k->n, out);
}

static void jobj_entry(cel_call_ctx *ctx, const cel_value *m, size_t i, cel_value *k, cel_value *v)
{
    (void)ctx;
    const kg_json_member *mb = &((const kg_json *)m->u.ptr)->u.members[i];
    if (k)
        *k = cel_string(mb->key, mb->key_len);
    if (v)
        *v = cel_json_wrap(mb->val);
}

const cel_map_vt cel_jobj_vt = {jobj_size, jobj_get, jobj_entry, jobj_get_str, NULL};
