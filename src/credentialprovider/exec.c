/* The exec protocol: CredentialProviderRequest on stdin, the provider's args and env, a deadline after which the
 * plugin (its whole process group) is killed, and strict decoding of the CredentialProviderResponse on stdout. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "credentialprovider/credentialprovider.h"

extern char **environ;

#define MAX_OUTPUT (16u << 20)
#define RESP_GROUP "credentialprovider.kubelet.k8s.io"

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int cmp_member(const void *x, const void *y)
{
    return strcmp(((const kg_json_member *)x)->key, ((const kg_json_member *)y)->key);
}

static char *encode_request(kg_arena *a, const kg_cred_provider *p, const char *image, const char *token,
                            const kg_json *annotations, size_t *len)
{
    kg_json *req = kg_json_new_object(a);
    kg_json_set(a, req, "kind", kg_json_new_str(a, "CredentialProviderRequest"));
    kg_json_set(a, req, "apiVersion", kg_json_new_str(a, p->api_version));
    kg_json_set(a, req, "image", kg_json_new_str(a, image));
    if (!strcmp(p->api_version, KG_CRED_API_V1)) {
        if (token && *token)
            kg_json_set(a, req, "serviceAccountToken", kg_json_new_str(a, token));
        if (annotations && annotations->type == KG_JSON_OBJECT && annotations->len > 0) {
            kg_json *ann = kg_json_clone(a, annotations);
            qsort(ann->u.members, ann->len, sizeof(kg_json_member), cmp_member); /* Go sorts map keys */
            kg_json_set(a, req, "serviceAccountAnnotations", ann);
        }
    }
    kg_buf b = KG_BUF_INIT;
    kg_json_write(&b, req, 0);
    kg_buf_putc(&b, '\n');
    char *s = kg_arena_strndup(a, b.data, b.len);
    *len = b.len;
    kg_buf_free(&b);
    return s;
}

/* os.Environ() followed by the provider's env; like Go's exec.Cmd, the last value of a name wins. */
static char **build_env(kg_arena *a, const kg_cred_provider *p)
{
    size_t ne = 0;
    while (environ && environ[ne])
        ne++;
    char **env = kg_arena_alloc(a, sizeof(char *) * (ne + p->n_env + 1));
    size_t n = 0;
    for (size_t i = 0; i < ne; i++) {
        const char *eq = strchr(environ[i], '=');
        size_t kn = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
        bool overridden = false;
        for (size_t j = 0; j < p->n_env && !overridden; j++)
            overridden = strlen(p->env[j].name) == kn && !memcmp(p->env[j].name, environ[i], kn);
        if (!overridden)
            env[n++] = environ[i];
    }
    for (size_t j = 0; j < p->n_env; j++) {
        bool later = false;
        for (size_t k = j + 1; k < p->n_env && !later; k++)
            later = !strcmp(p->env[k].name, p->env[j].name);
        if (!later)
            env[n++] = kg_arena_sprintf(a, "%s=%s", p->env[j].name, p->env[j].value);
    }
    env[n] = NULL;
    return env;
}

static void lower_first(char *s)
{
    if (s[0] >= 'A' && s[0] <= 'Z' && !(s[1] >= 'A' && s[1] <= 'Z'))
        s[0] = (char)(s[0] - 'A' + 'a');
}

typedef struct run_result {
    kg_buf out, errb;
    char failure[256]; /* "" on success; else Go's error text */
} run_result;

static void run_plugin(kg_arena *a, const kg_cred_provider *p, const kg_cred_options *o, const char *path,
                       const char *input, size_t input_len, run_result *r)
{
    int64_t timeout = o->exec_timeout_ms > 0 ? o->exec_timeout_ms : 60000;
    int64_t deadline = mono_ms() + timeout;
    int fds[4][2] = {{-1, -1}, {-1, -1}, {-1, -1}, {-1, -1}};
    for (int i = 0; i < 4; i++)
        if (pipe2(fds[i], O_CLOEXEC) != 0) {
            snprintf(r->failure, sizeof r->failure, "pipe: %s", strerror(errno));
            lower_first(r->failure + 6);
            for (int j = 0; j < i; j++) {
                close(fds[j][0]);
                close(fds[j][1]);
            }
            return;
        }
    int *in = fds[0], *out = fds[1], *er = fds[2], *ex = fds[3];
    const char **argv = kg_arena_alloc(a, sizeof(char *) * (p->n_args + 2));
    argv[0] = path;
    for (size_t i = 0; i < p->n_args; i++)
        argv[i + 1] = p->args[i];
    argv[p->n_args + 1] = NULL;
    char **envp = build_env(a, p);

    /* keep SIGPIPE from killing us if the plugin does not read its stdin */
    sigset_t pipeset, oldset;
    sigemptyset(&pipeset);
    sigaddset(&pipeset, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipeset, &oldset);

    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL);
        /* move the pipe ends above 2 first, so none is clobbered (or kept CLOEXEC) when the caller had 0-2 closed */
        int fi = fcntl(in[0], F_DUPFD_CLOEXEC, 10), fo = fcntl(out[1], F_DUPFD_CLOEXEC, 10),
            fe = fcntl(er[1], F_DUPFD_CLOEXEC, 10);
        dup2(fi, 0);
        dup2(fo, 1);
        dup2(fe, 2);
        /* like Go's os/exec, the plugin inherits only stdin, stdout and stderr */
        close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
        execve(path, (char *const *)argv, envp);
        int e = errno;
        if (write(ex[1], &e, sizeof e) < 0) {
        }
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    close(er[1]);
    close(ex[1]);
    if (pid < 0) {
        snprintf(r->failure, sizeof r->failure, "fork/exec %s: %s", path, strerror(errno));
        close(in[1]);
        close(out[0]);
        close(er[0]);
        close(ex[0]);
        pthread_sigmask(SIG_SETMASK, &oldset, NULL);
        return;
    }
    setpgid(pid, pid);
    int child_errno = 0;
    ssize_t got = read(ex[0], &child_errno, sizeof child_errno);
    close(ex[0]);
    if (got == (ssize_t)sizeof child_errno) {
        waitpid(pid, NULL, 0);
        char msg[128];
        snprintf(msg, sizeof msg, "%s", strerror(child_errno));
        lower_first(msg);
        snprintf(r->failure, sizeof r->failure, "fork/exec %s: %s", path, msg);
        close(in[1]);
        close(out[0]);
        close(er[0]);
        pthread_sigmask(SIG_SETMASK, &oldset, NULL);
        return;
    }
    fcntl(in[1], F_SETFL, O_NONBLOCK);
    size_t written = 0;
    int fd_in = in[1], fd_out = out[0], fd_err = er[0];
    if (input_len == 0) {
        close(fd_in);
        fd_in = -1;
    }
    bool timed_out = false;
    char chunk[8192];
    while (fd_in >= 0 || fd_out >= 0 || fd_err >= 0) {
        int64_t left = deadline - mono_ms();
        if (left <= 0) {
            timed_out = true;
            break;
        }
        struct pollfd pf[3];
        int np = 0;
        if (fd_in >= 0)
            pf[np++] = (struct pollfd){fd_in, POLLOUT, 0};
        if (fd_out >= 0)
            pf[np++] = (struct pollfd){fd_out, POLLIN, 0};
        if (fd_err >= 0)
            pf[np++] = (struct pollfd){fd_err, POLLIN, 0};
        int pr = poll(pf, (nfds_t)np, (int)(left > 1000 ? 1000 : left));
        if (pr < 0 && errno != EINTR)
            break;
        for (int i = 0; i < np && pr > 0; i++) {
            if (!pf[i].revents)
                continue;
            int fd = pf[i].fd;
            if (fd == fd_in) {
                ssize_t w = write(fd, input + written, input_len - written);
                if (w > 0)
                    written += (size_t)w;
                if ((w < 0 && errno != EAGAIN && errno != EINTR) || written == input_len) {
                    close(fd_in);
                    fd_in = -1;
                }
            } else {
                ssize_t n = read(fd, chunk, sizeof chunk);
                if (n > 0) {
                    kg_buf *b = fd == fd_out ? &r->out : &r->errb;
                    if (b->len + (size_t)n <= MAX_OUTPUT)
                        kg_buf_append(b, chunk, (size_t)n);
                } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                    close(fd);
                    if (fd == fd_out)
                        fd_out = -1;
                    else
                        fd_err = -1;
                }
            }
        }
    }
    int status = 0;
    pid_t w = 0;
    while (!timed_out) {
        w = waitpid(pid, &status, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR))
            break;
        if (mono_ms() >= deadline) {
            timed_out = true;
            break;
        }
        struct timespec ts = {0, 2 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    if (timed_out) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        snprintf(r->failure, sizeof r->failure, "context deadline exceeded");
    } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
        snprintf(r->failure, sizeof r->failure, "exit status %d", WEXITSTATUS(status));
    } else if (WIFSIGNALED(status)) {
        char sig[64];
        snprintf(sig, sizeof sig, "%s", strsignal(WTERMSIG(status)));
        for (char *c = sig; *c; c++)
            if (*c >= 'A' && *c <= 'Z')
                *c = (char)(*c - 'A' + 'a');
        snprintf(r->failure, sizeof r->failure, "signal: %s", sig);
    }
    if (fd_in >= 0)
        close(fd_in);
    if (fd_out >= 0)
        close(fd_out);
    if (fd_err >= 0)
        close(fd_err);
    /* consume a SIGPIPE raised by our writes, then restore the mask */
    struct timespec zero = {0, 0};
    while (sigtimedwait(&pipeset, NULL, &zero) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &oldset, NULL);
}

/* ---------------------------------------------------------------- response decoding */

/* GroupVersion().String() of schema.FromAPIVersionAndKind(apiVersion, kind). */
static const char *group_version_string(kg_arena *a, const char *apiv)
{
    const char *sl = strchr(apiv, '/');
    if (!sl)
        return apiv;
    if (strchr(sl + 1, '/'))
        return "";
    if (sl == apiv)
        return kg_arena_strdup(a, sl + 1);
    return apiv;
}

static bool strict_response(kg_arena *a, const kg_json *doc, kg_cred_response *out)
{
    static const char *const top[] = {"kind", "apiVersion", "cacheKeyType", "cacheDuration", "auth", NULL};
    for (uint32_t i = 0; i < doc->len; i++) {
        bool ok = false;
        for (const char *const *k = top; *k; k++)
            ok = ok || !strcmp(*k, doc->u.members[i].key);
        if (!ok)
            return false;
    }
    memset(out, 0, sizeof *out);
    out->cache_key_type = "";
    kg_json *v = kg_json_get(doc, "cacheKeyType");
    if (v && v->type != KG_JSON_NULL) {
        if (v->type != KG_JSON_STRING)
            return false;
        out->cache_key_type = v->u.s;
    }
    v = kg_json_get(doc, "cacheDuration");
    if (v && v->type != KG_JSON_NULL) {
        if (v->type != KG_JSON_STRING || !kg_credentialprovider_parse_duration(v->u.s, &out->cache_duration, NULL))
            return false;
        out->has_cache_duration = true;
    }
    out->auth = kg_json_new_object(a);
    v = kg_json_get(doc, "auth");
    if (v && v->type != KG_JSON_NULL) {
        if (v->type != KG_JSON_OBJECT)
            return false;
        for (uint32_t i = 0; i < v->len; i++) {
            kg_json *e = v->u.members[i].val;
            kg_json *entry = kg_json_new_object(a);
            const char *user = "", *pass = "";
            if (e->type != KG_JSON_NULL) {
                if (e->type != KG_JSON_OBJECT)
                    return false;
                for (uint32_t j = 0; j < e->len; j++) {
                    const char *k = e->u.members[j].key;
                    kg_json *ev = e->u.members[j].val;
                    if (strcmp(k, "username") && strcmp(k, "password"))
                        return false;
                    if (ev->type == KG_JSON_NULL)
                        continue;
                    if (ev->type != KG_JSON_STRING)
                        return false;
                    if (!strcmp(k, "username"))
                        user = ev->u.s;
                    else
                        pass = ev->u.s;
                }
            }
            kg_json_set(a, entry, "username", kg_json_new_str(a, user));
            kg_json_set(a, entry, "password", kg_json_new_str(a, pass));
            kg_json_setn(a, out->auth, v->u.members[i].key, v->u.members[i].key_len, entry);
        }
    }
    return true;
}

bool kg_credentialprovider_decode_response(kg_arena *a, const kg_cred_provider *p, const char *data, size_t len,
                                           kg_cred_response *out, kg_error *err)
{
    KG_ERROR_DECL(perr);
    kg_json *doc = kg_json_parse(a, data, len, &perr);
    kg_credentialprovider_go_json_error(perr.msg);
    if (!doc)
        return kg_err_set(err, KG_EINVAL,
                          "error reading GVK from response: couldn't get version/kind; json parse "
                          "error: %s",
                          perr.msg);
    if (doc->type != KG_JSON_OBJECT)
        return kg_err_set(err, KG_EINVAL,
                          "error reading GVK from response: couldn't get version/kind; json parse error: json: cannot "
                          "unmarshal %s into Go value of type struct { APIVersion string "
                          "\"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }",
                          doc->type == KG_JSON_ARRAY    ? "array"
                          : doc->type == KG_JSON_STRING ? "string"
                                                        : "number");
    const char *apiv = kg_json_get_str(doc, "apiVersion");
    const char *gv = group_version_string(a, apiv ? apiv : "");
    if (strcmp(gv, p->api_version) != 0)
        return kg_err_set(err, KG_EINVAL,
                          "apiVersion from credential plugin response did not match expected apiVersion:%s, actual "
                          "apiVersion:%s",
                          p->api_version, gv);
    /* strict: duplicate fields and unknown fields are errors; the detail is withheld (it may hold secrets) */
    kg_json *strict_doc = kg_json_parse_ex(a, data, len, KG_JSON_PARSE_DUP_ERROR, NULL, NULL);
    const char *kind = kg_json_get_str(doc, "kind");
    if (!strict_doc || !strict_response(a, strict_doc, out) || !kind || strcmp(kind, "CredentialProviderResponse"))
        return kg_err_set(err, KG_EINVAL, "error decoding credential provider plugin response from stdout");
    return true;
}

bool kg_credentialprovider_exec(kg_arena *a, const kg_cred_provider *p, const kg_cred_options *o, const char *image,
                                const char *token, const kg_json *annotations, kg_cred_response *out, kg_error *err)
{
    size_t in_len;
    char *in = encode_request(a, p, image, token, annotations, &in_len);
    const char *path = kg_arena_sprintf(a, "%s/%s", o->bin_dir ? o->bin_dir : ".", p->name);
    run_result r = {KG_BUF_INIT, KG_BUF_INIT, ""};
    run_plugin(a, p, o, path, in, in_len, &r);
    bool ok;
    if (r.failure[0]) {
        ok = kg_err_set(err, KG_EIO, "error execing credential provider plugin %s for image %s: %s: %s", p->name, image,
                        r.failure, kg_buf_cstr(&r.errb));
        if (!strcmp(r.failure, "context deadline exceeded") && err)
            err->code = KG_ETIMEOUT;
    } else {
        ok = kg_credentialprovider_decode_response(a, p, r.out.data ? r.out.data : "", r.out.len, out, err);
    }
    kg_buf_free(&r.out);
    kg_buf_free(&r.errb);
    return ok;
}
