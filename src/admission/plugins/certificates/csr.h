/* Certificate signing requests as the certificate plugins read them (k8s.io/api certificates ParseCSR): spec.request
 * is the base64 of a PEM "CERTIFICATE REQUEST" block; the subject is read with a small DER walker (only the
 * structure up to the subject is needed, signatures are not checked). */
#ifndef KG_ADMISSION_PLUGINS_CERT_CSR_H
#define KG_ADMISSION_PLUGINS_CERT_CSR_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"

typedef struct kg_admission_csr_subject {
    const char *common_name; /* the last CN, "" when none (in the arena) */
    bool masters;            /* some organization (O) is system:masters */
} kg_admission_csr_subject;

/* Parse req_b64 (n bytes). NULL on success with *out filled; else Go's error text ("PEM block type must be
 * CERTIFICATE REQUEST", "x509: malformed certificate request"). */
const char *kg_admission_csr_parse(kg_arena *ar, const char *req_b64, size_t n, kg_admission_csr_subject *out);

#endif
