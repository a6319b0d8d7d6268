/* The access review APIs: create-only virtual resources, never stored, answered from the server's authorizer
 * (k/k pkg/registry/authorization, pkg/registry/authentication/selfsubjectreview):
 *   authorization.k8s.io/v1 SelfSubjectAccessReview, SubjectAccessReview, LocalSubjectAccessReview (namespaced),
 *   SelfSubjectRulesReview; authentication.k8s.io/v1 SelfSubjectReview.
 * `kubectl auth can-i` (SSAR; --list: SSRR) and `kubectl auth whoami` (SelfSubjectReview) use them. Each answers
 * 201 with the request object and its status; malformed specs are 422 Invalid with upstream's texts. */
#ifndef KG_SERVER_REVIEWS_H
#define KG_SERVER_REVIEWS_H

#include <stdbool.h>

#include "server/apiserver.h"

/* True when the request is for one of the review resources (then it has been answered). */
bool kg_reviews_handle(kg_apiserver *s, kg_http_request *req, kg_http_response *resp);

/* A review-style request body (JSON or protobuf) as an object of kind in group/v1 (kind and apiVersion set,
 * metadata.creationTimestamp null), or NULL after answering 400. */
kg_json *kg_reviews_read_body(kg_http_request *req, kg_http_response *resp, const char *group, const char *kind);

#endif
