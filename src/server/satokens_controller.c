/* The legacy tokens controller (kube-controller-manager's TokensController, pkg/controller/serviceaccount/
 * tokens_controller.go), for Secrets a user creates with type kubernetes.io/service-account-token and the
 * annotation kubernetes.io/service-account.name:
 *   - the ServiceAccount missing, or its uid not the Secret's kubernetes.io/service-account.uid annotation → the
 *     Secret is deleted (its token could never authenticate);
 *   - otherwise the controller fills data.token (a legacy token, issuer "kubernetes/serviceaccount", signed with the
 *     service-account signing key), data["ca.crt"] (the cluster CA) and data.namespace, and sets the uid
 *     annotation — each only when missing or different, so an existing token is never replaced.
 * Fed by the Secrets cache: events put the Secret's key on a bounded queue drained by one worker thread; when the
 * queue is full, or after a relist, the worker rescans every Secret of the cache instead (nothing is lost, memory
 * stays bounded). Reads and writes go through the loopback client (authoritative reads, resourceVersion
 * preconditions: a concurrent change just requeues). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/serviceaccount/jwt.h"
#include "base/base64.h"
#include "base/log.h"
#include "meta/object.h"
#include "server/apiserver.h"
#include "server/cache.h"
#include "server/loopback.h"
#include "server/satoken.h"

#define TOKEN_TYPE "kubernetes.io/service-account-token"
#define NAME_ANNOTATION "kubernetes.io/service-account.name"
#define UID_ANNOTATION "kubernetes.io/service-account.uid"
#define QUEUE_CAP 1024
#define KEY_MAX 320

struct kg_satokens_controller {
    kg_satoken *t;
    kg_controller_client client;
    const char *ca_pem;
    uint64_t sub;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char (*queue)[KEY_MAX]; /* "ns/name" */
    size_t head, len;
    bool rescan, stop;
};

static bool is_token_secret(const kg_json *o)
{
    const char *type = kg_json_get_str(o, "type");
    return type && !strcmp(type, TOKEN_TYPE);
}

static void on_secret(void *ud, const kg_admission_event *ev)
{
    kg_satokens_controller *c = ud;
    if (ev->type == KG_ADMISSION_EVENT_DELETED ||
        (ev->type != KG_ADMISSION_EVENT_RESYNC && !is_token_secret(ev->object)))
        return;
    pthread_mutex_lock(&c->mu);
    if (ev->type == KG_ADMISSION_EVENT_RESYNC || c->len == QUEUE_CAP ||
        strlen(ev->ns) + strlen(ev->name) + 2 > KEY_MAX) {
        c->rescan = true;
    } else {
        snprintf(c->queue[(c->head + c->len) % QUEUE_CAP], KEY_MAX, "%s/%s", ev->ns, ev->name);
        c->len++;
    }
    pthread_cond_signal(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

static kg_json *b64(kg_arena *a, const char *s)
{
    return kg_json_new_str(a, kg_base64_encode(a, s, strlen(s), 0, NULL));
}

/* Bring one Secret in line; false when it should be retried (a conflict). */
static bool sync_secret(kg_satokens_controller *c, const char *ns, const char *name, kg_arena *a)
{
    const kg_controller_client *cl = &c->client;
    KG_ERROR_DECL(err);
    kg_json *s = cl->get(cl->ctx, a, "secrets", ns, name, &err);
    if (!s || !is_token_secret(s))
        return true;
    const char *dt = kg_meta_deletion_timestamp(s);
    if (dt && *dt)
        return true;
    const char *sa_name = kg_meta_annotation(s, NAME_ANNOTATION);
    const char *want_uid = kg_meta_annotation(s, UID_ANNOTATION);
    kg_json *sa = sa_name ? cl->get(cl->ctx, a, "serviceaccounts", ns, sa_name, &err) : NULL;
    const char *sa_uid = sa ? kg_meta_uid(sa) : NULL;
    if (!sa || !sa_uid || (want_uid && *want_uid && strcmp(want_uid, sa_uid))) {
        if (!sa && err.code != KG_ENOTFOUND && sa_name)
            return true; /* a store failure: not a reason to delete */
        KG_V(1, "tokens controller: deleting secret %s/%s: its service account %s does not exist", ns, name,
             sa_name ? sa_name : "(none)");
        if (!cl->delete_object(cl->ctx, a, "secrets", ns, name, kg_meta_resource_version(s), &err))
            return err.code != KG_ECONFLICT;
        return true;
    }
    kg_json *data = kg_json_get(s, "data");
    if (!kg_json_is(data, KG_JSON_OBJECT)) {
        data = kg_json_new_object(a);
        kg_json_set(a, s, "data", data);
    }
    bool changed = false;
    const char *have_ca = kg_json_get_str(data, "ca.crt");
    kg_json *want_ca = b64(a, c->ca_pem);
    if (*c->ca_pem && (!have_ca || strcmp(have_ca, want_ca->u.s))) {
        kg_json_set(a, data, "ca.crt", want_ca);
        changed = true;
    }
    const char *have_ns = kg_json_get_str(data, "namespace");
    kg_json *want_ns = b64(a, ns);
    if (!have_ns || strcmp(have_ns, want_ns->u.s)) {
        kg_json_set(a, data, "namespace", want_ns);
        changed = true;
    }
    const char *have_tok = kg_json_get_str(data, "token");
    if (!have_tok || !*have_tok) {
        if (!c->t->keys->signing.pkey)
            return true;
        char *tok = kg_jwt_sign(a, &c->t->keys->signing, kg_sa_legacy_claims(a, ns, name, sa_name, sa_uid), &err);
        if (!tok) {
            KG_WARN("tokens controller: %s/%s: %s", ns, name, err.msg);
            return true;
        }
        kg_json_set(a, data, "token", b64(a, tok));
        changed = true;
    }
    if (!want_uid || !*want_uid) {
        kg_json *md = kg_json_get_or_add_object(a, s, "metadata");
        kg_json *ann = kg_json_get_or_add_object(a, md, "annotations");
        kg_json_set(a, ann, UID_ANNOTATION, kg_json_new_str(a, sa_uid));
        changed = true;
    }
    if (changed && !cl->update(cl->ctx, a, "secrets", ns, s, &err)) {
        if (err.code == KG_ECONFLICT)
            return false;
        if (err.code != KG_ENOTFOUND)
            KG_WARN("tokens controller: updating secret %s/%s: %s", ns, name, err.msg);
    }
    return true;
}

static void rescan(kg_satokens_controller *c, kg_arena *a)
{
    kg_json_shared **docs = NULL;
    KG_ERROR_DECL(err);
    size_t n = kg_cache_view_list(c->t->s->caches, kg_resource_find("", "v1", "secrets"), "", a, &docs, &err);
    for (size_t i = 0; n != (size_t)-1 && i < n; i++) {
        const kg_json *o = kg_json_shared_root(docs[i]);
        if (is_token_secret(o))
            for (int attempt = 0; attempt < 3 && !sync_secret(c, kg_meta_namespace(o), kg_meta_name(o), a); attempt++)
                ;
    }
}

static void *worker(void *ud)
{
    kg_satokens_controller *c = ud;
    kg_arena a;
    kg_arena_init(&a, 0);
    pthread_mutex_lock(&c->mu);
    while (!c->stop) {
        if (!c->len && !c->rescan) {
            pthread_cond_wait(&c->cv, &c->mu);
            continue;
        }
        bool full = c->rescan;
        char key[KEY_MAX];
        if (full) {
            c->rescan = false;
            c->len = 0;
        } else {
            memcpy(key, c->queue[c->head], KEY_MAX);
            c->head = (c->head + 1) % QUEUE_CAP;
            c->len--;
        }
        pthread_mutex_unlock(&c->mu);
        if (full) {
            rescan(c, &a);
        } else {
            char *slash = strchr(key, '/');
            *slash = 0;
            for (int attempt = 0; attempt < 3 && !sync_secret(c, key, slash + 1, &a); attempt++)
                ;
        }
        kg_arena_reset(&a);
        pthread_mutex_lock(&c->mu);
    }
    pthread_mutex_unlock(&c->mu);
    kg_arena_free(&a);
    return NULL;
}

kg_satokens_controller *kg_satokens_controller_start(kg_satoken *t, const char *ca_pem)
{
    kg_satokens_controller *c = calloc(1, sizeof *c);
    if (!c)
        abort();
    c->t = t;
    c->client = kg_apiserver_loopback_client(t->s);
    c->ca_pem = ca_pem ? ca_pem : "";
    c->queue = calloc(QUEUE_CAP, KEY_MAX);
    if (!c->queue)
        abort();
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    c->rescan = true; /* Secrets created while the server was down */
    pthread_create(&c->thread, NULL, worker, c);
    c->sub = kg_cache_subscribe(t->s->caches, kg_resource_find("", "v1", "secrets"), on_secret, c);
    return c;
}

void kg_satokens_controller_stop(kg_satokens_controller *c)
{
    if (!c)
        return;
    kg_cache_unsubscribe(c->t->s->caches, c->sub);
    pthread_mutex_lock(&c->mu);
    c->stop = true;
    pthread_cond_signal(&c->cv);
    pthread_mutex_unlock(&c->mu);
    pthread_join(c->thread, NULL);
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->cv);
    free(c->queue);
    free(c);
}
