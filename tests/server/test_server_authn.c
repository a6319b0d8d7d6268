/* Token file parsing (upstream tokenfile.NewCSV + Go encoding/csv), the admin token, bearer parsing, anonymous. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server/authn.h"

static char tmpdir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/kg-authn-XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static char *write_tmp(const char *name, const char *content)
{
    char *path = NULL;
    assert_true(asprintf(&path, "%s/%s", tmpdir, name) > 0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(content, f);
    fclose(f);
    return path;
}

typedef struct rows {
    int n;
    char text[32][256];
} rows;

static void collect(void *ud, const char *token, const char *user, const char *uid, const char *const *groups,
                    size_t ngroups)
{
    rows *r = ud;
    char *t = r->text[r->n++];
    int off = snprintf(t, 256, "%s|%s|%s|", token, user, uid);
    for (size_t i = 0; i < ngroups; i++)
        off += snprintf(t + off, 256 - (size_t)off, "%s[%s]", i ? "," : "", groups[i]);
    if (!groups)
        snprintf(t + off, 256 - (size_t)off, "-");
}

static void token_file_rows(void **state)
{
    (void)state;
    char *p = write_tmp("tokens.csv", "token1,alice,uid1,\"system:masters,devs\"\n"
                                      "\n"
                                      "token2,bob,uid2\r\n"
                                      "token3,\"carol, the \"\"admin\"\"\",uid3,ops\n"
                                      ",nobody,uid0\n"
                                      "token4,dave,uid4,,extra\n"
                                      "\"tok\nen5\",eve,uid5,\"\"\n"
                                      "token6, frank ,uid6\r");
    rows r = {0};
    kg_error err = {0};
    assert_true(kg_authn_parse_token_file(p, collect, &r, &err));
    assert_int_equal(r.n, 6); /* the empty-token row is skipped */
    assert_string_equal(r.text[0], "token1|alice|uid1|[system:masters],[devs]");
    assert_string_equal(r.text[1], "token2|bob|uid2|-");
    assert_string_equal(r.text[2], "token3|carol, the \"admin\"|uid3|[ops]");
    assert_string_equal(r.text[3], "token4|dave|uid4|[]"); /* strings.Split("", ",") is [""] */
    assert_string_equal(r.text[4], "tok\nen5|eve|uid5|[]");
    assert_string_equal(r.text[5], "token6| frank |uid6|-"); /* no trimming, no final newline needed */
    free(p);
}

static void token_file_errors(void **state)
{
    (void)state;
    static const struct {
        const char *content, *want;
    } cases[] = {
        {"token1,alice\n", "token file '%s' must have at least 3 columns (token, user name, user uid), found 2"},
        {"a,b,c\nonlyone\n", "token file '%s' must have at least 3 columns (token, user name, user uid), found 1"},
        {"a,b,c\nto\"ken,user,uid\n", "token file '%s': parse error on line 2, column 3: bare \" in non-quoted-field"},
        {"\"token\"x,user,uid\n",
         "token file '%s': parse error on line 1, column 7: extraneous or missing \" in quoted-field"},
        {"a,b,c\n\"tok\nen,user,uid\n",
         "token file '%s': record on line 2; parse error on line 3, column 13: extraneous or missing \" in "
         "quoted-field"},
        {"   \n", "token file '%s' must have at least 3 columns (token, user name, user uid), found 1"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char name[32];
        snprintf(name, sizeof(name), "bad%zu.csv", i);
        char *p = write_tmp(name, cases[i].content);
        rows r = {0};
        kg_error err = {0};
        assert_false(kg_authn_parse_token_file(p, collect, &r, &err));
        char want[512];
        snprintf(want, sizeof(want), cases[i].want, p);
        if (strcmp(err.msg, want))
            fail_msg("case %zu:\n got  %s\n want %s", i, err.msg, want);
        free(p);
    }
    kg_error err = {0};
    rows r = {0};
    char missing[300];
    snprintf(missing, sizeof(missing), "%s/nope.csv", tmpdir);
    assert_false(kg_authn_parse_token_file(missing, collect, &r, &err));
    char want[400];
    snprintf(want, sizeof(want), "open %s: no such file or directory", missing);
    assert_string_equal(err.msg, want);
}

/* A test token authenticator: "jwt-ok" is its user, "jwt-bad" is its but invalid, anything else is not its. */
static int more_calls;
static kg_token_verdict fake_jwt(void *ud, const char *token, size_t len, kg_arena *a, kg_user_info *out,
                                 const char **reason)
{
    (void)a;
    more_calls++;
    assert_string_equal((const char *)ud, "ud");
    if (len == 6 && !memcmp(token, "jwt-ok", 6)) {
        static const char *const g[] = {"system:serviceaccounts"};
        out->name = "system:serviceaccount:ns:sa";
        out->uid = "u9";
        out->groups = g;
        out->ngroups = 1;
        return KG_TOKEN_OK;
    }
    if (len == 7 && !memcmp(token, "jwt-bad", 7)) {
        *reason = "token has expired";
        return KG_TOKEN_INVALID;
    }
    return KG_TOKEN_NOT_MINE;
}

static void further_token_authenticators(void **state)
{
    (void)state;
    char *p = write_tmp("tok2.csv", "tok-a,alice,u1\n");
    kg_authn_config cfg = {.token_auth_file = p, .anonymous_auth = true};
    cfg.token_authenticators[0] = (kg_token_authenticator){fake_jwt, "ud"};
    cfg.ntoken_authenticators = 1;
    kg_error err = {0};
    kg_authn *an = kg_authn_new(&cfg, &err);
    assert_non_null(an);
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_user u;
    more_calls = 0;
    assert_int_equal(kg_authn_authenticate(an, "Bearer tok-a", &a, &u), KG_AUTHN_OK); /* static first */
    assert_string_equal(u.name, "alice");
    assert_int_equal(more_calls, 0);
    assert_int_equal(kg_authn_authenticate(an, "Bearer jwt-ok", &a, &u), KG_AUTHN_OK);
    assert_string_equal(u.name, "system:serviceaccount:ns:sa");
    assert_int_equal(u.ngroups, 2);
    assert_string_equal(u.groups[1], "system:authenticated");
    /* invalid and unknown tokens are 401 even with anonymous allowed */
    assert_int_equal(kg_authn_authenticate(an, "Bearer jwt-bad", &a, &u), KG_AUTHN_UNAUTHORIZED);
    assert_int_equal(kg_authn_authenticate(an, "Bearer other", &a, &u), KG_AUTHN_UNAUTHORIZED);
    assert_int_equal(more_calls, 3);
    kg_arena_free(&a);
    kg_authn_free(an);
    free(p);
}

static void authenticate_tokens(void **state)
{
    (void)state;
    char *p = write_tmp("tok.csv", "tok-a,alice,u1,\"devs,ops\"\n"
                                   "tok-b,bob,u2\n"
                                   "tok-a,alice2,u3,late\n" /* duplicate: the later row wins */
                                   "tok-c,carl,u4,system:unauthenticated\n");
    kg_authn_config cfg = {.token_auth_file = p, .anonymous_auth = false};
    kg_error err = {0};
    kg_authn *an = kg_authn_new(&cfg, &err);
    assert_non_null(an);
    assert_int_equal(kg_authn_token_count(an), 3);
    assert_null(kg_authn_admin_token(an));
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_user u;
    assert_int_equal(kg_authn_authenticate(an, "Bearer tok-a", &a, &u), KG_AUTHN_OK);
    assert_string_equal(u.name, "alice2");
    assert_string_equal(u.uid, "u3");
    assert_int_equal(u.ngroups, 2);
    assert_string_equal(u.groups[0], "late");
    assert_string_equal(u.groups[1], "system:authenticated");
    assert_int_equal(kg_authn_authenticate(an, "bearer tok-b", &a, &u), KG_AUTHN_OK); /* scheme case-insensitive */
    assert_string_equal(u.name, "bob");
    assert_int_equal(u.ngroups, 1);
    assert_string_equal(u.groups[0], "system:authenticated");
    assert_true(kg_user_in_group(&u, KG_GROUP_AUTHENTICATED));
    assert_false(kg_user_in_group(&u, KG_GROUP_MASTERS));
    /* AuthenticatedGroupAdder leaves a user already in system:unauthenticated alone */
    assert_int_equal(kg_authn_authenticate(an, "  Bearer tok-c  ", &a, &u), KG_AUTHN_OK);
    assert_int_equal(u.ngroups, 1);
    assert_string_equal(u.groups[0], "system:unauthenticated");
    /* SplitN(" ", 3): the second field is the token */
    assert_int_equal(kg_authn_authenticate(an, "Bearer tok-b extra", &a, &u), KG_AUTHN_OK);
    assert_string_equal(u.name, "bob");
    /* unknown token, prefix of a token, longer token */
    assert_int_equal(kg_authn_authenticate(an, "Bearer tok-x", &a, &u), KG_AUTHN_UNAUTHORIZED);
    assert_int_equal(kg_authn_authenticate(an, "Bearer tok-", &a, &u), KG_AUTHN_UNAUTHORIZED);
    assert_int_equal(kg_authn_authenticate(an, "Bearer tok-bb", &a, &u), KG_AUTHN_UNAUTHORIZED);
    /* no credentials, anonymous disabled */
    assert_int_equal(kg_authn_authenticate(an, NULL, &a, &u), KG_AUTHN_UNAUTHORIZED);
    assert_int_equal(kg_authn_authenticate(an, "Basic dXNlcjpwdw==", &a, &u), KG_AUTHN_UNAUTHORIZED);
    kg_authn_free(an);
    kg_arena_free(&a);
    free(p);
}

static void anonymous_and_admin_token(void **state)
{
    (void)state;
    char dir[300];
    snprintf(dir, sizeof(dir), "%s/data", tmpdir);
    assert_int_equal(mkdir(dir, 0700), 0);
    kg_authn_config cfg = {.data_dir = dir, .anonymous_auth = true};
    kg_error err = {0};
    kg_authn *an = kg_authn_new(&cfg, &err);
    assert_non_null(an);
    const char *tok = kg_authn_admin_token(an);
    assert_non_null(tok);
    assert_int_equal(strlen(tok), 64);
    assert_int_equal(strspn(tok, "0123456789abcdef"), 64);
    char tokcopy[65];
    memcpy(tokcopy, tok, 65);
    assert_int_equal(kg_authn_token_count(an), 0);

    char path[400];
    snprintf(path, sizeof(path), "%s/admin.token", dir);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);

    kg_arena a;
    kg_arena_init(&a, 0);
    kg_user u;
    char hdr[100];
    snprintf(hdr, sizeof(hdr), "Bearer %s", tok);
    assert_int_equal(kg_authn_authenticate(an, hdr, &a, &u), KG_AUTHN_OK);
    assert_string_equal(u.name, "kgate-admin");
    assert_true(kg_user_in_group(&u, "system:masters"));
    assert_true(kg_user_in_group(&u, "system:authenticated"));
    /* anonymous: no credentials, empty bearer token, other schemes */
    const char *anon_headers[] = {NULL, "", "Bearer", "Bearer ", "Bearer  x", "Basic abc", "Token abc"};
    for (size_t i = 0; i < sizeof(anon_headers) / sizeof(anon_headers[0]); i++) {
        assert_int_equal(kg_authn_authenticate(an, anon_headers[i], &a, &u), KG_AUTHN_ANONYMOUS);
        assert_string_equal(u.name, "system:anonymous");
        assert_int_equal(u.ngroups, 1);
        assert_string_equal(u.groups[0], "system:unauthenticated");
    }
    /* a bad token is 401 even when anonymous requests are allowed */
    assert_int_equal(kg_authn_authenticate(an, "Bearer wrong", &a, &u), KG_AUTHN_UNAUTHORIZED);
    kg_authn_free(an);

    /* restart: same token */
    an = kg_authn_new(&cfg, &err);
    assert_non_null(an);
    assert_string_equal(kg_authn_admin_token(an), tokcopy);
    kg_authn_free(an);
    kg_arena_free(&a);
}

static void many_tokens(void **state)
{
    (void)state;
    char path[300];
    snprintf(path, sizeof(path), "%s/many.csv", tmpdir);
    FILE *f = fopen(path, "w");
    for (int i = 0; i < 20000; i++)
        fprintf(f, "token-%d,user-%d,uid-%d,\"g%d\"\n", i, i, i, i % 7);
    fclose(f);
    kg_authn_config cfg = {.token_auth_file = path};
    kg_error err = {0};
    kg_authn *an = kg_authn_new(&cfg, &err);
    assert_non_null(an);
    assert_int_equal(kg_authn_token_count(an), 20000);
    kg_arena a;
    kg_arena_init(&a, 0);
    for (int i = 0; i < 20000; i += 997) {
        char h[64], want[32];
        snprintf(h, sizeof(h), "Bearer token-%d", i);
        snprintf(want, sizeof(want), "user-%d", i);
        kg_user u;
        assert_int_equal(kg_authn_authenticate(an, h, &a, &u), KG_AUTHN_OK);
        assert_string_equal(u.name, want);
    }
    kg_user u;
    assert_int_equal(kg_authn_authenticate(an, "Bearer token-20000", &a, &u), KG_AUTHN_UNAUTHORIZED);
    kg_arena_free(&a);
    kg_authn_free(an);
}

/* Random token files (deterministic): every outcome is either rows or an error naming the file. */
static void random_token_files(void **state)
{
    (void)state;
    static const char alphabet[] = "ab,\"\n\r x";
    uint32_t seed = 777;
    char *p = NULL;
    assert_true(asprintf(&p, "%s/random.csv", tmpdir) > 0);
    for (int iter = 0; iter < 3000; iter++) {
        char content[96];
        seed = seed * 1103515245u + 12345u;
        size_t n = (seed >> 16) % sizeof(content);
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            content[i] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
        }
        FILE *f = fopen(p, "w");
        fwrite(content, 1, n, f);
        fclose(f);
        rows r = {0};
        kg_error err = {0};
        if (!kg_authn_parse_token_file(p, collect, &r, &err))
            assert_true(strncmp(err.msg, "token file '", 12) == 0);
        else
            assert_true(r.n <= 32);
    }
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(token_file_rows),
        cmocka_unit_test(token_file_errors),
        cmocka_unit_test(authenticate_tokens),
        cmocka_unit_test(anonymous_and_admin_token),
        cmocka_unit_test(further_token_authenticators),
        cmocka_unit_test(many_tokens),
        cmocka_unit_test(random_token_files),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
