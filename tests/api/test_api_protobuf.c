/* Protobuf request bodies (application/vnd.kubernetes.protobuf) decoded into the JSON DOM: real kubectl bodies
 * compared with kubectl's own JSON for the same object, hand-encoded messages for the special types (IntOrString,
 * Quantity, Time, MicroTime, bytes, RawExtension, inlined structs, maps, packed fields) and malformed input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/protobuf.h"
#include "api/protobuf_internal.h"
#include "base/buf.h"

static kg_arena A;
static int setup(void **s)
{
    (void)s;
    kg_arena_init(&A, 0);
    return 0;
}
static int teardown(void **s)
{
    (void)s;
    kg_arena_free(&A);
    return 0;
}

static kg_json *J(const char *s)
{
    kg_error err;
    kg_json *v = kg_json_parse(&A, s, strlen(s), &err);
    if (!v)
        fail_msg("bad JSON in test: %s: %s", err.msg, s);
    return v;
}

static void assert_json_eq(const kg_json *got, const char *want)
{
    if (!kg_json_equal(got, J(want)))
        fail_msg("got  %s\nwant %s", kg_json_to_string(&A, got, 0, NULL), want);
}

/* ---- a small protobuf encoder ---- */

static void pv(kg_buf *b, uint64_t v)
{
    do {
        uint8_t c = v & 0x7f;
        v >>= 7;
        if (v)
            c |= 0x80;
        kg_buf_append(b, &c, 1);
    } while (v);
}
static void tag(kg_buf *b, uint32_t num, unsigned wt)
{
    pv(b, (uint64_t)num << 3 | wt);
}
static void u(kg_buf *b, uint32_t num, uint64_t v)
{
    tag(b, num, 0);
    pv(b, v);
}
static void bytes(kg_buf *b, uint32_t num, const void *p, size_t n)
{
    tag(b, num, 2);
    pv(b, n);
    kg_buf_append(b, p, n);
}
static void str(kg_buf *b, uint32_t num, const char *s)
{
    bytes(b, num, s, strlen(s));
}
/* embed sub as a length-delimited field and free it */
static void msg(kg_buf *b, uint32_t num, kg_buf *sub)
{
    bytes(b, num, sub->data ? sub->data : "", sub->len);
    kg_buf_free(sub);
}
static void map_ss(kg_buf *b, uint32_t num, const char *k, const char *v)
{
    kg_buf e = KG_BUF_INIT;
    str(&e, 1, k);
    str(&e, 2, v);
    msg(b, num, &e);
}
static void map_sq(kg_buf *b, uint32_t num, const char *k, const char *q)
{
    kg_buf e = KG_BUF_INIT, qb = KG_BUF_INIT;
    str(&e, 1, k);
    str(&qb, 1, q);
    msg(&e, 2, &qb);
    msg(b, num, &e);
}
/* wrap raw in the k8s\0 + runtime.Unknown envelope; the result is in out (caller frees) */
static void envelope(kg_buf *out, const char *api, const char *kind, kg_buf *raw)
{
    kg_buf tm = KG_BUF_INIT;
    kg_buf_append(out, "k8s\0", 4);
    str(&tm, 1, api);
    str(&tm, 2, kind);
    msg(out, 1, &tm);
    msg(out, 2, raw);
    str(out, 3, "");
    str(out, 4, "");
}
static kg_json *decode_buf(kg_buf *b, kg_error *err)
{
    kg_json *v = kg_protobuf_decode(&A, b->data, b->len, err);
    kg_buf_free(b);
    return v;
}
/* ObjectMeta the way Go marshals it: every value field present, zero or not */
static void meta(kg_buf *b, const char *name, const char *ns)
{
    kg_buf m = KG_BUF_INIT, ts = KG_BUF_INIT;
    str(&m, 1, name);
    str(&m, 2, "");
    str(&m, 3, ns);
    str(&m, 4, "");
    str(&m, 5, "");
    str(&m, 6, "");
    u(&m, 7, 0);
    msg(&m, 8, &ts);
    msg(b, 1, &m);
}

/* Request bodies captured from kubectl v1.33 (`kubectl create ...` against a recording HTTP server) and the JSON
 * that `kubectl create ... --dry-run=client -o json` prints for the same command (Go's json.Marshal of the same
 * typed object). "status" is dropped from the expected JSON where the decoder does not decode status. */
static const unsigned char kubectl_namespace_pb[] = {
    0x6b, 0x38, 0x73, 0x00, 0x0a, 0x0f, 0x0a, 0x02, 0x76, 0x31, 0x12, 0x09, 0x4e, 0x61, 0x6d, 0x65, 0x73, 0x70, 0x61,
    0x63, 0x65, 0x12, 0x1c, 0x0a, 0x14, 0x0a, 0x04, 0x64, 0x65, 0x6d, 0x6f, 0x12, 0x00, 0x1a, 0x00, 0x22, 0x00, 0x2a,
    0x00, 0x32, 0x00, 0x38, 0x00, 0x42, 0x00, 0x12, 0x00, 0x1a, 0x02, 0x0a, 0x00, 0x1a, 0x00, 0x22, 0x00,
};
static const char kubectl_namespace_json[] =
    "{\"kind\":\"Namespace\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"demo\",\"creationTimestamp\":null},\"spec\""
    ":{}}";
static const unsigned char kubectl_configmap_pb[] = {
    0x6b, 0x38, 0x73, 0x00, 0x0a, 0x0f, 0x0a, 0x02, 0x76, 0x31, 0x12, 0x09, 0x43, 0x6f, 0x6e, 0x66, 0x69, 0x67,
    0x4d, 0x61, 0x70, 0x12, 0x2a, 0x0a, 0x16, 0x0a, 0x03, 0x63, 0x6d, 0x31, 0x12, 0x00, 0x1a, 0x03, 0x6e, 0x73,
    0x31, 0x22, 0x00, 0x2a, 0x00, 0x32, 0x00, 0x38, 0x00, 0x42, 0x00, 0x12, 0x06, 0x0a, 0x01, 0x61, 0x12, 0x01,
    0x31, 0x12, 0x08, 0x0a, 0x01, 0x62, 0x12, 0x03, 0x74, 0x77, 0x6f, 0x1a, 0x00, 0x22, 0x00,
};
static const char kubectl_configmap_json[] = "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":"
                                             "\"cm1\",\"namespace\":\"ns1\",\"creationTimest"
                                             "amp\":null},\"data\":{\"a\":\"1\",\"b\":\"two\"}}";
static const unsigned char kubectl_secret_pb[] = {
    0x6b, 0x38, 0x73, 0x00, 0x0a, 0x0c, 0x0a, 0x02, 0x76, 0x31, 0x12, 0x06, 0x53, 0x65, 0x63, 0x72,
    0x65, 0x74, 0x12, 0x28, 0x0a, 0x15, 0x0a, 0x02, 0x73, 0x31, 0x12, 0x00, 0x1a, 0x03, 0x6e, 0x73,
    0x31, 0x22, 0x00, 0x2a, 0x00, 0x32, 0x00, 0x38, 0x00, 0x42, 0x00, 0x12, 0x0d, 0x0a, 0x02, 0x70,
    0x77, 0x12, 0x07, 0x68, 0x75, 0x6e, 0x74, 0x65, 0x72, 0x32, 0x1a, 0x00, 0x1a, 0x00, 0x22, 0x00,
};
static const char kubectl_secret_json[] = "{\"kind\":\"Secret\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"s1\","
                                          "\"namespace\":\"ns1\",\"creationTimestamp\""
                                          ":null},\"data\":{\"pw\":\"aHVudGVyMg==\"}}";
static const unsigned char kubectl_serviceaccount_pb[] = {
    0x6b, 0x38, 0x73, 0x00, 0x0a, 0x14, 0x0a, 0x02, 0x76, 0x31, 0x12, 0x0e, 0x53, 0x65, 0x72, 0x76, 0x69, 0x63, 0x65,
    0x41, 0x63, 0x63, 0x6f, 0x75, 0x6e, 0x74, 0x12, 0x18, 0x0a, 0x16, 0x0a, 0x03, 0x73, 0x61, 0x31, 0x12, 0x00, 0x1a,
    0x03, 0x6e, 0x73, 0x31, 0x22, 0x00, 0x2a, 0x00, 0x32, 0x00, 0x38, 0x00, 0x42, 0x00, 0x1a, 0x00, 0x22, 0x00,
};
static const char kubectl_serviceaccount_json[] = "{\"kind\":\"ServiceAccount\",\"apiVersion\":\"v1\",\"metadata\":{"
                                                  "\"name\":\"sa1\",\"namespace\":\"ns1\",\"creationT"
                                                  "imestamp\":null}}";
static const unsigned char kubectl_service_pb[] = {
    0x6b, 0x38, 0x73, 0x00, 0x0a, 0x0d, 0x0a, 0x02, 0x76, 0x31, 0x12, 0x07, 0x53, 0x65, 0x72, 0x76, 0x69,
    0x63, 0x65, 0x12, 0x6f, 0x0a, 0x24, 0x0a, 0x04, 0x73, 0x76, 0x63, 0x31, 0x12, 0x00, 0x1a, 0x03, 0x6e,
    0x73, 0x31, 0x22, 0x00, 0x2a, 0x00, 0x32, 0x00, 0x38, 0x00, 0x42, 0x00, 0x5a, 0x0b, 0x0a, 0x03, 0x61,
    0x70, 0x70, 0x12, 0x04, 0x73, 0x76, 0x63, 0x31, 0x12, 0x43, 0x0a, 0x1b, 0x0a, 0x07, 0x38, 0x30, 0x2d,
    0x38, 0x30, 0x38, 0x30, 0x12, 0x03, 0x54, 0x43, 0x50, 0x18, 0x50, 0x22, 0x07, 0x08, 0x00, 0x10, 0x90,
    0x3f, 0x1a, 0x00, 0x28, 0x00, 0x12, 0x0b, 0x0a, 0x03, 0x61, 0x70, 0x70, 0x12, 0x04, 0x73, 0x76, 0x63,
    0x31, 0x1a, 0x00, 0x22, 0x09, 0x43, 0x6c, 0x75, 0x73, 0x74, 0x65, 0x72, 0x49, 0x50, 0x3a, 0x00, 0x42,
    0x00, 0x52, 0x00, 0x5a, 0x00, 0x60, 0x00, 0x68, 0x00, 0x1a, 0x02, 0x0a, 0x00, 0x1a, 0x00, 0x22, 0x00,
};
static const char kubectl_service_json[] =
    "{\"kind\":\"Service\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"svc1\",\"namespace\":\"ns1\","
    "\"creationTimesta"
    "mp\":null,\"labels\":{\"app\":\"svc1\"}},\"spec\":{\"ports\":[{\"name\":\"80-8080\",\"protocol\":\"TCP\",\"port\":"
    "80,"
    "\"targetPort\":8080}],\"selector\":{\"app\":\"svc1\"},\"type\":\"ClusterIP\"}}";
static const unsigned char kubectl_quota_pb[] = {
    0x6b, 0x38, 0x73, 0x00, 0x0a, 0x13, 0x0a, 0x02, 0x76, 0x31, 0x12, 0x0d, 0x52, 0x65, 0x73, 0x6f, 0x75, 0x72, 0x63,
    0x65, 0x51, 0x75, 0x6f, 0x74, 0x61, 0x12, 0x3e, 0x0a, 0x15, 0x0a, 0x02, 0x71, 0x31, 0x12, 0x00, 0x1a, 0x03, 0x6e,
    0x73, 0x31, 0x22, 0x00, 0x2a, 0x00, 0x32, 0x00, 0x38, 0x00, 0x42, 0x00, 0x12, 0x23, 0x0a, 0x0c, 0x0a, 0x04, 0x70,
    0x6f, 0x64, 0x73, 0x12, 0x04, 0x0a, 0x02, 0x31, 0x30, 0x0a, 0x13, 0x0a, 0x0c, 0x72, 0x65, 0x71, 0x75, 0x65, 0x73,
    0x74, 0x73, 0x2e, 0x63, 0x70, 0x75, 0x12, 0x03, 0x0a, 0x01, 0x32, 0x1a, 0x00, 0x1a, 0x00, 0x22, 0x00,
};
static const char kubectl_quota_json[] =
    "{\"kind\":\"ResourceQuota\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"q1\",\"namespace\":\"ns1\","
    "\"creationTim"
    "estamp\":null},\"spec\":{\"hard\":{\"pods\":\"10\",\"requests.cpu\":\"2\"}},\"status\":{}}";
static const unsigned char kubectl_deployment_pb[] = {
    0x6b, 0x38, 0x73, 0x00, 0x0a, 0x15, 0x0a, 0x07, 0x61, 0x70, 0x70, 0x73, 0x2f, 0x76, 0x31, 0x12, 0x0a, 0x44, 0x65,
    0x70, 0x6c, 0x6f, 0x79, 0x6d, 0x65, 0x6e, 0x74, 0x12, 0xc0, 0x01, 0x0a, 0x22, 0x0a, 0x03, 0x77, 0x65, 0x62, 0x12,
    0x00, 0x1a, 0x03, 0x6e, 0x73, 0x31, 0x22, 0x00, 0x2a, 0x00, 0x32, 0x00, 0x38, 0x00, 0x42, 0x00, 0x5a, 0x0a, 0x0a,
    0x03, 0x61, 0x70, 0x70, 0x12, 0x03, 0x77, 0x65, 0x62, 0x12, 0x8b, 0x01, 0x08, 0x02, 0x12, 0x0c, 0x0a, 0x0a, 0x0a,
    0x03, 0x61, 0x70, 0x70, 0x12, 0x03, 0x77, 0x65, 0x62, 0x1a, 0x71, 0x0a, 0x1c, 0x0a, 0x00, 0x12, 0x00, 0x1a, 0x00,
    0x22, 0x00, 0x2a, 0x00, 0x32, 0x00, 0x38, 0x00, 0x42, 0x00, 0x5a, 0x0a, 0x0a, 0x03, 0x61, 0x70, 0x70, 0x12, 0x03,
    0x77, 0x65, 0x62, 0x12, 0x51, 0x12, 0x33, 0x0a, 0x05, 0x6e, 0x67, 0x69, 0x6e, 0x78, 0x12, 0x0a, 0x6e, 0x67, 0x69,
    0x6e, 0x78, 0x3a, 0x31, 0x2e, 0x32, 0x37, 0x2a, 0x00, 0x32, 0x0a, 0x0a, 0x00, 0x10, 0x00, 0x18, 0x50, 0x22, 0x00,
    0x2a, 0x00, 0x42, 0x00, 0x6a, 0x00, 0x72, 0x00, 0x80, 0x01, 0x00, 0x88, 0x01, 0x00, 0x90, 0x01, 0x00, 0xa2, 0x01,
    0x00, 0x1a, 0x00, 0x32, 0x00, 0x42, 0x00, 0x4a, 0x00, 0x52, 0x00, 0x58, 0x00, 0x60, 0x00, 0x68, 0x00, 0x82, 0x01,
    0x00, 0x8a, 0x01, 0x00, 0x9a, 0x01, 0x00, 0xc2, 0x01, 0x00, 0x22, 0x02, 0x0a, 0x00, 0x28, 0x00, 0x38, 0x00, 0x1a,
    0x0c, 0x08, 0x00, 0x10, 0x00, 0x18, 0x00, 0x20, 0x00, 0x28, 0x00, 0x38, 0x00, 0x1a, 0x00, 0x22, 0x00,
};
static const char kubectl_deployment_json[] =
    "{\"kind\":\"Deployment\",\"apiVersion\":\"apps/"
    "v1\",\"metadata\":{\"name\":\"web\",\"namespace\":\"ns1\",\"creation"
    "Timestamp\":null,\"labels\":{\"app\":\"web\"}},\"spec\":{\"replicas\":2,\"selector\":{\"matchLabels\":{\"app\":\"w"
    "eb\"}},\"template\":{\"metadata\":{\"creationTimestamp\":null,\"labels\":{\"app\":\"web\"}},\"spec\":{\"containe"
    "rs\":[{\"name\":\"nginx\",\"image\":\"nginx:1.27\",\"ports\":[{\"containerPort\":80}],\"resources\":{}}]}},\"str"
    "ategy\":{}}}";
static const unsigned char kubectl_job_pb[] = {
    0x6b, 0x38, 0x73, 0x00, 0x0a, 0x0f, 0x0a, 0x08, 0x62, 0x61, 0x74, 0x63, 0x68, 0x2f, 0x76, 0x31, 0x12, 0x03, 0x4a,
    0x6f, 0x62, 0x12, 0x87, 0x01, 0x0a, 0x15, 0x0a, 0x02, 0x6a, 0x31, 0x12, 0x00, 0x1a, 0x03, 0x6e, 0x73, 0x31, 0x22,
    0x00, 0x2a, 0x00, 0x32, 0x00, 0x38, 0x00, 0x42, 0x00, 0x12, 0x64, 0x32, 0x62, 0x0a, 0x10, 0x0a, 0x00, 0x12, 0x00,
    0x1a, 0x00, 0x22, 0x00, 0x2a, 0x00, 0x32, 0x00, 0x38, 0x00, 0x42, 0x00, 0x12, 0x4e, 0x12, 0x2b, 0x0a, 0x02, 0x6a,
    0x31, 0x12, 0x07, 0x62, 0x75, 0x73, 0x79, 0x62, 0x6f, 0x78, 0x1a, 0x04, 0x65, 0x63, 0x68, 0x6f, 0x1a, 0x02, 0x68,
    0x69, 0x2a, 0x00, 0x42, 0x00, 0x6a, 0x00, 0x72, 0x00, 0x80, 0x01, 0x00, 0x88, 0x01, 0x00, 0x90, 0x01, 0x00, 0xa2,
    0x01, 0x00, 0x1a, 0x05, 0x4e, 0x65, 0x76, 0x65, 0x72, 0x32, 0x00, 0x42, 0x00, 0x4a, 0x00, 0x52, 0x00, 0x58, 0x00,
    0x60, 0x00, 0x68, 0x00, 0x82, 0x01, 0x00, 0x8a, 0x01, 0x00, 0x9a, 0x01, 0x00, 0xc2, 0x01, 0x00, 0x1a, 0x08, 0x20,
    0x00, 0x28, 0x00, 0x30, 0x00, 0x3a, 0x00, 0x1a, 0x00, 0x22, 0x00,
};
static const char kubectl_job_json[] =
    "{\"kind\":\"Job\",\"apiVersion\":\"batch/"
    "v1\",\"metadata\":{\"name\":\"j1\",\"namespace\":\"ns1\",\"creationTimesta"
    "mp\":null},\"spec\":{\"template\":{\"metadata\":{\"creationTimestamp\":null},\"spec\":{\"containers\":[{\"name"
    "\":\"j1\",\"image\":\"busybox\",\"command\":[\"echo\",\"hi\"],\"resources\":{}}],\"restartPolicy\":\"Never\"}}}}";
static const unsigned char kubectl_cronjob_pb[] = {
    0x6b, 0x38, 0x73, 0x00, 0x0a, 0x13, 0x0a, 0x08, 0x62, 0x61, 0x74, 0x63, 0x68, 0x2f, 0x76, 0x31, 0x12, 0x07, 0x43,
    0x72, 0x6f, 0x6e, 0x4a, 0x6f, 0x62, 0x12, 0xaa, 0x01, 0x0a, 0x16, 0x0a, 0x03, 0x63, 0x6a, 0x31, 0x12, 0x00, 0x1a,
    0x03, 0x6e, 0x73, 0x31, 0x22, 0x00, 0x2a, 0x00, 0x32, 0x00, 0x38, 0x00, 0x42, 0x00, 0x12, 0x8d, 0x01, 0x0a, 0x0b,
    0x2a, 0x2f, 0x35, 0x20, 0x2a, 0x20, 0x2a, 0x20, 0x2a, 0x20, 0x2a, 0x1a, 0x00, 0x2a, 0x7c, 0x0a, 0x13, 0x0a, 0x03,
    0x63, 0x6a, 0x31, 0x12, 0x00, 0x1a, 0x00, 0x22, 0x00, 0x2a, 0x00, 0x32, 0x00, 0x38, 0x00, 0x42, 0x00, 0x12, 0x65,
    0x32, 0x63, 0x0a, 0x10, 0x0a, 0x00, 0x12, 0x00, 0x1a, 0x00, 0x22, 0x00, 0x2a, 0x00, 0x32, 0x00, 0x38, 0x00, 0x42,
    0x00, 0x12, 0x4f, 0x12, 0x28, 0x0a, 0x03, 0x63, 0x6a, 0x31, 0x12, 0x07, 0x62, 0x75, 0x73, 0x79, 0x62, 0x6f, 0x78,
    0x1a, 0x04, 0x64, 0x61, 0x74, 0x65, 0x2a, 0x00, 0x42, 0x00, 0x6a, 0x00, 0x72, 0x00, 0x80, 0x01, 0x00, 0x88, 0x01,
    0x00, 0x90, 0x01, 0x00, 0xa2, 0x01, 0x00, 0x1a, 0x09, 0x4f, 0x6e, 0x46, 0x61, 0x69, 0x6c, 0x75, 0x72, 0x65, 0x32,
    0x00, 0x42, 0x00, 0x4a, 0x00, 0x52, 0x00, 0x58, 0x00, 0x60, 0x00, 0x68, 0x00, 0x82, 0x01, 0x00, 0x8a, 0x01, 0x00,
    0x9a, 0x01, 0x00, 0xc2, 0x01, 0x00, 0x1a, 0x00, 0x1a, 0x00, 0x22, 0x00,
};
static const char kubectl_cronjob_json[] =
    "{\"kind\":\"CronJob\",\"apiVersion\":\"batch/"
    "v1\",\"metadata\":{\"name\":\"cj1\",\"namespace\":\"ns1\",\"creationTi"
    "mestamp\":null},\"spec\":{\"schedule\":\"*/5 * * * *\",\"jobTemplate\":{\"metadata\":{\"name\":\"cj1\",\"creatio"
    "nTimestamp\":null},\"spec\":{\"template\":{\"metadata\":{\"creationTimestamp\":null},\"spec\":{\"containers\""
    ":[{\"name\":\"cj1\",\"image\":\"busybox\",\"command\":[\"date\"],\"resources\":{}}],\"restartPolicy\":\"OnFailure"
    "\"}}}}}}";
static const unsigned char kubectl_ingress_pb[] = {
    0x6b, 0x38, 0x73, 0x00, 0x0a, 0x1f, 0x0a, 0x14, 0x6e, 0x65, 0x74, 0x77, 0x6f, 0x72, 0x6b, 0x69, 0x6e, 0x67,
    0x2e, 0x6b, 0x38, 0x73, 0x2e, 0x69, 0x6f, 0x2f, 0x76, 0x31, 0x12, 0x07, 0x49, 0x6e, 0x67, 0x72, 0x65, 0x73,
    0x73, 0x12, 0x60, 0x0a, 0x17, 0x0a, 0x04, 0x69, 0x6e, 0x67, 0x31, 0x12, 0x00, 0x1a, 0x03, 0x6e, 0x73, 0x31,
    0x22, 0x00, 0x2a, 0x00, 0x32, 0x00, 0x38, 0x00, 0x42, 0x00, 0x12, 0x41, 0x12, 0x0f, 0x0a, 0x07, 0x66, 0x6f,
    0x6f, 0x2e, 0x63, 0x6f, 0x6d, 0x12, 0x04, 0x73, 0x65, 0x63, 0x31, 0x1a, 0x2e, 0x0a, 0x07, 0x66, 0x6f, 0x6f,
    0x2e, 0x63, 0x6f, 0x6d, 0x12, 0x23, 0x0a, 0x21, 0x0a, 0x1f, 0x0a, 0x04, 0x2f, 0x62, 0x61, 0x72, 0x12, 0x0f,
    0x22, 0x0d, 0x0a, 0x04, 0x73, 0x76, 0x63, 0x31, 0x12, 0x05, 0x0a, 0x00, 0x10, 0x90, 0x3f, 0x1a, 0x06, 0x50,
    0x72, 0x65, 0x66, 0x69, 0x78, 0x1a, 0x02, 0x0a, 0x00, 0x1a, 0x00, 0x22, 0x00,
};
static const char kubectl_ingress_json[] =
    "{\"kind\":\"Ingress\",\"apiVersion\":\"networking.k8s.io/v1\",\"metadata\":{\"name\":\"ing1\",\"namespace\":\"ns1"
    "\",\"creationTimestamp\":null},\"spec\":{\"tls\":[{\"hosts\":[\"foo.com\"],\"secretName\":\"sec1\"}],\"rules\":[{"
    "\"host\":\"foo.com\",\"http\":{\"paths\":[{\"path\":\"/"
    "bar\",\"pathType\":\"Prefix\",\"backend\":{\"service\":{\"name"
    "\":\"svc1\",\"port\":{\"number\":8080}}}}]}}]}}";
static const unsigned char kubectl_rolebinding_pb[] = {
    0x6b, 0x38, 0x73, 0x00, 0x0a, 0x2b, 0x0a, 0x1c, 0x72, 0x62, 0x61, 0x63, 0x2e, 0x61, 0x75, 0x74, 0x68, 0x6f,
    0x72, 0x69, 0x7a, 0x61, 0x74, 0x69, 0x6f, 0x6e, 0x2e, 0x6b, 0x38, 0x73, 0x2e, 0x69, 0x6f, 0x2f, 0x76, 0x31,
    0x12, 0x0b, 0x52, 0x6f, 0x6c, 0x65, 0x42, 0x69, 0x6e, 0x64, 0x69, 0x6e, 0x67, 0x12, 0x89, 0x01, 0x0a, 0x16,
    0x0a, 0x03, 0x72, 0x62, 0x31, 0x12, 0x00, 0x1a, 0x03, 0x6e, 0x73, 0x31, 0x22, 0x00, 0x2a, 0x00, 0x32, 0x00,
    0x38, 0x00, 0x42, 0x00, 0x12, 0x2a, 0x0a, 0x04, 0x55, 0x73, 0x65, 0x72, 0x12, 0x19, 0x72, 0x62, 0x61, 0x63,
    0x2e, 0x61, 0x75, 0x74, 0x68, 0x6f, 0x72, 0x69, 0x7a, 0x61, 0x74, 0x69, 0x6f, 0x6e, 0x2e, 0x6b, 0x38, 0x73,
    0x2e, 0x69, 0x6f, 0x1a, 0x05, 0x61, 0x6c, 0x69, 0x63, 0x65, 0x22, 0x00, 0x12, 0x1c, 0x0a, 0x0e, 0x53, 0x65,
    0x72, 0x76, 0x69, 0x63, 0x65, 0x41, 0x63, 0x63, 0x6f, 0x75, 0x6e, 0x74, 0x12, 0x00, 0x1a, 0x03, 0x73, 0x61,
    0x31, 0x22, 0x03, 0x6e, 0x73, 0x31, 0x1a, 0x25, 0x0a, 0x19, 0x72, 0x62, 0x61, 0x63, 0x2e, 0x61, 0x75, 0x74,
    0x68, 0x6f, 0x72, 0x69, 0x7a, 0x61, 0x74, 0x69, 0x6f, 0x6e, 0x2e, 0x6b, 0x38, 0x73, 0x2e, 0x69, 0x6f, 0x12,
    0x04, 0x52, 0x6f, 0x6c, 0x65, 0x1a, 0x02, 0x72, 0x31, 0x1a, 0x00, 0x22, 0x00,
};
static const char kubectl_rolebinding_json[] =
    "{\"kind\":\"RoleBinding\",\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"metadata\":{\"name\":\"rb1\",\"name"
    "space\":\"ns1\",\"creationTimestamp\":null},\"subjects\":[{\"kind\":\"User\",\"apiGroup\":\"rbac.authorization"
    ".k8s.io\",\"name\":\"alice\"},{\"kind\":\"ServiceAccount\",\"name\":\"sa1\",\"namespace\":\"ns1\"}],\"roleRef\":{"
    "\"a"
    "piGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"Role\",\"name\":\"r1\"}}";
static const unsigned char kubectl_clusterrolebinding_pb[] = {
    0x6b, 0x38, 0x73, 0x00, 0x0a, 0x32, 0x0a, 0x1c, 0x72, 0x62, 0x61, 0x63, 0x2e, 0x61, 0x75, 0x74, 0x68, 0x6f,
    0x72, 0x69, 0x7a, 0x61, 0x74, 0x69, 0x6f, 0x6e, 0x2e, 0x6b, 0x38, 0x73, 0x2e, 0x69, 0x6f, 0x2f, 0x76, 0x31,
    0x12, 0x12, 0x43, 0x6c, 0x75, 0x73, 0x74, 0x65, 0x72, 0x52, 0x6f, 0x6c, 0x65, 0x42, 0x69, 0x6e, 0x64, 0x69,
    0x6e, 0x67, 0x12, 0x71, 0x0a, 0x14, 0x0a, 0x04, 0x63, 0x72, 0x62, 0x31, 0x12, 0x00, 0x1a, 0x00, 0x22, 0x00,
    0x2a, 0x00, 0x32, 0x00, 0x38, 0x00, 0x42, 0x00, 0x12, 0x2a, 0x0a, 0x05, 0x47, 0x72, 0x6f, 0x75, 0x70, 0x12,
    0x19, 0x72, 0x62, 0x61, 0x63, 0x2e, 0x61, 0x75, 0x74, 0x68, 0x6f, 0x72, 0x69, 0x7a, 0x61, 0x74, 0x69, 0x6f,
    0x6e, 0x2e, 0x6b, 0x38, 0x73, 0x2e, 0x69, 0x6f, 0x1a, 0x04, 0x64, 0x65, 0x76, 0x73, 0x22, 0x00, 0x1a, 0x2d,
    0x0a, 0x19, 0x72, 0x62, 0x61, 0x63, 0x2e, 0x61, 0x75, 0x74, 0x68, 0x6f, 0x72, 0x69, 0x7a, 0x61, 0x74, 0x69,
    0x6f, 0x6e, 0x2e, 0x6b, 0x38, 0x73, 0x2e, 0x69, 0x6f, 0x12, 0x0b, 0x43, 0x6c, 0x75, 0x73, 0x74, 0x65, 0x72,
    0x52, 0x6f, 0x6c, 0x65, 0x1a, 0x03, 0x63, 0x72, 0x31, 0x1a, 0x00, 0x22, 0x00,
};
static const char kubectl_clusterrolebinding_json[] =
    "{\"kind\":\"ClusterRoleBinding\",\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"metadata\":{\"name\":\"crb"
    "1\",\"creationTimestamp\":null},\"subjects\":[{\"kind\":\"Group\",\"apiGroup\":\"rbac.authorization.k8s.io\","
    "\"name\":\"devs\"}],\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\",\"name\":\"c"
    "r1\"}}";
static const unsigned char kubectl_priorityclass_pb[] = {
    0x6b, 0x38, 0x73, 0x00, 0x0a, 0x25, 0x0a, 0x14, 0x73, 0x63, 0x68, 0x65, 0x64, 0x75, 0x6c, 0x69, 0x6e,
    0x67, 0x2e, 0x6b, 0x38, 0x73, 0x2e, 0x69, 0x6f, 0x2f, 0x76, 0x31, 0x12, 0x0d, 0x50, 0x72, 0x69, 0x6f,
    0x72, 0x69, 0x74, 0x79, 0x43, 0x6c, 0x61, 0x73, 0x73, 0x12, 0x34, 0x0a, 0x13, 0x0a, 0x03, 0x70, 0x63,
    0x31, 0x12, 0x00, 0x1a, 0x00, 0x22, 0x00, 0x2a, 0x00, 0x32, 0x00, 0x38, 0x00, 0x42, 0x00, 0x10, 0xe8,
    0x07, 0x18, 0x00, 0x22, 0x02, 0x68, 0x69, 0x2a, 0x14, 0x50, 0x72, 0x65, 0x65, 0x6d, 0x70, 0x74, 0x4c,
    0x6f, 0x77, 0x65, 0x72, 0x50, 0x72, 0x69, 0x6f, 0x72, 0x69, 0x74, 0x79, 0x1a, 0x00, 0x22, 0x00,
};
static const char kubectl_priorityclass_json[] =
    "{\"kind\":\"PriorityClass\",\"apiVersion\":\"scheduling.k8s.io/v1\",\"metadata\":{\"name\":\"pc1\",\"creationTi"
    "mestamp\":null},\"value\":1000,\"description\":\"hi\",\"preemptionPolicy\":\"PreemptLowerPriority\"}";
static const struct kubectl_fixture {
    const char *name;
    const unsigned char *pb;
    size_t len;
    const char *json;
} kubectl_fixtures[] = {
    {"namespace", kubectl_namespace_pb, sizeof kubectl_namespace_pb, kubectl_namespace_json},
    {"configmap", kubectl_configmap_pb, sizeof kubectl_configmap_pb, kubectl_configmap_json},
    {"secret", kubectl_secret_pb, sizeof kubectl_secret_pb, kubectl_secret_json},
    {"serviceaccount", kubectl_serviceaccount_pb, sizeof kubectl_serviceaccount_pb, kubectl_serviceaccount_json},
    {"service", kubectl_service_pb, sizeof kubectl_service_pb, kubectl_service_json},
    {"quota", kubectl_quota_pb, sizeof kubectl_quota_pb, kubectl_quota_json},
    {"deployment", kubectl_deployment_pb, sizeof kubectl_deployment_pb, kubectl_deployment_json},
    {"job", kubectl_job_pb, sizeof kubectl_job_pb, kubectl_job_json},
    {"cronjob", kubectl_cronjob_pb, sizeof kubectl_cronjob_pb, kubectl_cronjob_json},
    {"ingress", kubectl_ingress_pb, sizeof kubectl_ingress_pb, kubectl_ingress_json},
    {"rolebinding", kubectl_rolebinding_pb, sizeof kubectl_rolebinding_pb, kubectl_rolebinding_json},
    {"clusterrolebinding", kubectl_clusterrolebinding_pb, sizeof kubectl_clusterrolebinding_pb,
     kubectl_clusterrolebinding_json},
    {"priorityclass", kubectl_priorityclass_pb, sizeof kubectl_priorityclass_pb, kubectl_priorityclass_json},
};

/* ---- kubectl's own bodies ---- */

static void test_kubectl_bodies(void **s)
{
    (void)s;
    for (size_t i = 0; i < sizeof kubectl_fixtures / sizeof kubectl_fixtures[0]; i++) {
        const struct kubectl_fixture *f = &kubectl_fixtures[i];
        kg_error err;
        kg_json *got = kg_protobuf_decode(&A, f->pb, f->len, &err);
        if (!got)
            fail_msg("%s: %s", f->name, err.msg);
        if (!kg_json_equal(got, J(f->json)))
            fail_msg("%s:\ngot  %s\nwant %s", f->name, kg_json_to_string(&A, got, 0, NULL), f->json);
        /* apiVersion and kind come first, like a JSON client writes them */
        assert_string_equal(got->u.members[0].key, "apiVersion");
        assert_string_equal(got->u.members[1].key, "kind");
    }
}

static void test_kubectl_truncated_bodies_fail_cleanly(void **s)
{
    (void)s;
    for (size_t i = 0; i < sizeof kubectl_fixtures / sizeof kubectl_fixtures[0]; i++) {
        const struct kubectl_fixture *f = &kubectl_fixtures[i];
        /* raw is the envelope's second field and runs to the end minus the two empty string fields (4 bytes):
         * cutting anywhere inside it leaves a length prefix that claims more than is there */
        size_t raw_end = f->len - 4;
        assert_int_equal(f->pb[4], 0x0a); /* typeMeta, short enough for a one-byte length */
        size_t raw_tag = 6 + f->pb[5];
        assert_int_equal(f->pb[raw_tag], 0x12);
        for (size_t n = 0; n < f->len; n++) {
            kg_error err;
            unsigned char *copy = malloc(n ? n : 1); /* exact-size heap copy: ASan catches any over-read */
            memcpy(copy, f->pb, n);
            kg_json *got = kg_protobuf_decode(&A, copy, n, &err);
            free(copy);
            if (n < 4) {
                assert_null(got);
                assert_string_equal(err.msg, "provided data does not appear to be a protobuf message, expected "
                                             "prefix [107 56 115 0]");
            } else if (n > raw_tag && n < raw_end) {
                if (got)
                    fail_msg("%s: prefix %zu of %zu decoded", f->name, n, f->len);
                assert_int_equal(err.code, KG_EINVAL);
                assert_string_equal(err.msg, "proto: unexpected EOF");
            }
        }
    }
}

/* ---- hand-built messages ---- */

static void test_pod_spec_fields(void **s)
{
    (void)s;
    kg_buf raw = KG_BUF_INIT, spec = KG_BUF_INIT, c = KG_BUF_INIT, t = KG_BUF_INIT, t2 = KG_BUF_INIT;
    meta(&raw, "p1", "ns1");
    /* container */
    str(&c, 1, "app");
    str(&c, 2, "nginx:1.27");
    str(&c, 3, "sh");
    str(&c, 3, "-c");
    str(&c, 4, "echo hi");
    str(&c, 5, "");
    {
        kg_buf port = KG_BUF_INIT;
        str(&port, 1, "http");
        u(&port, 2, 0);
        u(&port, 3, 8080);
        str(&port, 4, "TCP");
        str(&port, 5, "");
        msg(&c, 6, &port);
    }
    {
        kg_buf env = KG_BUF_INIT, vf = KG_BUF_INIT, sk = KG_BUF_INIT, lor = KG_BUF_INIT;
        str(&env, 1, "A");
        str(&env, 2, "B");
        msg(&c, 7, &env);
        str(&env, 1, "PW");
        str(&env, 2, "");
        str(&lor, 1, "creds");
        msg(&sk, 1, &lor); /* LocalObjectReference is inlined in JSON */
        str(&sk, 2, "password");
        u(&sk, 3, 0); /* optional: false is a pointer -> kept */
        msg(&vf, 4, &sk);
        msg(&env, 3, &vf);
        msg(&c, 7, &env);
    }
    {
        kg_buf res = KG_BUF_INIT;
        map_sq(&res, 1, "cpu", "500m");
        map_sq(&res, 1, "memory", "128Mi");
        map_sq(&res, 2, "cpu", "250m");
        msg(&c, 8, &res);
    }
    {
        kg_buf vm = KG_BUF_INIT;
        str(&vm, 1, "data");
        u(&vm, 2, 1);
        str(&vm, 3, "/data");
        str(&vm, 4, "");
        msg(&c, 9, &vm);
    }
    {
        /* liveness: httpGet with a named port; readiness: tcpSocket with a numeric port */
        kg_buf pr = KG_BUF_INIT, h = KG_BUF_INIT, hg = KG_BUF_INIT, port = KG_BUF_INIT;
        str(&hg, 1, "/healthz");
        u(&port, 1, 1);
        u(&port, 2, 0);
        str(&port, 3, "http");
        msg(&hg, 2, &port);
        str(&hg, 3, "");
        str(&hg, 4, "HTTP");
        msg(&h, 2, &hg);
        msg(&pr, 1, &h); /* ProbeHandler is inlined */
        u(&pr, 2, 5);
        u(&pr, 3, 1);
        u(&pr, 4, 10);
        u(&pr, 5, 1);
        u(&pr, 6, 3);
        msg(&c, 10, &pr);
        kg_buf pr2 = KG_BUF_INIT, h2 = KG_BUF_INIT, tcp = KG_BUF_INIT, p2 = KG_BUF_INIT;
        u(&p2, 1, 0);
        u(&p2, 2, 8080);
        str(&p2, 3, "");
        msg(&tcp, 1, &p2);
        str(&tcp, 2, "");
        msg(&h2, 3, &tcp);
        msg(&pr2, 1, &h2);
        u(&pr2, 2, 0);
        msg(&c, 11, &pr2);
    }
    {
        kg_buf lc = KG_BUF_INIT, ps = KG_BUF_INIT, ex = KG_BUF_INIT;
        str(&ex, 1, "sleep");
        str(&ex, 1, "5");
        msg(&ps, 1, &ex);
        msg(&lc, 2, &ps);
        msg(&c, 12, &lc);
    }
    str(&c, 13, "/dev/termination-log");
    str(&c, 14, "IfNotPresent");
    {
        kg_buf sc = KG_BUF_INIT, caps = KG_BUF_INIT;
        str(&caps, 2, "ALL");
        msg(&sc, 1, &caps);
        u(&sc, 2, 0);                     /* privileged: false (kept) */
        u(&sc, 4, 0);                     /* runAsUser: 0 (kept: root!) */
        u(&sc, 5, 0);                     /* runAsNonRoot: false */
        u(&sc, 7, 0);                     /* allowPrivilegeEscalation: false */
        u(&sc, 8, (uint64_t)(int64_t)-1); /* negative int64: 10-byte varint */
        msg(&c, 15, &sc);
    }
    u(&c, 16, 1);
    u(&c, 17, 0);
    u(&c, 18, 1);
    str(&c, 20, "File");
    msg(&spec, 2, &c);
    /* volumes */
    {
        kg_buf v = KG_BUF_INIT, vs = KG_BUF_INIT, ed = KG_BUF_INIT, q = KG_BUF_INIT;
        str(&v, 1, "data");
        str(&ed, 1, "Memory");
        str(&q, 1, "1Gi");
        msg(&ed, 2, &q);
        msg(&vs, 2, &ed);
        msg(&v, 2, &vs); /* VolumeSource is inlined */
        msg(&spec, 1, &v);
        kg_buf v2 = KG_BUF_INIT, vs2 = KG_BUF_INIT, cm = KG_BUF_INIT, lor = KG_BUF_INIT, kp = KG_BUF_INIT;
        str(&v2, 1, "cfg");
        str(&lor, 1, "app-config");
        msg(&cm, 1, &lor);
        str(&kp, 1, "k");
        str(&kp, 2, "k.txt");
        msg(&cm, 2, &kp);
        u(&cm, 3, 0644);
        msg(&vs2, 19, &cm);
        msg(&v2, 2, &vs2);
        msg(&spec, 1, &v2);
        kg_buf v3 = KG_BUF_INIT, vs3 = KG_BUF_INIT, hp = KG_BUF_INIT;
        str(&v3, 1, "host");
        str(&hp, 1, "/var/run");
        str(&hp, 2, "Directory");
        msg(&vs3, 1, &hp);
        msg(&v3, 2, &vs3);
        msg(&spec, 1, &v3);
    }
    str(&spec, 3, "Always");
    u(&spec, 4, 30);
    str(&spec, 6, "ClusterFirst");
    map_ss(&spec, 7, "disk", "ssd");
    str(&spec, 8, "default");
    u(&spec, 11, 0); /* hostNetwork: false, a Go value field: dropped */
    u(&spec, 21, 0); /* automountServiceAccountToken: false, a pointer: kept */
    {
        kg_buf psc = KG_BUF_INIT, packed = KG_BUF_INIT;
        u(&psc, 2, 1000);
        u(&psc, 3, 1);
        pv(&packed, 1);
        pv(&packed, 2000);
        bytes(&psc, 4, packed.data, packed.len); /* packed repeated int64 */
        kg_buf_free(&packed);
        u(&psc, 4, 3000); /* ... followed by an unpacked element */
        u(&psc, 5, 0);
        msg(&spec, 14, &psc);
    }
    {
        kg_buf tol = KG_BUF_INIT;
        str(&tol, 1, "node.kubernetes.io/not-ready");
        str(&tol, 2, "Exists");
        str(&tol, 3, "");
        str(&tol, 4, "NoExecute");
        u(&tol, 5, 300);
        msg(&spec, 22, &tol);
    }
    {
        kg_buf aff = KG_BUF_INIT, na = KG_BUF_INIT, ns = KG_BUF_INIT, term = KG_BUF_INIT, req = KG_BUF_INIT;
        str(&req, 1, "zone");
        str(&req, 2, "In");
        str(&req, 3, "a");
        str(&req, 3, "b");
        msg(&term, 1, &req);
        msg(&ns, 1, &term);
        msg(&na, 1, &ns);
        msg(&aff, 1, &na);
        msg(&spec, 18, &aff);
    }
    u(&spec, 25, 0); /* priority: 0 (pointer, kept) */
    msg(&raw, 2, &spec);
    (void)t;
    (void)t2;
    kg_buf body = KG_BUF_INIT;
    envelope(&body, "v1", "Pod", &raw);
    kg_error err;
    kg_json *got = decode_buf(&body, &err);
    if (!got)
        fail_msg("%s", err.msg);
    assert_json_eq(
        got, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
             "\"metadata\":{\"name\":\"p1\",\"namespace\":\"ns1\",\"creationTimestamp\":null},"
             "\"spec\":{\"containers\":[{\"name\":\"app\",\"image\":\"nginx:1.27\","
             "\"command\":[\"sh\",\"-c\"],\"args\":[\"echo hi\"],"
             "\"ports\":[{\"name\":\"http\",\"containerPort\":8080,\"protocol\":\"TCP\"}],"
             "\"env\":[{\"name\":\"A\",\"value\":\"B\"},{\"name\":\"PW\",\"valueFrom\":{\"secretKeyRef\":"
             "{\"name\":\"creds\",\"key\":\"password\",\"optional\":false}}}],"
             "\"resources\":{\"limits\":{\"cpu\":\"500m\",\"memory\":\"128Mi\"},\"requests\":{\"cpu\":\"250m\"}},"
             "\"volumeMounts\":[{\"name\":\"data\",\"readOnly\":true,\"mountPath\":\"/data\"}],"
             "\"livenessProbe\":{\"httpGet\":{\"path\":\"/healthz\",\"port\":\"http\",\"scheme\":\"HTTP\"},"
             "\"initialDelaySeconds\":5,\"timeoutSeconds\":1,\"periodSeconds\":10,\"successThreshold\":1,"
             "\"failureThreshold\":3},"
             "\"readinessProbe\":{\"tcpSocket\":{\"port\":8080}},"
             "\"lifecycle\":{\"preStop\":{\"exec\":{\"command\":[\"sleep\",\"5\"]}}},"
             "\"terminationMessagePath\":\"/dev/termination-log\",\"imagePullPolicy\":\"IfNotPresent\","
             "\"securityContext\":{\"capabilities\":{\"drop\":[\"ALL\"]},\"privileged\":false,"
             "\"runAsUser\":0,\"runAsNonRoot\":false,\"allowPrivilegeEscalation\":false,\"runAsGroup\":-1},"
             "\"stdin\":true,\"tty\":true,\"terminationMessagePolicy\":\"File\"}],"
             "\"volumes\":[{\"name\":\"data\",\"emptyDir\":{\"medium\":\"Memory\",\"sizeLimit\":\"1Gi\"}},"
             "{\"name\":\"cfg\",\"configMap\":{\"name\":\"app-config\",\"items\":[{\"key\":\"k\",\"path\":\"k.txt\"}],"
             "\"defaultMode\":420}},"
             "{\"name\":\"host\",\"hostPath\":{\"path\":\"/var/run\",\"type\":\"Directory\"}}],"
             "\"restartPolicy\":\"Always\",\"terminationGracePeriodSeconds\":30,\"dnsPolicy\":\"ClusterFirst\","
             "\"nodeSelector\":{\"disk\":\"ssd\"},\"serviceAccountName\":\"default\","
             "\"automountServiceAccountToken\":false,"
             "\"securityContext\":{\"runAsUser\":1000,\"runAsNonRoot\":true,"
             "\"supplementalGroups\":[1,2000,3000],\"fsGroup\":0},"
             "\"tolerations\":[{\"key\":\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\","
             "\"effect\":\"NoExecute\",\"tolerationSeconds\":300}],"
             "\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":"
             "{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"zone\",\"operator\":\"In\","
             "\"values\":[\"a\",\"b\"]}]}]}}},\"priority\":0}}");
}

static void test_times(void **s)
{
    (void)s;
    kg_buf raw = KG_BUF_INIT, m = KG_BUF_INIT, ts = KG_BUF_INIT, del = KG_BUF_INIT;
    str(&m, 1, "x");
    u(&ts, 1, 1700000000);
    u(&ts, 2, 999999999); /* metav1.Time drops the nanoseconds */
    msg(&m, 8, &ts);
    u(&del, 1, (uint64_t)(int64_t)-1); /* before the epoch */
    msg(&m, 9, &del);
    u(&m, 10, 0);
    msg(&raw, 1, &m);
    kg_buf spec = KG_BUF_INIT, acq = KG_BUF_INIT, ren = KG_BUF_INIT;
    str(&spec, 1, "node-1");
    u(&spec, 2, 40);
    u(&acq, 1, 951782400); /* 2000-02-29 */
    msg(&spec, 3, &acq);
    u(&ren, 1, 253402300799LL); /* 9999-12-31T23:59:59 */
    u(&ren, 2, 123456789);
    msg(&spec, 4, &ren);
    u(&spec, 5, 0);
    msg(&raw, 2, &spec);
    kg_buf body = KG_BUF_INIT;
    envelope(&body, "coordination.k8s.io/v1", "Lease", &raw);
    kg_error err;
    kg_json *got = decode_buf(&body, &err);
    if (!got)
        fail_msg("%s", err.msg);
    assert_json_eq(got, "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\","
                        "\"metadata\":{\"name\":\"x\",\"creationTimestamp\":\"2023-11-14T22:13:20Z\","
                        "\"deletionTimestamp\":\"1969-12-31T23:59:59Z\",\"deletionGracePeriodSeconds\":0},"
                        "\"spec\":{\"holderIdentity\":\"node-1\",\"leaseDurationSeconds\":40,"
                        "\"acquireTime\":\"2000-02-29T00:00:00.000000Z\","
                        "\"renewTime\":\"9999-12-31T23:59:59.123456Z\",\"leaseTransitions\":0}}");

    /* a year past 9999 cannot be written in RFC 3339 */
    kg_buf raw2 = KG_BUF_INIT, m2 = KG_BUF_INIT, ts2 = KG_BUF_INIT;
    u(&ts2, 1, 253402300800LL);
    msg(&m2, 8, &ts2);
    msg(&raw2, 1, &m2);
    envelope(&body, "v1", "Namespace", &raw2);
    assert_null(decode_buf(&body, &err));
    assert_string_equal(err.msg, "decoding Namespace: proto: timestamp 253402300800 is outside the years 0000-9999");
}

static void test_duration_strings(void **s)
{
    (void)s;
    static const struct {
        int64_t ns;
        const char *want;
    } cases[] = {
        {0, "0s"},
        {1, "1ns"},
        {999, "999ns"},
        {1000, "1\xc2\xb5s"},
        {1500, "1.5\xc2\xb5s"},
        {1000000, "1ms"},
        {1500000, "1.5ms"},
        {1000000000, "1s"},
        {1500000000, "1.5s"},
        {60000000000LL, "1m0s"},
        {3600000000000LL, "1h0m0s"},
        {3723500000000LL, "1h2m3.5s"},
        {-90000000000LL, "-1m30s"},
        {INT64_MAX, "2562047h47m16.854775807s"},
        {INT64_MIN, "-2562047h47m16.854775808s"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kg_json *v = kg_api_pb_duration(&A, cases[i].ns);
        assert_string_equal(v->u.s, cases[i].want);
    }
}

static void test_bytes_maps_and_unknown_fields(void **s)
{
    (void)s;
    kg_buf raw = KG_BUF_INIT;
    meta(&raw, "cm", "ns1");
    /* unknown fields of every wire type, including a nested group, are skipped */
    u(&raw, 99, 12345);
    tag(&raw, 98, 5);
    kg_buf_append(&raw, "\x01\x02\x03\x04", 4);
    tag(&raw, 97, 1);
    kg_buf_append(&raw, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
    str(&raw, 96, "ignored");
    tag(&raw, 95, 3);
    u(&raw, 1, 7);
    tag(&raw, 94, 3);
    tag(&raw, 94, 4);
    tag(&raw, 95, 4);
    map_ss(&raw, 2, "a", "1");
    map_ss(&raw, 2, "b", "x");
    map_ss(&raw, 2, "a", "2"); /* duplicate key: the last value wins, as in a Go map */
    static const char *const bins[] = {"", "f", "fo", "foo", "foob", "\xff\x00\xfe"};
    static const char *const keys[] = {"e0", "e1", "e2", "e3", "e4", "bin"};
    static const size_t lens[] = {0, 1, 2, 3, 4, 3};
    for (int i = 0; i < 6; i++) {
        kg_buf e = KG_BUF_INIT;
        str(&e, 1, keys[i]);
        bytes(&e, 2, bins[i], lens[i]);
        msg(&raw, 3, &e);
    }
    {
        kg_buf e = KG_BUF_INIT; /* an entry without a value: Go stores the zero value */
        str(&e, 1, "novalue");
        msg(&raw, 2, &e);
    }
    u(&raw, 4, 0); /* immutable: false (pointer, kept) */
    kg_buf body = KG_BUF_INIT;
    envelope(&body, "v1", "ConfigMap", &raw);
    kg_error err;
    kg_json *got = decode_buf(&body, &err);
    if (!got)
        fail_msg("%s", err.msg);
    assert_json_eq(got,
                   "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                   "\"metadata\":{\"name\":\"cm\",\"namespace\":\"ns1\",\"creationTimestamp\":null},"
                   "\"data\":{\"a\":\"2\",\"b\":\"x\",\"novalue\":\"\"},"
                   "\"binaryData\":{\"e0\":\"\",\"e1\":\"Zg==\",\"e2\":\"Zm8=\",\"e3\":\"Zm9v\",\"e4\":\"Zm9vYg==\","
                   "\"bin\":\"/wD+\"},\"immutable\":false}");
    kg_json *data = kg_json_get(got, "data");
    assert_int_equal(data->len, 3);
    assert_string_equal(data->u.members[0].key, "a"); /* first position kept */
}

static void test_big_map_dedupes_linearly(void **s)
{
    (void)s;
    kg_buf raw = KG_BUF_INIT, m = KG_BUF_INIT;
    str(&m, 1, "big");
    char k[32], v[32];
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 500; i++) {
            snprintf(k, sizeof k, "key-%d", i);
            snprintf(v, sizeof v, "v%d-%d", round, i);
            map_ss(&m, 11, k, v);
        }
    msg(&raw, 1, &m);
    kg_buf body = KG_BUF_INIT;
    envelope(&body, "v1", "Namespace", &raw);
    kg_error err;
    kg_json *got = decode_buf(&body, &err);
    if (!got)
        fail_msg("%s", err.msg);
    kg_json *labels = kg_json_path(got, "metadata.labels");
    assert_non_null(labels);
    assert_int_equal(labels->len, 500);
    for (int i = 0; i < 500; i++) {
        snprintf(k, sizeof k, "key-%d", i);
        snprintf(v, sizeof v, "v1-%d", i);
        assert_string_equal(labels->u.members[i].key, k);
        assert_string_equal(kg_json_get_str(labels, k), v);
    }
}

static void test_intorstring_quantity_rawextension(void **s)
{
    (void)s;
    /* Deployment strategy with IntOrString percent + number */
    kg_buf raw = KG_BUF_INIT, spec = KG_BUF_INIT, st = KG_BUF_INIT, ru = KG_BUF_INIT, mu = KG_BUF_INIT,
           ms = KG_BUF_INIT;
    meta(&raw, "d", "ns1");
    u(&spec, 1, 0); /* replicas: 0 is kept (pointer) */
    u(&mu, 1, 1);
    str(&mu, 3, "25%");
    msg(&ru, 1, &mu);
    u(&ms, 1, 0);
    u(&ms, 2, (uint64_t)(int64_t)-3); /* int32 sign extension */
    msg(&ru, 2, &ms);
    str(&st, 1, "RollingUpdate");
    msg(&st, 2, &ru);
    msg(&spec, 4, &st);
    u(&spec, 5, 0);
    u(&spec, 7, 0);
    msg(&raw, 2, &spec);
    kg_buf body = KG_BUF_INIT;
    envelope(&body, "apps/v1", "Deployment", &raw);
    kg_error err;
    kg_json *got = decode_buf(&body, &err);
    if (!got)
        fail_msg("%s", err.msg);
    assert_json_eq(got, "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
                        "\"metadata\":{\"name\":\"d\",\"namespace\":\"ns1\",\"creationTimestamp\":null},"
                        "\"spec\":{\"replicas\":0,\"strategy\":{\"type\":\"RollingUpdate\","
                        "\"rollingUpdate\":{\"maxUnavailable\":\"25%\",\"maxSurge\":-3}}}}");

    /* an IntOrString with an unknown type is rejected */
    kg_buf raw2 = KG_BUF_INIT, spec2 = KG_BUF_INIT, port = KG_BUF_INIT, is = KG_BUF_INIT;
    u(&is, 1, 2);
    msg(&port, 4, &is);
    u(&port, 3, 80);
    msg(&spec2, 1, &port);
    msg(&raw2, 2, &spec2);
    envelope(&body, "v1", "Service", &raw2);
    assert_null(decode_buf(&body, &err));
    assert_string_equal(err.msg, "decoding Service: impossible IntOrString.Type");

    /* ControllerRevision.data is a RawExtension: the embedded JSON becomes part of the document */
    kg_buf raw3 = KG_BUF_INIT, re = KG_BUF_INIT;
    meta(&raw3, "rev-1", "ns1");
    str(&re, 1, "{\"spec\":{\"template\":{\"x\":[1,2.5,true,null]}}}");
    msg(&raw3, 2, &re);
    u(&raw3, 3, 0);
    envelope(&body, "apps/v1", "ControllerRevision", &raw3);
    got = decode_buf(&body, &err);
    if (!got)
        fail_msg("%s", err.msg);
    assert_json_eq(got, "{\"apiVersion\":\"apps/v1\",\"kind\":\"ControllerRevision\","
                        "\"metadata\":{\"name\":\"rev-1\",\"namespace\":\"ns1\",\"creationTimestamp\":null},"
                        "\"data\":{\"spec\":{\"template\":{\"x\":[1,2.5,true,null]}}},\"revision\":0}");
    kg_buf raw4 = KG_BUF_INIT, re4 = KG_BUF_INIT;
    str(&re4, 1, "{not json");
    msg(&raw4, 2, &re4);
    envelope(&body, "apps/v1", "ControllerRevision", &raw4);
    assert_null(decode_buf(&body, &err));
    assert_true(strstr(err.msg, "decoding ControllerRevision: proto: RawExtension: invalid character") == err.msg);
}

static void test_delete_options_any_version(void **s)
{
    (void)s;
    const char *versions[] = {"v1", "apps/v1", "meta.k8s.io/v1"};
    for (int i = 0; i < 3; i++) {
        kg_buf raw = KG_BUF_INIT, pre = KG_BUF_INIT;
        u(&raw, 1, 0);
        str(&pre, 1, "uid-1");
        msg(&raw, 2, &pre);
        str(&raw, 4, "Foreground");
        str(&raw, 5, "All");
        kg_buf body = KG_BUF_INIT;
        envelope(&body, versions[i], "DeleteOptions", &raw);
        kg_error err;
        kg_json *got = decode_buf(&body, &err);
        if (!got)
            fail_msg("%s", err.msg);
        char want[512];
        snprintf(want, sizeof want,
                 "{\"apiVersion\":\"%s\",\"kind\":\"DeleteOptions\",\"gracePeriodSeconds\":0,"
                 "\"preconditions\":{\"uid\":\"uid-1\"},\"propagationPolicy\":\"Foreground\",\"dryRun\":[\"All\"]}",
                 versions[i]);
        assert_json_eq(got, want);
    }
}

static void test_supports(void **s)
{
    (void)s;
    assert_true(kg_protobuf_supports("v1", "Namespace"));
    assert_true(kg_protobuf_supports("apps/v1", "Deployment"));
    assert_true(kg_protobuf_supports("rbac.authorization.k8s.io/v1", "ClusterRole"));
    assert_true(kg_protobuf_supports("events.k8s.io/v1", "Event"));
    assert_true(kg_protobuf_supports("batch/v1", "DeleteOptions"));
    assert_false(kg_protobuf_supports("apps/v1", "Namespace"));
    assert_false(kg_protobuf_supports("v1", "Deployment"));
    assert_false(kg_protobuf_supports("v1", "Widget"));
    assert_false(kg_protobuf_supports(NULL, "Pod"));
    assert_false(kg_protobuf_supports("v1", NULL));
}

static void test_errors(void **s)
{
    (void)s;
    kg_error err;
    /* bad magic, empty body */
    assert_null(kg_protobuf_decode(&A, "{\"kind\":\"Pod\"}", 14, &err));
    assert_int_equal(err.code, KG_EINVAL);
    assert_string_equal(err.msg,
                        "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]");
    assert_null(kg_protobuf_decode(&A, "", 0, &err));
    assert_null(kg_protobuf_decode(&A, NULL, 0, &err));

    /* unknown kind, named in the message */
    kg_buf raw = KG_BUF_INIT, body = KG_BUF_INIT;
    envelope(&body, "example.com/v1", "Widget", &raw);
    assert_null(decode_buf(&body, &err));
    assert_string_equal(err.msg,
                        "no kind \"Widget\" is registered for version \"example.com/v1\" in the protobuf decoder");

    /* envelope without a kind */
    kg_buf_append(&body, "k8s\0", 4);
    assert_null(decode_buf(&body, &err));
    assert_string_equal(err.msg, "Object 'Kind' is missing in the protobuf envelope");

    /* compressed content encodings are not supported */
    kg_buf tm = KG_BUF_INIT;
    kg_buf_append(&body, "k8s\0", 4);
    str(&tm, 1, "v1");
    str(&tm, 2, "Namespace");
    msg(&body, 1, &tm);
    str(&body, 3, "gzip");
    assert_null(decode_buf(&body, &err));
    assert_string_equal(err.msg, "protobuf content encoding \"gzip\" is not supported");

    /* wrong wire type for a known field */
    kg_buf r2 = KG_BUF_INIT;
    str(&r2, 4, "yes");
    envelope(&body, "v1", "ConfigMap", &r2);
    assert_null(decode_buf(&body, &err));
    assert_string_equal(err.msg, "decoding ConfigMap: proto: wrong wireType = 2 for field ConfigMap.immutable");

    /* field number 0 */
    kg_buf r3 = KG_BUF_INIT;
    u(&r3, 0, 1);
    envelope(&body, "v1", "Secret", &r3);
    assert_null(decode_buf(&body, &err));
    assert_string_equal(err.msg, "decoding Secret: proto: Secret: illegal tag 0 (wire type 0)");

    /* varint longer than 10 bytes */
    kg_buf r4 = KG_BUF_INIT;
    tag(&r4, 99, 0);
    kg_buf_append(&r4, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11);
    envelope(&body, "v1", "Secret", &r4);
    assert_null(decode_buf(&body, &err));
    assert_string_equal(err.msg, "decoding Secret: proto: integer overflow");

    /* illegal wire types 6 and 7, stray end-group */
    for (unsigned wt = 4; wt <= 7; wt++) {
        kg_buf r5 = KG_BUF_INIT;
        tag(&r5, 77, wt);
        envelope(&body, "v1", "Secret", &r5);
        assert_null(decode_buf(&body, &err));
        if (wt == 4)
            assert_string_equal(err.msg, "decoding Secret: proto: unexpected end group");
        else if (wt >= 6) {
            char want[80];
            snprintf(want, sizeof want, "decoding Secret: proto: illegal wireType %u", wt);
            assert_string_equal(err.msg, want);
        }
    }

    /* groups nested deeper than the limit */
    kg_buf r6 = KG_BUF_INIT;
    for (int i = 0; i < 200; i++)
        tag(&r6, 50, 3);
    for (int i = 0; i < 200; i++)
        tag(&r6, 50, 4);
    envelope(&body, "v1", "Secret", &r6);
    assert_null(decode_buf(&body, &err));
    assert_string_equal(err.msg, "decoding Secret: proto: exceeded maximum nesting depth 100");

    /* a length prefix beyond the end of a nested message */
    kg_buf r7 = KG_BUF_INIT, m7 = KG_BUF_INIT;
    tag(&m7, 1, 2);
    pv(&m7, 1000);
    kg_buf_append(&m7, "ab", 2);
    msg(&r7, 1, &m7);
    envelope(&body, "v1", "Secret", &r7);
    assert_null(decode_buf(&body, &err));
    assert_string_equal(err.msg, "decoding Secret: proto: unexpected EOF");
}

static void test_invalid_utf8_is_replaced(void **s)
{
    (void)s;
    kg_buf raw = KG_BUF_INIT, m = KG_BUF_INIT;
    str(&m, 1, "ok-\xc3\xa9-\xe2\x82\xac");    /* valid 2- and 3-byte sequences stay */
    str(&m, 2, "bad-\xff-\xc3-\xed\xa0\x80!"); /* stray byte, truncated sequence, surrogate */
    msg(&raw, 1, &m);
    kg_buf body = KG_BUF_INIT;
    envelope(&body, "v1", "Namespace", &raw);
    kg_error err;
    kg_json *got = decode_buf(&body, &err);
    if (!got)
        fail_msg("%s", err.msg);
    assert_string_equal(kg_json_path_str(got, "metadata.name"), "ok-\xc3\xa9-\xe2\x82\xac");
    assert_string_equal(kg_json_path_str(got, "metadata.generateName"),
                        "bad-\xef\xbf\xbd-\xef\xbf\xbd-\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd!");
}

static void test_embedded_message_merge_and_repeats(void **s)
{
    (void)s;
    /* a singular message field sent twice is merged (proto semantics); a scalar sent twice keeps the last */
    kg_buf raw = KG_BUF_INIT, m1 = KG_BUF_INIT, m2 = KG_BUF_INIT, rr = KG_BUF_INIT;
    str(&m1, 1, "first");
    str(&m1, 3, "ns1");
    msg(&raw, 1, &m1);
    str(&m2, 1, "second");
    map_ss(&m2, 11, "a", "b");
    msg(&raw, 1, &m2);
    str(&rr, 1, "rbac.authorization.k8s.io");
    str(&rr, 2, "Role");
    str(&rr, 3, "r1");
    msg(&raw, 3, &rr);
    kg_buf body = KG_BUF_INIT;
    envelope(&body, "rbac.authorization.k8s.io/v1", "RoleBinding", &raw);
    kg_error err;
    kg_json *got = decode_buf(&body, &err);
    if (!got)
        fail_msg("%s", err.msg);
    assert_json_eq(got, "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"RoleBinding\","
                        "\"metadata\":{\"name\":\"second\",\"namespace\":\"ns1\",\"labels\":{\"a\":\"b\"}},"
                        "\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"Role\",\"name\":\"r1\"}}");
}

/* `kubectl create token sa1 -n ns1 --audience=api --audience=vault --duration=2h --bound-object-kind=Pod
 * --bound-object-name=p1 --bound-object-uid=uid-9` (kubectl v1.33; the command has no --dry-run, so the expected JSON
 * is written from the TokenRequest types: expirationSeconds is a *int64, the ObjectMeta is empty) */
static const unsigned char kubectl_token_pb[] = {
    0x6b, 0x38, 0x73, 0x00, 0x0a, 0x28, 0x0a, 0x18, 0x61, 0x75, 0x74, 0x68, 0x65, 0x6e, 0x74, 0x69, 0x63,
    0x61, 0x74, 0x69, 0x6f, 0x6e, 0x2e, 0x6b, 0x38, 0x73, 0x2e, 0x69, 0x6f, 0x2f, 0x76, 0x31, 0x12, 0x0c,
    0x54, 0x6f, 0x6b, 0x65, 0x6e, 0x52, 0x65, 0x71, 0x75, 0x65, 0x73, 0x74, 0x12, 0x3f, 0x0a, 0x10, 0x0a,
    0x00, 0x12, 0x00, 0x1a, 0x00, 0x22, 0x00, 0x2a, 0x00, 0x32, 0x00, 0x38, 0x00, 0x42, 0x00, 0x12, 0x25,
    0x0a, 0x03, 0x61, 0x70, 0x69, 0x0a, 0x05, 0x76, 0x61, 0x75, 0x6c, 0x74, 0x1a, 0x14, 0x0a, 0x03, 0x50,
    0x6f, 0x64, 0x12, 0x02, 0x76, 0x31, 0x1a, 0x02, 0x70, 0x31, 0x22, 0x05, 0x75, 0x69, 0x64, 0x2d, 0x39,
    0x20, 0xa0, 0x38, 0x1a, 0x04, 0x0a, 0x00, 0x12, 0x00, 0x1a, 0x00, 0x22, 0x00,
};

static void test_token_request_and_csr(void **s)
{
    (void)s;
    kg_error err;
    kg_json *got = kg_protobuf_decode(&A, kubectl_token_pb, sizeof kubectl_token_pb, &err);
    if (!got)
        fail_msg("%s", err.msg);
    assert_json_eq(got, "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"TokenRequest\","
                        "\"metadata\":{\"creationTimestamp\":null},\"spec\":{\"audiences\":[\"api\",\"vault\"],"
                        "\"expirationSeconds\":7200,\"boundObjectRef\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\","
                        "\"name\":\"p1\",\"uid\":\"uid-9\"}}}");

    /* CertificateSigningRequest as `kubectl certificate approve` PUTs it to /approval: bytes request, ExtraValue
     * map values (a message of repeated strings -> JSON array), status conditions */
    kg_buf raw = KG_BUF_INIT, spec = KG_BUF_INIT, st = KG_BUF_INIT, cond = KG_BUF_INIT, ts = KG_BUF_INIT;
    meta(&raw, "csr1", "");
    bytes(&spec, 1, "-----BEGIN", 10);
    str(&spec, 2, "alice");
    str(&spec, 3, "");
    str(&spec, 4, "system:authenticated");
    str(&spec, 5, "client auth");
    {
        kg_buf e = KG_BUF_INIT, ev = KG_BUF_INIT;
        str(&e, 1, "scopes");
        str(&ev, 1, "a");
        str(&ev, 1, "b");
        msg(&e, 2, &ev);
        msg(&spec, 6, &e);
        kg_buf e2 = KG_BUF_INIT, ev2 = KG_BUF_INIT;
        str(&e2, 1, "none");
        msg(&e2, 2, &ev2); /* an empty ExtraValue is an empty list */
        msg(&spec, 6, &e2);
    }
    str(&spec, 7, "kubernetes.io/kube-apiserver-client");
    u(&spec, 8, 86400);
    msg(&raw, 2, &spec);
    str(&cond, 1, "Approved");
    str(&cond, 2, "KubectlApprove");
    str(&cond, 3, "This CSR was approved by kubectl certificate approve.");
    u(&ts, 1, 1714557600);
    msg(&cond, 4, &ts);
    kg_buf ts2 = KG_BUF_INIT;
    msg(&cond, 5, &ts2);
    str(&cond, 6, "True");
    msg(&st, 1, &cond);
    msg(&raw, 3, &st);
    kg_buf body = KG_BUF_INIT;
    envelope(&body, "certificates.k8s.io/v1", "CertificateSigningRequest", &raw);
    got = decode_buf(&body, &err);
    if (!got)
        fail_msg("%s", err.msg);
    assert_json_eq(got,
                   "{\"apiVersion\":\"certificates.k8s.io/v1\",\"kind\":\"CertificateSigningRequest\","
                   "\"metadata\":{\"name\":\"csr1\",\"creationTimestamp\":null},"
                   "\"spec\":{\"request\":\"LS0tLS1CRUdJTg==\",\"username\":\"alice\","
                   "\"groups\":[\"system:authenticated\"],\"usages\":[\"client auth\"],"
                   "\"extra\":{\"scopes\":[\"a\",\"b\"],\"none\":[]},"
                   "\"signerName\":\"kubernetes.io/kube-apiserver-client\",\"expirationSeconds\":86400},"
                   "\"status\":{\"conditions\":[{\"type\":\"Approved\",\"reason\":\"KubectlApprove\","
                   "\"message\":\"This CSR was approved by kubectl certificate approve.\","
                   "\"lastUpdateTime\":\"2024-05-01T10:00:00Z\",\"lastTransitionTime\":null,\"status\":\"True\"}]}}");
}

static void test_webhooks_policies_nodes_volumes(void **s)
{
    (void)s;
    kg_error err;
    kg_buf body = KG_BUF_INIT;
    /* ValidatingWebhookConfiguration: Rule is embedded in RuleWithOperations (JSON inline), caBundle is bytes,
     * the pointer fields keep their zero values */
    {
        kg_buf raw = KG_BUF_INIT, wh = KG_BUF_INIT, cc = KG_BUF_INIT, svc = KG_BUF_INIT, rwo = KG_BUF_INIT,
               rule = KG_BUF_INIT;
        meta(&raw, "vwc", "");
        str(&wh, 1, "check.example.com");
        str(&svc, 1, "sys");
        str(&svc, 2, "hook");
        str(&svc, 3, "/validate");
        u(&svc, 4, 443);
        msg(&cc, 1, &svc);
        bytes(&cc, 2, "CA", 2);
        msg(&wh, 2, &cc);
        str(&rwo, 1, "CREATE");
        str(&rule, 1, "");
        str(&rule, 2, "v1");
        str(&rule, 3, "pods");
        str(&rule, 4, "Namespaced");
        msg(&rwo, 2, &rule);
        msg(&wh, 3, &rwo);
        str(&wh, 4, "Fail");
        str(&wh, 6, "None");
        u(&wh, 7, 0);
        str(&wh, 8, "v1");
        msg(&raw, 2, &wh);
        envelope(&body, "admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", &raw);
        kg_json *got = decode_buf(&body, &err);
        if (!got)
            fail_msg("%s", err.msg);
        assert_json_eq(got, "{\"apiVersion\":\"admissionregistration.k8s.io/v1\","
                            "\"kind\":\"ValidatingWebhookConfiguration\","
                            "\"metadata\":{\"name\":\"vwc\",\"creationTimestamp\":null},"
                            "\"webhooks\":[{\"name\":\"check.example.com\",\"clientConfig\":{\"service\":"
                            "{\"namespace\":\"sys\",\"name\":\"hook\",\"path\":\"/validate\",\"port\":443},"
                            "\"caBundle\":\"Q0E=\"},\"rules\":[{\"operations\":[\"CREATE\"],\"apiGroups\":[\"\"],"
                            "\"apiVersions\":[\"v1\"],\"resources\":[\"pods\"],\"scope\":\"Namespaced\"}],"
                            "\"failurePolicy\":\"Fail\",\"sideEffects\":\"None\",\"timeoutSeconds\":0,"
                            "\"admissionReviewVersions\":[\"v1\"]}]}");
    }
    /* ValidatingAdmissionPolicy: NamedRuleWithOperations inlines RuleWithOperations which inlines Rule */
    {
        kg_buf raw = KG_BUF_INIT, spec = KG_BUF_INIT, mr = KG_BUF_INIT, nr = KG_BUF_INIT, rwo = KG_BUF_INIT,
               rule = KG_BUF_INIT, v = KG_BUF_INIT;
        meta(&raw, "vap", "");
        str(&rule, 1, "apps");
        str(&rule, 2, "v1");
        str(&rule, 3, "deployments");
        str(&rwo, 1, "CREATE");
        str(&rwo, 1, "UPDATE");
        msg(&rwo, 2, &rule);
        msg(&nr, 2, &rwo);
        msg(&mr, 3, &nr);
        msg(&spec, 2, &mr);
        str(&v, 1, "object.spec.replicas <= 5");
        str(&v, 2, "");
        msg(&spec, 3, &v);
        str(&spec, 4, "Fail");
        msg(&raw, 2, &spec);
        envelope(&body, "admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy", &raw);
        kg_json *got = decode_buf(&body, &err);
        if (!got)
            fail_msg("%s", err.msg);
        assert_json_eq(got,
                       "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":\"ValidatingAdmissionPolicy\","
                       "\"metadata\":{\"name\":\"vap\",\"creationTimestamp\":null},"
                       "\"spec\":{\"matchConstraints\":{\"resourceRules\":[{\"operations\":[\"CREATE\",\"UPDATE\"],"
                       "\"apiGroups\":[\"apps\"],\"apiVersions\":[\"v1\"],\"resources\":[\"deployments\"]}]},"
                       "\"validations\":[{\"expression\":\"object.spec.replicas <= 5\"}],\"failurePolicy\":\"Fail\"}}");
    }
    /* PersistentVolume: the volume source is inlined in the spec */
    {
        kg_buf raw = KG_BUF_INIT, spec = KG_BUF_INIT, hp = KG_BUF_INIT;
        meta(&raw, "pv1", "");
        map_sq(&spec, 1, "storage", "10Gi");
        str(&hp, 1, "/data/pv1");
        kg_buf src = KG_BUF_INIT;
        msg(&src, 3, &hp);
        msg(&spec, 2, &src);
        str(&spec, 3, "ReadWriteOnce");
        str(&spec, 5, "Retain");
        str(&spec, 6, "manual");
        msg(&raw, 2, &spec);
        envelope(&body, "v1", "PersistentVolume", &raw);
        kg_json *got = decode_buf(&body, &err);
        if (!got)
            fail_msg("%s", err.msg);
        assert_json_eq(got, "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolume\","
                            "\"metadata\":{\"name\":\"pv1\",\"creationTimestamp\":null},"
                            "\"spec\":{\"capacity\":{\"storage\":\"10Gi\"},\"hostPath\":{\"path\":\"/data/pv1\"},"
                            "\"accessModes\":[\"ReadWriteOnce\"],\"persistentVolumeReclaimPolicy\":\"Retain\","
                            "\"storageClassName\":\"manual\"}}");
    }
    /* Node taints and RuntimeClass scheduling */
    {
        kg_buf raw = KG_BUF_INIT, spec = KG_BUF_INIT, taint = KG_BUF_INIT;
        meta(&raw, "node-1", "");
        str(&spec, 1, "10.0.0.0/24");
        u(&spec, 4, 1);
        str(&taint, 1, "dedicated");
        str(&taint, 2, "gpu");
        str(&taint, 3, "NoSchedule");
        msg(&spec, 5, &taint);
        str(&spec, 7, "10.0.0.0/24");
        msg(&raw, 2, &spec);
        envelope(&body, "v1", "Node", &raw);
        kg_json *got = decode_buf(&body, &err);
        if (!got)
            fail_msg("%s", err.msg);
        assert_json_eq(got, "{\"apiVersion\":\"v1\",\"kind\":\"Node\","
                            "\"metadata\":{\"name\":\"node-1\",\"creationTimestamp\":null},"
                            "\"spec\":{\"podCIDR\":\"10.0.0.0/24\",\"podCIDRs\":[\"10.0.0.0/24\"],"
                            "\"unschedulable\":true,\"taints\":[{\"key\":\"dedicated\",\"value\":\"gpu\","
                            "\"effect\":\"NoSchedule\"}]}}");
        kg_buf raw2 = KG_BUF_INIT, ov = KG_BUF_INIT, sch = KG_BUF_INIT, tol = KG_BUF_INIT;
        meta(&raw2, "gvisor", "");
        str(&raw2, 2, "runsc");
        map_sq(&ov, 1, "cpu", "250m");
        msg(&raw2, 3, &ov);
        map_ss(&sch, 1, "runtime", "gvisor");
        str(&tol, 1, "runtime");
        str(&tol, 2, "Exists");
        msg(&sch, 2, &tol);
        msg(&raw2, 4, &sch);
        envelope(&body, "node.k8s.io/v1", "RuntimeClass", &raw2);
        got = decode_buf(&body, &err);
        if (!got)
            fail_msg("%s", err.msg);
        assert_json_eq(got,
                       "{\"apiVersion\":\"node.k8s.io/v1\",\"kind\":\"RuntimeClass\","
                       "\"metadata\":{\"name\":\"gvisor\",\"creationTimestamp\":null},\"handler\":\"runsc\","
                       "\"overhead\":{\"podFixed\":{\"cpu\":\"250m\"}},\"scheduling\":{\"nodeSelector\":"
                       "{\"runtime\":\"gvisor\"},\"tolerations\":[{\"key\":\"runtime\",\"operator\":\"Exists\"}]}}");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_kubectl_bodies, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kubectl_truncated_bodies_fail_cleanly, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pod_spec_fields, setup, teardown),
        cmocka_unit_test_setup_teardown(test_times, setup, teardown),
        cmocka_unit_test_setup_teardown(test_duration_strings, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bytes_maps_and_unknown_fields, setup, teardown),
        cmocka_unit_test_setup_teardown(test_big_map_dedupes_linearly, setup, teardown),
        cmocka_unit_test_setup_teardown(test_intorstring_quantity_rawextension, setup, teardown),
        cmocka_unit_test_setup_teardown(test_delete_options_any_version, setup, teardown),
        cmocka_unit_test_setup_teardown(test_supports, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_invalid_utf8_is_replaced, setup, teardown),
        cmocka_unit_test_setup_teardown(test_embedded_message_merge_and_repeats, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_request_and_csr, setup, teardown),
        cmocka_unit_test_setup_teardown(test_webhooks_policies_nodes_volumes, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
