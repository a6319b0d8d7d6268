/* A small fast HTTPS AdmissionReview webhook for the webhook benchmarks (libmicrohttpd + GnuTLS, a thread per
 * connection, keep-alive): every path allows and echoes request.uid (found by a scan, not a JSON parse: kgate writes
 * request.uid first); "/sleep10" answers after 10 ms. Prints its port on stdout once listening.
 * Usage: bench_hookd CERT.pem KEY.pem */
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct upload {
    char *data;
    size_t len, cap;
} upload;

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (!s || fread(s, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(s);
        return NULL;
    }
    s[n] = 0;
    fclose(f);
    return s;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                               const char *version, const char *data, size_t *data_size, void **con_cls)
{
    (void)cls, (void)method, (void)version;
    upload *u = *con_cls;
    if (!u) {
        *con_cls = calloc(1, sizeof(upload));
        return *con_cls ? MHD_YES : MHD_NO;
    }
    if (*data_size) {
        if (u->len + *data_size + 1 > u->cap) {
            u->cap = (u->len + *data_size + 1) * 2;
            u->data = realloc(u->data, u->cap);
            if (!u->data)
                return MHD_NO;
        }
        memcpy(u->data + u->len, data, *data_size);
        u->len += *data_size;
        u->data[u->len] = 0;
        *data_size = 0;
        return MHD_YES;
    }
    const char *uid = "", *end = NULL;
    const char *rq = u->data ? strstr(u->data, "\"request\"") : NULL;
    const char *p = rq ? strstr(rq, "\"uid\":\"") : NULL;
    if (p) {
        uid = p + 7;
        end = strchr(uid, '"');
    }
    int ulen = end ? (int)(end - uid) : 0;
    if (!strcmp(url, "/sleep10"))
        usleep(10000);
    char body[256];
    int n = snprintf(body, sizeof body,
                     "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":"
                     "\"%.*s\",\"allowed\":true}}",
                     ulen, uid);
    struct MHD_Response *r = MHD_create_response_from_buffer((size_t)n, body, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(r, "Content-Type", "application/json");
    enum MHD_Result ret = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    return ret;
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode t)
{
    (void)cls, (void)c, (void)t;
    upload *u = *con_cls;
    if (u) {
        free(u->data);
        free(u);
    }
    *con_cls = NULL;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_hookd CERT KEY\n");
        return 2;
    }
    char *cert = slurp(argv[1]), *key = slurp(argv[2]);
    if (!cert || !key) {
        fprintf(stderr, "bench_hookd: cannot read the certificate or key\n");
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_TLS, 0, NULL, NULL, handler, NULL,
        MHD_OPTION_HTTPS_MEM_KEY, key, MHD_OPTION_HTTPS_MEM_CERT, cert, MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
        MHD_OPTION_CONNECTION_TIMEOUT, 120u, MHD_OPTION_END);
    if (!d) {
        fprintf(stderr, "bench_hookd: cannot start\n");
        return 1;
    }
    printf("%u\n", (unsigned)MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port);
    fflush(stdout);
    pause();
    return 0;
}
