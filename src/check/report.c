/* The outputs of `kgate check` (see report.h). */
#include "check/report.h"

#include <string.h>

#include "api/resources.h"
#include "check/explain.h"
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
        kg_check_steps_text(f, x->steps, x->nsteps, 2);
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

static kg_json *result_json(kg_arena *a, const kg_check_result *x)
{
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
    if (x->explained)
        kg_json_set(a, o, "explain", kg_check_steps_json(a, x->steps, x->nsteps));
    return o;
}

void kg_check_json_begin(FILE *f)
{
    fputs("{\n    \"results\": [", f);
}

void kg_check_json_result(FILE *f, kg_arena *a, const kg_check_result *r, bool first)
{
    kg_buf b = KG_BUF_INIT;
    fputs(first ? "\n        " : ",\n        ", f);
    write_indented(f, &b, result_json(a, r), 8);
    kg_buf_free(&b);
}

void kg_check_json_end(FILE *f, kg_arena *a, const kg_check_summary *s, bool any)
{
    kg_buf b = KG_BUF_INIT;
    fputs(any ? "\n    ],\n    \"summary\": " : "],\n    \"summary\": ", f);
    kg_json *sum = kg_json_new_object(a);
    kg_json_set(a, sum, "total", kg_json_new_int(a, (int64_t)s->total));
    kg_json_set(a, sum, "admitted", kg_json_new_int(a, (int64_t)s->admitted));
    kg_json_set(a, sum, "denied", kg_json_new_int(a, (int64_t)s->denied));
    kg_json_set(a, sum, "errors", kg_json_new_int(a, (int64_t)s->errors));
    write_indented(f, &b, sum, 4);
    fputs("\n}\n", f);
    kg_buf_free(&b);
}

/* Streamed one result at a time (10,000 objects do not become one document in memory); the bytes are those of the
 * whole document written with KG_JSON_WRITE_PRETTY. */
void kg_check_report_json(FILE *f, kg_arena *a, const kg_check_result *r, size_t n)
{
    kg_check_json_begin(f);
    for (size_t i = 0; i < n; i++)
        kg_check_json_result(f, a, &r[i], i == 0);
    kg_check_summary s = kg_check_summarize(r, n);
    kg_check_json_end(f, a, &s, n > 0);
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

/* ---- junit ---- */

/* XML character data / attribute value: the five entities, other control characters (not allowed in XML 1.0)
 * as U+FFFD. */
static void xml_escape(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        case '\n': fputs("&#10;", f); break;
        case '\t': fputs("&#9;", f); break;
        case '\r': fputs("&#13;", f); break;
        default:
            if (c < 0x20)
                fputs("\xef\xbf\xbd", f);
            else
                fputc(c, f);
        }
    }
}

const char *kg_check_result_rule(kg_arena *a, const kg_check_result *r)
{
    if (r->rule)
        return r->rule;
    return kg_arena_sprintf(a, "apiserver/%s", r->v.reason && r->v.reason[0] ? r->v.reason : "Unknown");
}

static const char *testcase_name(kg_arena *a, const kg_check_result *r)
{
    const char *kind = r->v.kind ? r->v.kind : "<unknown kind>";
    const char *name = r->v.name && r->v.name[0] ? r->v.name : "<no name>";
    if (r->v.ns && r->v.ns[0])
        return kg_arena_sprintf(a, "%s %s/%s", kind, r->v.ns, name);
    return kg_arena_sprintf(a, "%s %s", kind, name);
}

void kg_check_report_junit(FILE *f, kg_arena *a, const kg_check_result *r, size_t n)
{
    kg_check_summary all = kg_check_summarize(r, n);
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"kgate check\" tests=\"%zu\" "
            "failures=\"%zu\" errors=\"%zu\">\n",
            all.total, all.denied, all.errors);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && !strcmp(r[j].doc->file, r[i].doc->file))
            j++;
        kg_check_summary s = kg_check_summarize(&r[i], j - i);
        fputs("  <testsuite name=\"", f);
        xml_escape(f, r[i].doc->file);
        fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n", s.total, s.denied, s.errors);
        for (size_t k = i; k < j; k++) {
            const kg_check_result *x = &r[k];
            fputs("    <testcase classname=\"", f);
            xml_escape(f, x->doc->file);
            fputs("\" name=\"", f);
            xml_escape(f, testcase_name(a, x));
            fputs("\">\n", f);
            if (x->v.input_error) {
                fputs("      <error type=\"input\" message=\"", f);
                xml_escape(f, x->v.message);
                fputs("\">", f);
                xml_escape(f, kg_check_doc_where(a, x->doc));
                fputs("</error>\n", f);
            } else if (!x->v.allowed) {
                fprintf(f, "      <failure type=\"%d ", x->v.code);
                xml_escape(f, x->v.reason);
                fputs("\" message=\"", f);
                xml_escape(f, x->v.message);
                fputs("\">", f);
                xml_escape(f, kg_arena_sprintf(a, "%s: denied by %s (code %d, reason %s): %s",
                                               kg_check_doc_where(a, x->doc), kg_check_result_rule(a, x), x->v.code,
                                               x->v.reason, x->v.message));
                fputs("</failure>\n", f);
            }
            if (x->v.nwarnings) {
                fputs("      <system-out>", f);
                for (size_t w = 0; w < x->v.nwarnings; w++) {
                    xml_escape(f, kg_arena_sprintf(a, "warning: %s", x->v.warnings[w]));
                    fputs("&#10;", f);
                }
                fputs("</system-out>\n", f);
            }
            fputs("    </testcase>\n", f);
        }
        fputs("  </testsuite>\n", f);
        i = j;
    }
    fputs("</testsuites>\n", f);
}

/* ---- sarif ---- */

/* A relative URI reference for a path as given (RFC 3986: unreserved and "/" kept, the rest percent-encoded);
 * "stdin" for standard input. */
static const char *file_uri(kg_arena *a, const char *path)
{
    if (!strcmp(path, "<stdin>"))
        return "stdin";
    kg_buf b = KG_BUF_INIT;
    if (path[0] == '/')
        kg_buf_puts(&b, "file://");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("-._~/", *p))
            kg_buf_putc(&b, (char)*p);
        else
            kg_buf_printf(&b, "%%%02X", *p);
    }
    const char *u = kg_arena_strdup(a, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return u;
}

static size_t rule_index(kg_arena *a, kg_json *rules, const char *id, const char *desc)
{
    for (uint32_t i = 0; i < rules->len; i++)
        if (!strcmp(kg_json_get_str(kg_json_at(rules, i), "id"), id))
            return i;
    kg_json *r = kg_json_new_object(a);
    kg_json_set(a, r, "id", kg_json_new_str(a, id));
    kg_json *sd = kg_json_new_object(a);
    kg_json_set(a, sd, "text", kg_json_new_str(a, desc));
    kg_json_set(a, r, "shortDescription", sd);
    kg_json_array_append(a, rules, r);
    return rules->len - 1;
}

static void sarif_result(kg_arena *a, kg_json *results, kg_json *rules, const kg_check_result *x, const char *rule,
                         const char *desc, const char *level, const char *text)
{
    kg_json *o = kg_json_new_object(a);
    size_t ri = rule_index(a, rules, rule, desc);
    kg_json_set(a, o, "ruleId", kg_json_new_str(a, rule));
    kg_json_set(a, o, "ruleIndex", kg_json_new_int(a, (int64_t)ri));
    kg_json_set(a, o, "level", kg_json_new_str(a, level));
    kg_json *m = kg_json_new_object(a);
    kg_json_set(a, m, "text", kg_json_new_str(a, text));
    kg_json_set(a, o, "message", m);
    kg_json *loc = kg_json_new_object(a), *phys = kg_json_new_object(a), *art = kg_json_new_object(a),
            *reg = kg_json_new_object(a);
    kg_json_set(a, art, "uri", kg_json_new_str(a, file_uri(a, x->doc->file)));
    kg_json_set(a, reg, "startLine", kg_json_new_int(a, x->doc->line > 0 ? x->doc->line : 1));
    kg_json_set(a, phys, "artifactLocation", art);
    kg_json_set(a, phys, "region", reg);
    kg_json_set(a, loc, "physicalLocation", phys);
    if (x->v.kind) {
        kg_json *ll = kg_json_new_object(a);
        kg_json_set(a, ll, "fullyQualifiedName", kg_json_new_str(a, testcase_name(a, x)));
        kg_json_set(a, ll, "kind", kg_json_new_str(a, "object"));
        kg_json *lls = kg_json_new_array(a);
        kg_json_array_append(a, lls, ll);
        kg_json_set(a, loc, "logicalLocations", lls);
    }
    kg_json *locs = kg_json_new_array(a);
    kg_json_array_append(a, locs, loc);
    kg_json_set(a, o, "locations", locs);
    kg_json_array_append(a, results, o);
}

void kg_check_report_sarif(FILE *f, kg_arena *a, const kg_check_result *r, size_t n)
{
    kg_json *rules = kg_json_new_array(a), *results = kg_json_new_array(a);
    for (size_t i = 0; i < n; i++) {
        const kg_check_result *x = &r[i];
        const char *obj = testcase_name(a, x);
        if (x->v.input_error)
            sarif_result(a, results, rules, x, "input-error", "The input is not an object kgate can check", "error",
                         kg_arena_sprintf(a, "%s: %s", obj, x->v.message));
        else if (!x->v.allowed) {
            const char *rule = kg_check_result_rule(a, x);
            sarif_result(a, results, rules, x, rule, kg_arena_sprintf(a, "Admission denied by %s", rule), "error",
                         kg_arena_sprintf(a, "%s denied: %s", obj, x->v.message));
        }
        for (size_t k = 0; k < x->v.nwarnings; k++)
            sarif_result(a, results, rules, x, "warning", "A warning the API server returns with the response",
                         "warning", kg_arena_sprintf(a, "%s: %s", obj, x->v.warnings[k]));
    }
    kg_json *driver = kg_json_new_object(a);
    kg_json_set(a, driver, "name", kg_json_new_str(a, "kgate"));
    kg_json_set(a, driver, "rules", rules);
    kg_json *tool = kg_json_new_object(a);
    kg_json_set(a, tool, "driver", driver);
    kg_json *run = kg_json_new_object(a);
    kg_json_set(a, run, "tool", tool);
    kg_json_set(a, run, "results", results);
    kg_json *runs = kg_json_new_array(a);
    kg_json_array_append(a, runs, run);
    kg_json *doc = kg_json_new_object(a);
    kg_json_set(a, doc, "$schema", kg_json_new_str(a, "https://json.schemastore.org/sarif-2.1.0.json"));
    kg_json_set(a, doc, "version", kg_json_new_str(a, "2.1.0"));
    kg_json_set(a, doc, "runs", runs);
    kg_buf b = KG_BUF_INIT;
    kg_json_write(&b, doc, KG_JSON_WRITE_PRETTY | KG_JSON_WRITE_NO_ESCAPE_HTML);
    fwrite(b.data, 1, b.len, f);
    fputc('\n', f);
    kg_buf_free(&b);
}
