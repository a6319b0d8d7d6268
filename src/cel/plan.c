/* Planning: the last compile step, after checking and call preparation. It may turn the checked tree into a form
 * the evaluator runs faster (p->plan); today the evaluator walks the tree itself and there is nothing to plan. */
#include "cel/cel_internal.h"

bool cel_plan(cel_program *p, const char *src, cel_error *err)
{
    (void)src;
    (void)err;
    p->plan = NULL;
    return true;
}
