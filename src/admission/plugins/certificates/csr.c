/* ParseCSR (see csr.h). */
#include "admission/plugins/certificates/csr.h"

#include <string.h>

#include "base/base64.h"

#define MASTERS "system:masters"
#define MALFORMED "x509: malformed certificate request"

/* Decode base64 (whitespace skipped, '=' padding accepted); returns length or -1. out has room for n + 1 bytes. */
static long b64_decode(const char *s, size_t n, unsigned char *out)
{
    size_t len = 0;
    if (!kg_base64_decode_to(s, n, KG_BASE64_SKIP_SPACE | KG_BASE64_PAD_OPTIONAL, out, &len, NULL))
        return -1;
    return (long)len;
}

typedef struct der {
    const unsigned char *p;
    size_t n;
} der;

/* Read one TLV from d: tag, contents; advances d. */
static bool der_next(der *d, unsigned char *tag, der *val)
{
    if (d->n < 2)
        return false;
    *tag = d->p[0];
    size_t len = d->p[1], hdr = 2;
    if (len & 0x80) {
        size_t nb = len & 0x7f;
        if (nb == 0 || nb > 4 || d->n < 2 + nb)
            return false;
        len = 0;
        for (size_t i = 0; i < nb; i++)
            len = (len << 8) | d->p[2 + i];
        hdr += nb;
    }
    if (len > d->n - hdr)
        return false;
    val->p = d->p + hdr;
    val->n = len;
    d->p += hdr + len;
    d->n -= hdr + len;
    return true;
}

/* Parse the CSR DER: organizations equal to system:masters, the common name. */
static bool scan_subject(kg_arena *ar, const unsigned char *p, size_t n, kg_admission_csr_subject *out)
{
    static const unsigned char org_oid[] = {0x55, 0x04, 0x0a}; /* 2.5.4.10 */
    static const unsigned char cn_oid[] = {0x55, 0x04, 0x03};  /* 2.5.4.3 */
    der top = {p, n}, csr, info, ver, subj;
    unsigned char tag;
    if (!der_next(&top, &tag, &csr) || tag != 0x30)
        return false;
    if (!der_next(&csr, &tag, &info) || tag != 0x30)
        return false;
    if (!der_next(&info, &tag, &ver) || tag != 0x02)
        return false;
    if (!der_next(&info, &tag, &subj) || tag != 0x30)
        return false;
    while (subj.n) {
        der rdn, atv;
        if (!der_next(&subj, &tag, &rdn) || tag != 0x31)
            return false;
        while (rdn.n) {
            if (!der_next(&rdn, &tag, &atv) || tag != 0x30)
                return false;
            der oid, val;
            unsigned char vtag;
            if (!der_next(&atv, &tag, &oid) || tag != 0x06 || !der_next(&atv, &vtag, &val))
                return false;
            if (oid.n == sizeof org_oid && memcmp(oid.p, org_oid, sizeof org_oid) == 0 && val.n == strlen(MASTERS) &&
                memcmp(val.p, MASTERS, val.n) == 0)
                out->masters = true;
            if (oid.n == sizeof cn_oid && memcmp(oid.p, cn_oid, sizeof cn_oid) == 0)
                out->common_name = kg_arena_strndup(ar, (const char *)val.p, val.n);
        }
    }
    return true;
}

const char *kg_admission_csr_parse(kg_arena *ar, const char *req_b64, size_t n, kg_admission_csr_subject *out)
{
    out->common_name = "";
    out->masters = false;
    unsigned char *pem = kg_arena_alloc(ar, n + 1);
    long plen = b64_decode(req_b64, n, pem);
    if (plen < 0)
        return "PEM block type must be CERTIFICATE REQUEST";
    pem[plen] = 0;
    /* pem.Decode: the first block; its type must be CERTIFICATE REQUEST */
    const char *begin = strstr((const char *)pem, "-----BEGIN ");
    if (!begin)
        return "PEM block type must be CERTIFICATE REQUEST";
    const char *type = begin + 11, *type_end = strstr(type, "-----");
    if (!type_end)
        return "PEM block type must be CERTIFICATE REQUEST";
    if ((size_t)(type_end - type) != 19 || memcmp(type, "CERTIFICATE REQUEST", 19) != 0)
        return "PEM block type must be CERTIFICATE REQUEST";
    const char *body = type_end + 5, *end = strstr(body, "-----END CERTIFICATE REQUEST-----");
    if (!end)
        return "PEM block type must be CERTIFICATE REQUEST";
    unsigned char *bin = kg_arena_alloc(ar, (size_t)(end - body) + 1);
    long blen = b64_decode(body, (size_t)(end - body), bin);
    if (blen < 0)
        return "PEM block type must be CERTIFICATE REQUEST";
    if (!scan_subject(ar, bin, (size_t)blen, out))
        return MALFORMED;
    return NULL;
}
