/* What upstream's v1 -> internal conversion does to a request body beyond renaming, applied by the write pipeline
 * right after the typed decode (before admission, defaulting and validation). */
#ifndef KG_API_CONVERT_H
#define KG_API_CONVERT_H

#include "api/resources.h"
#include "base/arena.h"
#include "json/json.h"

/* Secret: each stringData[k] overwrites data[k] (base64-encoded) and stringData is removed, so it is never stored
 * or returned and validation (the 1 MiB limit included) sees the merged data. Other kinds: nothing. */
void kg_api_convert_in(kg_arena *a, const kg_resource *r, kg_json *obj);

#endif
