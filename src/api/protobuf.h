/* Decoding Kubernetes protobuf request bodies (Content-Type: application/vnd.kubernetes.protobuf).
 *
 * client-go's typed clients (kubectl create namespace|configmap|secret|deployment|..., kubectl run, expose) send
 * objects as the 4-byte magic "k8s\0" followed by a runtime.Unknown envelope whose `raw` field holds the object's
 * own message (field numbers of the upstream generated.proto files). kg_protobuf_decode turns such a body into the
 * same kg_json DOM a JSON client would have sent, so the rest of the request path does not care about the wire
 * format. See docs/protobuf.md for the covered types and the mapping rules. */
#ifndef KG_API_PROTOBUF_H
#define KG_API_PROTOBUF_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/error.h"
#include "json/json.h"

#define KG_PROTOBUF_MEDIA_TYPE "application/vnd.kubernetes.protobuf"

/* Decode a complete protobuf body (magic + runtime.Unknown) into a JSON object (allocated in a) whose first members
 * are apiVersion and kind from the envelope. Returns NULL with err set (KG_EINVAL) for a bad magic, truncated or
 * malformed data, a wire type that does not match the schema, or an unknown apiVersion/kind (the message names the
 * kind). Unknown field numbers inside a known message are skipped, as Go's protobuf does. */
kg_json *kg_protobuf_decode(kg_arena *a, const void *body, size_t len, kg_error *err);

/* Whether kg_protobuf_decode knows the schema of api_version ("v1", "apps/v1", ...) + kind. */
bool kg_protobuf_supports(const char *api_version, const char *kind);

#endif
