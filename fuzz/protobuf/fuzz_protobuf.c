/* Fuzzing the Kubernetes protobuf decoder. Inputs starting with the "k8s\0" magic are decoded as whole bodies;
 * any other input is taken as <type index byte><raw object message> and wrapped in a runtime.Unknown envelope for
 * that registered kind, so every schema table is reached without the fuzzer having to learn the envelope.
 * Invariants: no crash / leak / UB, errors carry a message, and an accepted document serializes to JSON that
 * kgate's own parser reads back to an equal tree with apiVersion and kind first. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/protobuf.h"
#include "api/protobuf_internal.h"
#include "base/buf.h"

static void put_varint(kg_buf *b, uint64_t v)
{
    do {
        uint8_t c = v & 0x7f;
        v >>= 7;
        if (v)
            c |= 0x80;
        kg_buf_append(b, &c, 1);
    } while (v);
}

static void put_bytes(kg_buf *b, uint8_t tag, const void *p, size_t n)
{
    kg_buf_append(b, &tag, 1);
    put_varint(b, n);
    kg_buf_append(b, p, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kg_buf body = KG_BUF_INIT;
    if (size >= 4 && !memcmp(data, "k8s\0", 4)) {
        kg_buf_append(&body, data, size);
    } else if (size >= 1) {
        const kg_pb_type *t = &kg_api_pb_types[data[0] % kg_api_pb_ntypes];
        const char *api = t->api_version ? t->api_version : "v1";
        kg_buf tm = KG_BUF_INIT;
        put_bytes(&tm, 0x0a, api, strlen(api));
        put_bytes(&tm, 0x12, t->kind, strlen(t->kind));
        kg_buf_append(&body, "k8s\0", 4);
        put_bytes(&body, 0x0a, tm.data, tm.len);
        put_bytes(&body, 0x12, data + 1, size - 1);
        kg_buf_free(&tm);
    } else {
        return 0;
    }
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_error err;
    /* exact-size heap copy so that any over-read is caught */
    uint8_t *copy = malloc(body.len ? body.len : 1);
    memcpy(copy, body.data ? body.data : "", body.len);
    kg_json *v = kg_protobuf_decode(&a, copy, body.len, &err);
    free(copy);
    if (!v) {
        if (err.code == KG_OK || !err.msg[0])
            abort();
    } else {
        if (v->type != KG_JSON_OBJECT || v->len < 2 || strcmp(v->u.members[0].key, "apiVersion") ||
            strcmp(v->u.members[1].key, "kind"))
            abort();
        size_t n;
        char *text = kg_json_to_string(&a, v, 0, &n);
        kg_json *back = kg_json_parse(&a, text, n, &err);
        if (!back || !kg_json_equal(v, back))
            abort();
    }
    kg_arena_free(&a);
    kg_buf_free(&body);
    return 0;
}
