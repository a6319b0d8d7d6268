/* The server's implementation of the controllers' client (controllers/client.h): kgate serve's controllers read
 * and write the store directly, in-process, without HTTP or admission. */
#ifndef KG_SERVER_LOOPBACK_H
#define KG_SERVER_LOOPBACK_H

#include "controllers/client.h"

struct kg_apiserver;

/* The client over s (ctx = s; s must outlive every use, and its store, services and CA must be set up). */
kg_controller_client kg_apiserver_loopback_client(struct kg_apiserver *s);

#endif
