/* admin.kubeconfig writer (the layout `kubectl config view --raw` prints). */
#include "server/kubeconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "json/json.h"
#include "base/base64.h"
#include "base/str.h"

/* A YAML scalar: plain when it is unambiguous, else a JSON (= YAML double-quoted) string. */
static void put_scalar(kg_buf *out, const char *s)
{
    bool plain = *s != '\0';
    for (const char *p = s; *p && plain; p++) {
        char c = *p;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("._/-+=[]:@", c)))
            plain = false;
    }
    if (plain && (strchr("-:[]", s[0]) || strstr(s, ": ") || s[strlen(s) - 1] == ':'))
        plain = false;
    static const char *const reserved[] = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"};
    for (size_t i = 0; plain && i < sizeof(reserved) / sizeof(reserved[0]); i++)
        if (!strcasecmp(s, reserved[i]))
            plain = false;
    if (plain) {
        bool numeric = true;
        for (const char *p = s; *p; p++)
            if (!((*p >= '0' && *p <= '9') || *p == '.' || *p == '+' || *p == '-' || *p == 'e' || *p == 'E'))
                numeric = false;
        if (numeric)
            plain = false;
    }
    if (plain)
        kg_buf_puts(out, s);
    else
        kg_json_write_string(out, s, strlen(s), KG_JSON_WRITE_NO_ESCAPE_HTML);
}

void kg_kubeconfig_render(kg_buf *out, const kg_kubeconfig *kc)
{
    const char *cluster = kc->cluster ? kc->cluster : "kgate";
    const char *user = kc->user ? kc->user : "kgate-admin";
    const char *context = kc->context ? kc->context : "kgate";
    kg_buf_puts(out, "apiVersion: v1\nclusters:\n- cluster:\n");
    if (kc->ca_pem && *kc->ca_pem) {
        kg_buf_puts(out, "    certificate-authority-data: ");
        kg_base64_encode_buf(out, kc->ca_pem, strlen(kc->ca_pem), 0);
        kg_buf_putc(out, '\n');
    }
    kg_buf_puts(out, "    server: ");
    put_scalar(out, kc->server);
    kg_buf_puts(out, "\n  name: ");
    put_scalar(out, cluster);
    kg_buf_puts(out, "\ncontexts:\n- context:\n    cluster: ");
    put_scalar(out, cluster);
    kg_buf_puts(out, "\n    user: ");
    put_scalar(out, user);
    kg_buf_puts(out, "\n  name: ");
    put_scalar(out, context);
    kg_buf_puts(out, "\ncurrent-context: ");
    put_scalar(out, context);
    kg_buf_puts(out, "\nkind: Config\npreferences: {}\nusers:\n- name: ");
    put_scalar(out, user);
    kg_buf_puts(out, "\n  user:\n    token: ");
    put_scalar(out, kc->token ? kc->token : "");
    kg_buf_putc(out, '\n');
}

bool kg_kubeconfig_write(const char *path, const kg_kubeconfig *kc, kg_error *err)
{
    kg_buf b = KG_BUF_INIT;
    kg_kubeconfig_render(&b, kc);
    /* unchanged: leave the file alone (a restart on a full disk must not need space) */
    size_t old_len = 0;
    char *old = kg_read_file(path, &old_len);
    bool same = old && old_len == b.len && !memcmp(old, b.data, b.len);
    free(old);
    if (same) {
        kg_buf_free(&b);
        return true;
    }
    char *tmp = NULL;
    if (asprintf(&tmp, "%s.tmp.%d", path, (int)getpid()) < 0)
        abort();
    bool ok = false;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        kg_err_set(err, KG_EIO, "open %s: %s", tmp, strerror(errno));
        goto out;
    }
    size_t off = 0;
    while (off < b.len) {
        ssize_t w = write(fd, b.data + off, b.len - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            kg_err_set(err, KG_EIO, "write %s: %s", tmp, strerror(errno));
            close(fd);
            unlink(tmp);
            goto out;
        }
        off += (size_t)w;
    }
    /* no fsync: kgate serve writes this file anew at every start before it reports running, so after a crash
     * nothing reads a torn copy for long; the rename keeps readers from seeing a partial one (and off the start-up
     * critical path: a sync there cost 5-45 ms on a busy disk) */
    if (close(fd) != 0) {
        kg_err_set(err, KG_EIO, "write %s: %s", tmp, strerror(errno));
        unlink(tmp);
        goto out;
    }
    if (rename(tmp, path) != 0) {
        kg_err_set(err, KG_EIO, "rename %s: %s", path, strerror(errno));
        unlink(tmp);
        goto out;
    }
    ok = true;
out:
    free(tmp);
    kg_buf_free(&b);
    return ok;
}

char *kg_kubeconfig_server_url(const char *bind_address, int port, bool tls)
{
    const char *host = bind_address && *bind_address ? bind_address : "127.0.0.1";
    if (!strcmp(host, "0.0.0.0"))
        host = "127.0.0.1";
    else if (!strcmp(host, "::") || !strcmp(host, "[::]"))
        host = "::1";
    char *r = NULL;
    bool v6 = strchr(host, ':') && host[0] != '[';
    if (asprintf(&r, "%s://%s%s%s:%d", tls ? "https" : "http", v6 ? "[" : "", host, v6 ? "]" : "", port) < 0)
        abort();
    return r;
}
