/* Content negotiation and read-freshness checks of resource requests, as upstream answers them:
 *  - an Accept header none of whose media ranges kgate can serve is 406 NotAcceptable (not a JSON 200);
 *  - a list asking for a resourceVersion newer than the store's (resourceVersionMatch NotOlderThan, or unset) is
 *    504 `Timeout: Too large resource version: <rv>, current: <current>` at once (upstream's etcd path; its watch
 *    cache first waits up to 3 s);
 *  - resourceVersionMatch without resourceVersion, with continue, or unknown is 422 as upstream's
 *    ValidateListOptions. */
#ifndef KG_SERVER_NEGOTIATE_H
#define KG_SERVER_NEGOTIATE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "meta/status.h"

/* NULL when accept (NULL or empty: anything) names a media type kgate serves; otherwise the 406 Status. watch: the
 * streaming form's list. */
kg_status *kg_negotiate_accept(kg_arena *a, const char *accept, bool watch);

/* The 504 for a list at rv when the store is at current (rv > current); NULL otherwise. */
kg_status *kg_negotiate_too_large_rv(kg_arena *a, int64_t rv, int64_t current);

/* ValidateListOptions for a list's resourceVersionMatch (422 on `ListOptions.meta.k8s.io ""`), NULL when valid.
 * rv, match, cont: the query parameters (NULL when absent). */
kg_status *kg_negotiate_list_options(kg_arena *a, const char *rv, const char *match, const char *cont);

#endif
