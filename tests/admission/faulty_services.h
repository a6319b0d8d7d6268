/* Fault injection for the admission tests: a wrapper around any kg_admission_services whose reads and writes can be
 * made to fail with a chosen code (KG_EIO, KG_ETIMEOUT, KG_ECONFLICT...), to drive plugins' error paths.
 *
 *   kg_admission_services inner = kg_admission_memcluster_services(m, NULL);
 *   kg_faulty_services *fs = kg_faulty_services_new(&inner);
 *   kg_admission_services svc = kg_faulty_services_get(fs);   // give svc to the chain / plugin
 *   kg_faulty_fail_reads(fs, "namespaces", 0, KG_EIO);         // cached namespace reads now fail
 *
 * Reads are get, list, view and view_list; writes are create and update. A failed call does not reach the inner
 * services. Everything else (ready, feature gates, clock, authorize, metrics) is passed through unchanged.
 * Thread-safe. */
#ifndef KG_TEST_ADMISSION_FAULTY_SERVICES_H
#define KG_TEST_ADMISSION_FAULTY_SERVICES_H

#include <stdbool.h>

#include "admission/services.h"
#include "base/error.h"

typedef struct kg_faulty_services kg_faulty_services;

/* Wrap inner (copied; its ctx must outlive the wrapper). */
kg_faulty_services *kg_faulty_services_new(const kg_admission_services *inner);
void kg_faulty_services_free(kg_faulty_services *f);
/* The wrapped services (ctx = f). */
kg_admission_services kg_faulty_services_get(kg_faulty_services *f);

/* The next n writes fail with code (0 = KG_EIO). */
void kg_faulty_fail_writes(kg_faulty_services *f, int n, kg_errcode code);
/* Reads of resource fail with code (KG_OK clears). live 1: only live reads (KG_ADMISSION_GET_LIVE); live 0: only
 * cached reads (get/list without the flag, view, view_list). */
void kg_faulty_fail_reads(kg_faulty_services *f, const char *resource, int live, kg_errcode code);
/* The nth read or write from now (1 = the next one) fails with code; the others pass. */
void kg_faulty_fail_nth(kg_faulty_services *f, int nth, kg_errcode code);
/* Every read and/or every write fails with code (KG_OK clears both). */
void kg_faulty_fail_all(kg_faulty_services *f, bool reads, bool writes, kg_errcode code);

#endif
