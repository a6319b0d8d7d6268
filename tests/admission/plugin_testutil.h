/* Helpers shared by the per-plugin admission tests: one-plugin chains, single phases, the reinvocation
 * (idempotence) check and JSON comparison. */
#ifndef KG_TEST_PLUGIN_TESTUTIL_H
#define KG_TEST_PLUGIN_TESTUTIL_H

#include "admission_testutil.h"

__attribute__((unused)) static kg_admission_chain *chain1(const kg_admission_plugin *p, const kg_json *cfg,
                                                          const kg_admission_services *svc)
{
    const kg_admission_plugin *ps[] = {p};
    const kg_json *cfgs[] = {cfg};
    kg_error e = {0};
    kg_admission_chain *c = kg_admission_chain_new_from(ps, 1, cfgs, svc, NULL, &e);
    if (!c)
        fail_msg("chain: %s", e.msg);
    return c;
}

/* Mutating phase once. */
__attribute__((unused)) static kg_status *admit1(const kg_admission_plugin *p, const kg_json *cfg,
                                                 const kg_admission_services *svc, kg_admission_attributes *at)
{
    kg_admission_chain *c = chain1(p, cfg, svc);
    kg_status *st = kg_admission_chain_admit(c, at);
    kg_admission_chain_free(c);
    return st;
}

__attribute__((unused)) static kg_status *validate1(const kg_admission_plugin *p, const kg_json *cfg,
                                                    const kg_admission_services *svc, kg_admission_attributes *at)
{
    kg_admission_chain *c = chain1(p, cfg, svc);
    kg_status *st = kg_admission_chain_validate(c, at);
    kg_admission_chain_free(c);
    return st;
}

/* Admit must succeed, and a second admit (webhook reinvocation) must leave the object as the first left it;
 * then the validating phase must accept the result. */
__attribute__((unused)) static void admit_idempotent(const kg_admission_plugin *p, const kg_json *cfg,
                                                     const kg_admission_services *svc, kg_admission_attributes *at)
{
    kg_status *st = admit1(p, cfg, svc, at);
    if (st)
        fail_msg("admit rejected: %s", st->message);
    kg_json *once = kg_json_clone(at->arena, at->object);
    st = admit1(p, cfg, svc, at);
    if (st)
        fail_msg("second admit rejected: %s", st->message);
    if (!kg_json_equal(once, at->object))
        fail_msg("not idempotent:\n%s\n%s", kg_json_to_string(at->arena, once, 0, NULL),
                 kg_json_to_string(at->arena, at->object, 0, NULL));
    if (p->validate) {
        st = validate1(p, cfg, svc, at);
        if (st)
            fail_msg("validate after admit rejected: %s", st->message);
    }
}

__attribute__((unused)) static void assert_json(kg_arena *a, const kg_json *got, const char *want)
{
    kg_json *w = tj(a, want);
    if (!kg_json_equal(got, w))
        fail_msg("got  %s\nwant %s", got ? kg_json_to_string(a, got, 0, NULL) : "(null)",
                 kg_json_to_string(a, w, 0, NULL));
}

#endif
