#include "server/starttrace.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double ms(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void kg_start_trace(const char *name)
{
    static int enabled = -1; /* unknown until the first mark */
    static double first, last;
    if (enabled < 0) {
        const char *e = getenv("KGATE_TRACE_START");
        enabled = e && *e;
        first = last = ms(CLOCK_MONOTONIC);
    }
    if (!enabled)
        return;
    double now = ms(CLOCK_MONOTONIC);
    fprintf(stderr, "start: %-28s %7.2f ms  (at %7.2f ms, cpu %7.2f ms)\n", name, now - last, now - first,
            ms(CLOCK_PROCESS_CPUTIME_ID));
    last = now;
}
