/* JSON DOM <-> CEL values. JSON objects/arrays are wrapped lazily (no copy, no allocation per access). */
#include <math.h>
#include <stdio.h>

#include "cel/cel_internal.h"
#include "cel/cel_json.h"
#include "base/base64.h"

cel_value cel_json_to_value_any(const kg_json *j)
{
    return cel_json_wrap(j);
}

/* kg_json_new_double for a finite d: values beyond the int64 range become a number node directly (the DOM's
 * constructor first casts to int64 to test for an integral value, undefined for them) */
static kg_json *json_double(kg_arena *a, double d)
{
    if (d > -9.2e18 && d < 9.2e18)
        return kg_json_new_double(a, d);
    kg_json *n = kg_json_new_null(a);
    n->type = KG_JSON_NUMBER;
    n->u.num.d = d;
    n->u.num.raw = NULL;
    return n;
}

static kg_json *conv(kg_arena *a, const cel_value *v, char *errbuf, size_t errcap, int depth)
{
    if (depth > 100) {
        snprintf(errbuf, errcap, "value nesting too deep");
        return NULL;
    }
    kg_buf b = KG_BUF_INIT;
    kg_json *r = NULL;
    switch (v->kind) {
    case CEL_NULL: return kg_json_new_null(a);
    case CEL_BOOL: return kg_json_new_bool(a, v->u.b);
    case CEL_INT: return kg_json_new_int(a, v->u.i);
    case CEL_UINT:
        if (v->u.u <= (uint64_t)INT64_MAX)
            return kg_json_new_int(a, (int64_t)v->u.u);
        {
            kg_json *n = json_double(a, (double)v->u.u);
            n->u.num.raw = kg_arena_sprintf(a, "%llu", (unsigned long long)v->u.u);
            n->len = (uint32_t)strlen(n->u.num.raw);
            return n;
        }
    case CEL_DOUBLE:
        if (isnan(v->u.d) || isinf(v->u.d)) {
            snprintf(errbuf, errcap, "double value %s has no JSON representation",
                     isnan(v->u.d) ? "NaN"
                     : v->u.d > 0  ? "+Inf"
                                   : "-Inf");
            return NULL;
        }
        {
            kg_json *n = json_double(a, v->u.d);
            cel_format_double(&b, v->u.d);
            n->u.num.raw = kg_arena_strndup(a, b.data, b.len);
            n->len = (uint32_t)b.len;
            kg_buf_free(&b);
            return n;
        }
    case CEL_STRING: return kg_json_new_strn(a, v->u.s, v->n);
    case CEL_BYTES:
        kg_base64_encode_buf(&b, v->u.s, v->n, 0);
        r = kg_json_new_strn(a, b.data ? b.data : "", b.len);
        kg_buf_free(&b);
        return r;
    case CEL_TIMESTAMP:
        cel_format_timestamp(&b, v->u.i, (int32_t)v->n);
        r = kg_json_new_strn(a, b.data, b.len);
        kg_buf_free(&b);
        return r;
    case CEL_DURATION:
        cel_format_duration_go(&b, v->u.i);
        r = kg_json_new_strn(a, b.data, b.len);
        kg_buf_free(&b);
        return r;
    case CEL_TYPE: return kg_json_new_str(a, v->u.type->name);
    case CEL_OPTIONAL: {
        if (!cel_optional_has(v))
            return kg_json_new_null(a);
        cel_value in = cel_optional_value(v);
        return conv(a, &in, errbuf, errcap, depth + 1);
    }
    case CEL_LIST: {
        r = kg_json_new_array(a);
        size_t n = cel_list_size(v);
        for (size_t i = 0; i < n; i++) {
            cel_value e = cel_list_get(NULL, v, i);
            kg_json *je = conv(a, &e, errbuf, errcap, depth + 1);
            if (!je)
                return NULL;
            kg_json_array_append(a, r, je);
        }
        return r;
    }
    case CEL_MAP: {
        r = kg_json_new_object(a);
        size_t n = cel_map_size(v);
        for (size_t i = 0; i < n; i++) {
            cel_value k, e;
            cel_map_entry(NULL, v, i, &k, &e);
            kg_json *je = conv(a, &e, errbuf, errcap, depth + 1);
            if (!je)
                return NULL;
            if (k.kind == CEL_STRING) {
                kg_json_setn(a, r, k.u.s, k.n, je);
            } else {
                kg_buf kb = KG_BUF_INIT;
                if (k.kind == CEL_INT)
                    kg_buf_printf(&kb, "%lld", (long long)k.u.i);
                else if (k.kind == CEL_UINT)
                    kg_buf_printf(&kb, "%llu", (unsigned long long)k.u.u);
                else
                    kg_buf_puts(&kb, k.u.b ? "true" : "false");
                kg_json_setn(a, r, kb.data, kb.len, je);
                kg_buf_free(&kb);
            }
        }
        return r;
    }
    case CEL_OPAQUE: {
        const cel_opaque_vt *vt = v->aux;
        if (vt->to_string) {
            cel_call_ctx ctx;
            memset(&ctx, 0, sizeof ctx);
            ctx.arena = a;
            ctx.limit = UINT64_MAX;
            cel_value s = vt->to_string(&ctx, v);
            if (s.kind == CEL_STRING)
                return kg_json_new_strn(a, s.u.s, s.n);
        }
        snprintf(errbuf, errcap, "value of type %s has no JSON representation", vt->type_name);
        return NULL;
    }
    case CEL_ERROR: snprintf(errbuf, errcap, "%s", v->u.s); return NULL;
    default: snprintf(errbuf, errcap, "unsupported value"); return NULL;
    }
}

kg_json *cel_value_to_json(kg_arena *a, const cel_value *v, char *errbuf, size_t errcap)
{
    char dummy[8];
    if (!errbuf) {
        errbuf = dummy;
        errcap = sizeof dummy;
    }
    return conv(a, v, errbuf, errcap, 0);
}
