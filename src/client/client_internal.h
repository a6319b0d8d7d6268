/* The client's state shared by client.c (lifecycle, JSON helper) and transport.c (every libcurl call). */
#ifndef KG_CLIENT_CLIENT_INTERNAL_H
#define KG_CLIENT_CLIENT_INTERNAL_H

#include <pthread.h>

#include "client/client.h"

#define KG_CLIENT_IDLE_HANDLES                                                                                         \
    16 /* idle libcurl handles (each with its connection) kept per client: serve runs 8 workers */

struct kg_client {
    kg_arena arena;       /* the config copy */
    kg_client_config cfg; /* server without trailing '/', lengths filled, defaults applied */
    pthread_mutex_t mu;   /* guards idle */
    void *idle[KG_CLIENT_IDLE_HANDLES];
    size_t nidle;
};

/* transport.c: close the idle handles. */
void kg_client_transport_close(kg_client *c);

#endif
