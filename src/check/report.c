/* The outputs of `kgate check` (see report.h). */
#include "check/report.h"

#include <string.h>

#include "api/resources.h"
#include "meta/patch.h"
#include "yaml/yaml.h"

kg_check_summary kg_check_summarize(const kg_check_result *r, size_t n)
{
    kg_check_summary s = {.total = n};
    for (size_t i = 0; i < n; i++) {
        if (r[i].v.input_error)
            s.errors++;
        else if (r[i].v.allowed)
            s.admitted++;
        else
            s.denied++;
    }
    return s;
}

kg_json *kg_check_strip_server_fields(kg_arena *a, const kg_json *obj)
{
    kg_json *o = kg_json_clone(a, obj);
    kg_json *md = kg_json_get(o, "metadata");
    static const char *const fields[] = {"uid", "resourceVersion", "creationTimestamp", "generation", "managedFields"};
    for (size_t i = 0; md && i < sizeof fields / sizeof fields[0]; i++)
        kg_json_del(md, fields[i]);
    const char *msg;
    const kg_resource *r = kg_check_resource_of(a, o, &msg);
    if (r && r->has_status)
        kg_json_del(o, "status");
    return o;
}

static const char *dup_or_null(kg_arena *a, const char *s)
{
    return s ? kg_arena_strdup(a, s) : NULL;
}

void kg_check_result_keep(kg_arena *a, kg_check_result *r, const kg_check_verdict *v, unsigned keep)
{
    r->v = *v;
    r->v.kind = dup_or_null(a, v->kind);
    r->v.ns = dup_or_null(a, v->ns);
    r->v.name = dup_or_null(a, v->name);
    r->v.reason = dup_or_null(a, v->reason);
    r->v.message = dup_or_null(a, v->message);
    const char **w = kg_arena_alloc(a, (v->nwarnings + 1) * sizeof *w);
    for (size_t i = 0; i < v->nwarnings; i++)
        w[i] = kg_arena_strdup(a, v->warnings[i]);
    r->v.warnings = w;
    r->v.admitted = NULL;
    r->patch = NULL;
    if (!v->allowed || !v->admitted || !(keep & (KG_CHECK_KEEP_PATCH | KG_CHECK_KEEP_OBJECT)))
        return;
    kg_json *stripped = kg_check_strip_server_fields(a, v->admitted);
    if ((keep & KG_CHECK_KEEP_PATCH) && r->submitted)
        r->patch = kg_patch_json_diff(a, r->submitted, stripped);
    if (keep & KG_CHECK_KEEP_OBJECT)
        r->v.admitted = stripped;
}

static const char *where(kg_arena *a, const kg_check_doc *d)
{
    if (d->item)
        return kg_arena_sprintf(a, "%s:%d (doc %d, item %d)", d->file, d->line, d->document, d->item);
    return kg_arena_sprintf(a, "%s:%d (doc %d)", d->file, d->line, d->document);
}

static const char *object_label(kg_arena *a, const kg_check_result *r)
{
    const char *kind = r->v.kind ? r->v.kind : "<unknown kind>";
    const char *name = r->v.name && r->v.name[0] ? r->v.name : "<no name>";
    if (r->v.ns && r->v.ns[0])
        return kg_arena_sprintf(a, "%s/%s (%s)", kind, name, r->v.ns);
    return kg_arena_sprintf(a, "%s/%s", kind, name);
}

void kg_check_report_text(FILE *f, kg_arena *a, const kg_check_result *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const kg_check_result *x = &r[i];
        const char *at = where(a, x->doc);
        if (x->v.input_error)
            fprintf(f, "%s: %s error: %s\n", at, object_label(a, x), x->v.message);
        else if (x->v.allowed)
            fprintf(f, "%s: %s admitted\n", at, object_label(a, x));
        else
            fprintf(f, "%s: %s denied: %s\n", at, object_label(a, x), x->v.message);
        for (size_t k = 0; k < x->v.nwarnings; k++)
            fprintf(f, "  warning: %s\n", x->v.warnings[k]);
    }
    kg_check_summary s = kg_check_summarize(r, n);
    fprintf(f, "%zu object%s: %zu admitted, %zu denied, %zu error%s\n", s.total, s.total == 1 ? "" : "s", s.admitted,
            s.denied, s.errors, s.errors == 1 ? "" : "s");
}

static kg_json *str_or_null(kg_arena *a, const char *s)
{
    return s ? kg_json_new_str(a, s) : kg_json_new_null(a);
}

/* Write v pretty-printed, every line after the first indented by ind spaces (JSON strings hold no raw newline). */
static void write_indented(FILE *f, kg_buf *b, const kg_json *v, int ind)
{
    kg_buf_reset(b);
    kg_json_write(b, v, KG_JSON_WRITE_PRETTY | KG_JSON_WRITE_NO_ESCAPE_HTML);
    const char *p = b->data, *end = b->data + b->len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
        fwrite(p, 1, n, f);
        if (nl)
            fprintf(f, "%*s", ind, "");
        p += n;
    }
}

/* Streamed one result at a time (10,000 objects do not become one document in memory); the bytes are those of the
 * whole document written with KG_JSON_WRITE_PRETTY. */
void kg_check_report_json(FILE *f, kg_arena *a, const kg_check_result *r, size_t n)
{
    kg_buf b = KG_BUF_INIT;
    fputs("{\n    \"results\": [", f);
    for (size_t i = 0; i < n; i++) {
        const kg_check_result *x = &r[i];
        kg_json *o = kg_json_new_object(a);
        kg_json_set(a, o, "file", kg_json_new_str(a, x->doc->file));
        kg_json_set(a, o, "document", kg_json_new_int(a, x->doc->document));
        if (x->doc->item)
            kg_json_set(a, o, "item", kg_json_new_int(a, x->doc->item));
        kg_json_set(a, o, "line", kg_json_new_int(a, x->doc->line));
        kg_json_set(a, o, "kind", str_or_null(a, x->v.kind));
        kg_json_set(a, o, "namespace", kg_json_new_str(a, x->v.ns ? x->v.ns : ""));
        kg_json_set(a, o, "name", kg_json_new_str(a, x->v.name ? x->v.name : ""));
        kg_json_set(a, o, "allowed", kg_json_new_bool(a, x->v.allowed));
        kg_json_set(a, o, "code", kg_json_new_int(a, x->v.code));
        kg_json_set(a, o, "reason", kg_json_new_str(a, x->v.reason ? x->v.reason : ""));
        kg_json_set(a, o, "message", kg_json_new_str(a, x->v.message ? x->v.message : ""));
        kg_json *w = kg_json_new_array(a);
        for (size_t k = 0; k < x->v.nwarnings; k++)
            kg_json_array_append(a, w, kg_json_new_str(a, x->v.warnings[k]));
        kg_json_set(a, o, "warnings", w);
        kg_json_set(a, o, "patch", x->patch ? x->patch : kg_json_new_null(a));
        fputs(i ? ",\n        " : "\n        ", f);
        write_indented(f, &b, o, 8);
    }
    fputs(n ? "\n    ],\n    \"summary\": " : "],\n    \"summary\": ", f);
    kg_check_summary s = kg_check_summarize(r, n);
    kg_json *sum = kg_json_new_object(a);
    kg_json_set(a, sum, "total", kg_json_new_int(a, (int64_t)s.total));
    kg_json_set(a, sum, "admitted", kg_json_new_int(a, (int64_t)s.admitted));
    kg_json_set(a, sum, "denied", kg_json_new_int(a, (int64_t)s.denied));
    kg_json_set(a, sum, "errors", kg_json_new_int(a, (int64_t)s.errors));
    write_indented(f, &b, sum, 4);
    fputs("\n}\n", f);
    kg_buf_free(&b);
}

void kg_check_report_yaml(FILE *f, kg_arena *a, const kg_check_result *r, size_t n)
{
    kg_buf b = KG_BUF_INIT;
    bool first = true;
    for (size_t i = 0; i < n; i++) {
        if (!r[i].v.allowed || !r[i].v.admitted)
            continue;
        kg_buf_reset(&b);
        if (!first)
            kg_buf_puts(&b, "---\n");
        first = false;
        kg_yaml_write(&b, r[i].v.admitted);
        fwrite(b.data, 1, b.len, f);
    }
    kg_buf_free(&b);
}
