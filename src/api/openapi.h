/* OpenAPI documents: /openapi/v2 (Swagger 2.0) and /openapi/v3 (root index + one OpenAPI 3.0 document per
 * group-version), generated from the resource registry and the type schemas. */
#ifndef KG_API_OPENAPI_H
#define KG_API_OPENAPI_H

#include "base/arena.h"
#include "json/json.h"

/* The document for a request path ("/openapi/v2", "/openapi/v3", "/openapi/v3/api/v1",
 * "/openapi/v3/apis/apps/v1"); NULL when the path names nothing. */
kg_json *kg_openapi_document(kg_arena *a, const char *path);

#endif
