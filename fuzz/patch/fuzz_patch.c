/* Patches never crash, leak or modify their inputs. Input: a document and a patch separated by the first NUL byte;
 * every patch format is applied to the pair. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "meta/patch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *sep = memchr(data, 0, size);
    if (!sep)
        return 0;
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_error err;
    kg_json *doc = kg_json_parse(&a, (const char *)data, (size_t)(sep - data), &err);
    kg_json *patch = kg_json_parse(&a, (const char *)sep + 1, size - (size_t)(sep - data) - 1, &err);
    if (doc && patch) {
        kg_json *doc_copy = kg_json_clone(&a, doc), *patch_copy = kg_json_clone(&a, patch);
        kg_json *out;
        kg_patch_json(&a, doc, patch, &out, &err);
        kg_patch_merge(&a, doc, patch, &out, &err);
        static const char *const kinds[] = {"Pod", "apps/Deployment", "Unknown"};
        for (int k = 0; k < 3; k++)
            if (kg_patch_strategic(&a, doc, patch, kg_patch_schema_builtin(), kinds[k], &out, &err))
                kg_json_to_string(&a, out, 0, NULL);
        if (!kg_json_equal(doc, doc_copy) || !kg_json_equal(patch, patch_copy))
            abort(); /* inputs must never be modified */
    }
    kg_arena_free(&a);
    return 0;
}
