/* Built-in controllers of kgate serve. Today: the namespace controller (deletes a terminating namespace's
 * contents, then the namespace). They run on their own threads and act on the store directly. */
#ifndef KG_CONTROLLERS_H
#define KG_CONTROLLERS_H

#include "base/error.h"

struct kg_apiserver;
typedef struct kg_controllers kg_controllers;

kg_controllers *kg_controllers_start(struct kg_apiserver *s, kg_error *err);
void kg_controllers_stop(kg_controllers *c);

#endif
