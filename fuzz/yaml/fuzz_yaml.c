/* YAML reader: never crashes, leaks or hangs; whatever it accepts serializes to JSON that reparses identically. */
#include <stdint.h>
#include <stdlib.h>

#include "yaml/yaml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_error err;
    kg_json *docs = kg_yaml_parse_all(&a, (const char *)data, size, &err);
    if (docs) {
        size_t n;
        char *out = kg_json_to_string(&a, docs, 0, &n);
        kg_json *back = kg_json_parse(&a, out, n, &err);
        if (!back || !kg_json_equal(docs, back))
            abort();
    }
    kg_yaml_or_json_parse(&a, (const char *)data, size, &err);
    kg_arena_free(&a);
    return 0;
}
