/* transitional: removed when rest.c stops including it (use the per-plugin headers below). */
#include "admission/plugins/eventratelimit.h"
#include "admission/plugins/limitranger.h"
#include "admission/plugins/serviceaccount.h"
