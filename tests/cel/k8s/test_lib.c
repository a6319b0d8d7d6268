/* The Kubernetes CEL libraries end to end through kgate's CEL engine: every function, its errors (texts as
 * k8s.io/apiserver reports them), library versions and runtime costs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "cel/cel.h"
#include "cel/k8s/cel_k8s.h"

static cel_env *new_env(int version)
{
    cel_env *env = cel_env_new(CEL_LIB_K8S);
    cel_env_set_options(env, CEL_OPT_K8S);
    cel_error err;
    cel_k8s_options o = {.version = version};
    if (!cel_k8s_register(env, &o, &err))
        fail_msg("register: %s", err.message);
    cel_env_declare_var(env, "authorizer", cel_k8s_type_authorizer(env));
    cel_env_declare_var(env, "authorizer.requestResource", cel_k8s_type_resource_check(env));
    return env;
}

static cel_env *ENV;
static int setup(void **s)
{
    (void)s;
    ENV = new_env(33);
    return 0;
}
static int teardown(void **s)
{
    (void)s;
    cel_env_free(ENV);
    return 0;
}

/* a fake authorizer (auth/authorizer.h): allows "get" on everything, denies the rest; "boom" errors */
static kg_authz_decision fake_authorize(void *ctx, const kg_authz_attributes *at, kg_arena *a, const char **reason,
                                        kg_error *err)
{
    (void)ctx;
    if (strcmp(at->verb, "boom") == 0) {
        kg_err_set(err, KG_EIO, "authorizer exploded");
        return KG_AUTHZ_NO_OPINION;
    }
    const char *user = at->user ? at->user->name : "<none>";
    if (at->resource_request && strcmp(user, "alice") != 0)
        *reason = kg_arena_sprintf(a, "as %s (%s) %s %s/%s", user, at->user->ngroups > 1 ? at->user->groups[1] : "",
                                   at->verb, at->api_group, at->resource);
    else if (at->resource_request)
        *reason =
            kg_arena_sprintf(a, "%s %s/%s/%s ns=%s name=%s fs=%s ls=%s", at->verb, at->api_group, at->resource,
                             at->subresource, at->namespace_, at->name, at->field_selector ? at->field_selector : "-",
                             at->label_selector ? at->label_selector : "-");
    else
        *reason = kg_arena_sprintf(a, "path %s %s", at->path, at->verb);
    return strcmp(at->verb, "get") == 0 ? KG_AUTHZ_ALLOW : KG_AUTHZ_DENY;
}
static const kg_authorizer FAKE_AUTHZ = {NULL, fake_authorize, NULL};
static const char *const ALICE_GROUPS[] = {KG_GROUP_AUTHENTICATED};
static const kg_user_info ALICE = {.name = "alice", .uid = "1", .groups = ALICE_GROUPS, .ngroups = 1};
static const cel_k8s_authorizer FAKE_AZ = {&FAKE_AUTHZ, &ALICE};

typedef struct result {
    cel_eval_status st;
    cel_value v;
    uint64_t cost;
    kg_arena arena;
    bool compiled;
    cel_error cerr;
} result;

static void run(cel_env *env, const char *expr, result *r)
{
    memset(r, 0, sizeof *r);
    kg_arena_init(&r->arena, 0);
    cel_program *p = NULL;
    r->compiled = cel_compile(env, expr, NULL, &p, &r->cerr);
    if (!r->compiled)
        return;
    cel_activation *act = cel_activation_new(env, &r->arena);
    cel_activation_set(act, "authorizer", cel_k8s_authorizer_value(&r->arena, &FAKE_AZ));
    cel_activation_set(act, "authorizer.requestResource",
                       cel_k8s_request_resource_value(&r->arena, &FAKE_AZ, "apps", "deployments", "", "prod", "web"));
    r->st = cel_eval(p, act, CEL_PER_CALL_LIMIT, &r->v, &r->cost);
    cel_program_free(p);
}

static void expect_true(const char *expr)
{
    result r;
    run(ENV, expr, &r);
    if (!r.compiled)
        fail_msg("compile %s: %s", expr, r.cerr.message);
    if (r.st != CEL_EVAL_OK)
        fail_msg("%s: %s", expr, cel_error_message(&r.v));
    if (r.v.kind != CEL_BOOL || !r.v.u.b)
        fail_msg("%s: got %s", expr, cel_value_debug(&r.arena, &r.v));
    kg_arena_free(&r.arena);
}

static void expect_error(const char *expr, const char *msg)
{
    result r;
    run(ENV, expr, &r);
    if (!r.compiled)
        fail_msg("compile %s: %s", expr, r.cerr.message);
    if (r.st != CEL_EVAL_ERROR)
        fail_msg("%s: expected error, got %s", expr, cel_value_debug(&r.arena, &r.v));
    if (strcmp(cel_error_message(&r.v), msg) != 0)
        fail_msg("%s:\n got  %s\n want %s", expr, cel_error_message(&r.v), msg);
    kg_arena_free(&r.arena);
}

static void expect_compile_error(cel_env *env, const char *expr, const char *substr)
{
    result r;
    run(env, expr, &r);
    if (r.compiled)
        fail_msg("%s: compiled, expected an error containing %s", expr, substr);
    if (!strstr(r.cerr.message, substr))
        fail_msg("%s: compile error %s lacks %s", expr, r.cerr.message, substr);
    kg_arena_free(&r.arena);
}

static uint64_t cost_of(const char *expr)
{
    result r;
    run(ENV, expr, &r);
    if (!r.compiled || r.st != CEL_EVAL_OK)
        fail_msg("%s failed", expr);
    kg_arena_free(&r.arena);
    return r.cost;
}

static void test_regex(void **s)
{
    (void)s;
    expect_true("'abc 123'.find('[0-9]+') == '123'");
    expect_true("'abc'.find('[0-9]+') == ''");
    expect_true("'123 abc 456'.findAll('[0-9]+') == ['123', '456']");
    expect_true("'123 abc 456'.findAll('[0-9]+', 1) == ['123']");
    expect_true("'123 abc 456'.findAll('[0-9]+', 0) == []");
    expect_true("'123 abc 456'.findAll('[0-9]+', -1) == ['123', '456']");
    expect_true("'baaab'.findAll('a*') == ['', 'aaa', '']");
    expect_true("'héllo'.find('h.l') == 'hél'");
    /* a constant bad pattern is rejected when the program is built; a dynamic one fails at runtime */
    expect_compile_error(ENV, "'abc'.find('(')", "missing closing ): `(`");
    expect_error("'abc'.find(dyn('('))", "Illegal regex: error parsing regexp: missing closing ): `(`");
    expect_error("'abc'.findAll(dyn('[a'))", "Illegal regex: error parsing regexp: missing closing ]: `[a`");
}

static void test_lists(void **s)
{
    (void)s;
    expect_true("[1, 2, 3].isSorted()");
    expect_true("![3, 2, 1].isSorted()");
    expect_true("['a', 'b', 'b'].isSorted()");
    expect_true("[].isSorted()");
    expect_true("[1, 2, 3].sum() == 6");
    expect_true("[1u, 2u].sum() == 3u");
    expect_true("[1.5, 2.0].sum() == 3.5");
    expect_true("[duration('1s'), duration('2s')].sum() == duration('3s')");
    expect_true("dyn([]).sum() == 0");
    expect_true("[3, 1, 2].min() == 1");
    expect_true("[3, 1, 2].max() == 3");
    expect_true("['b', 'a'].min() == 'a'");
    expect_true("[timestamp('2020-01-01T00:00:00Z'), timestamp('2021-01-01T00:00:00Z')].max() == "
                "timestamp('2021-01-01T00:00:00Z')");
    expect_error("dyn([]).min()", "min called on empty list");
    expect_error("dyn([]).max()", "max called on empty list");
    expect_true("[1, 2, 3, 2].indexOf(2) == 1");
    expect_true("[1, 2, 3, 2].lastIndexOf(2) == 3");
    expect_true("[1, 2, 3].indexOf(4) == -1");
    expect_true("['a', 'b'].lastIndexOf('z') == -1");
    expect_error("[9223372036854775807, 1].sum()", "integer overflow");
    /* JSON-decoded lists are dyn at compile time */
    expect_true("dyn([1, 5, 3]).max() == 5");
}

static void test_urls(void **s)
{
    (void)s;
    expect_true("url('https://user:pass@example.com:80/path?query=val#fragment').getScheme() == 'https'");
    expect_true("url('https://example.com:80/path').getHost() == 'example.com:80'");
    expect_true("url('https://[::1]:80/').getHostname() == '::1'");
    expect_true("url('https://example.com:80/').getPort() == '80'");
    expect_true("url('https://example.com/').getPort() == ''");
    expect_true("url('https://example.com/path with spaces/').getEscapedPath() == '/path%20with%20spaces/'");
    expect_true("url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}");
    expect_true("url('/absolute-path').getHost() == ''");
    expect_true("isURL('https://example.com/')");
    expect_true("!isURL('../relative-path')");
    expect_true("url('https://example.com/a') == url('https://example.com/a')");
    expect_true("url('https://example.com/a') != url('https://example.com/b')");
    expect_error("url('../relative-path')",
                 "URL parse error during conversion from string: parse \"../relative-path\": invalid URI for request");
    expect_true("type(url('https://a/')) == kubernetes.URL");
    /* the examples documented in upstream urls.go */
    expect_true("url('/path').getScheme() == '' && url('https://example.com/').getScheme() == 'https'");
    expect_true("url('https://example.com/').getHost() == 'example.com' && url('https://[::1]:80/').getHost() == "
                "'[::1]:80' && url('https://[::1]/').getHost() == '[::1]' && url('/path').getHost() == ''");
    expect_true("url('https://example.com:80/').getHostname() == 'example.com' && "
                "url('https://127.0.0.1:80/').getHostname() == '127.0.0.1' && url('/path').getHostname() == ''");
    expect_true("url('/path').getPort() == '' && url('https://example.com/path').getEscapedPath() == '/path' && "
                "url('https://example.com').getEscapedPath() == ''");
    expect_true("url('https://example.com/path?key with spaces=value with spaces').getQuery() == "
                "{'key with spaces': ['value with spaces']}");
    expect_true(
        "url('https://example.com/path?').getQuery() == {} && url('https://example.com/path').getQuery() == {}");
}

static void test_quantity(void **s)
{
    (void)s;
    expect_true("isQuantity('1.5G') && isQuantity('200k') && isQuantity('20Mi') && !isQuantity('200K')");
    expect_true("quantity('200M').compareTo(quantity('0.2G')) == 0");
    expect_true("quantity('50M').compareTo(quantity('50Mi')) == -1");
    expect_true("quantity('50Mi').compareTo(quantity('50M')) == 1");
    expect_true("quantity('150Mi').isGreaterThan(quantity('100Mi'))");
    expect_true("!quantity('50Mi').isGreaterThan(quantity('100Mi'))");
    expect_true("quantity('50M').isLessThan(quantity('100M'))");
    expect_true("quantity('50k').add(quantity('20k')) == quantity('70k')");
    expect_true("quantity('50k').add(20) == quantity('50020')");
    expect_true("quantity('50k').sub(quantity('20k')) == quantity('30k')");
    expect_true("quantity('50k').sub(20000) == quantity('30k')");
    expect_true("quantity('50k').add(20).sub(quantity('100k')).sub(-50000) == quantity('20')");
    expect_true("quantity('50k').asInteger() == 50000");
    expect_true("quantity('50k').isInteger()");
    expect_true("!quantity('50.5').isInteger()");
    expect_true("quantity('50k').asApproximateFloat() == 50000.0");
    expect_true("quantity('500m').asApproximateFloat() == 0.5");
    expect_true("quantity('-1').sign() == -1 && quantity('0').sign() == 0 && quantity('1Ki').sign() == 1");
    expect_true("quantity('1') == quantity('1000m')");
    expect_error("quantity('50.5').asInteger()", "cannot convert value to integer");
    expect_error("quantity('200K')", "unable to parse quantity's suffix");
    expect_error("quantity('1.5.5')", "quantities must match the regular expression "
                                      "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    expect_true("type(quantity('1')) == kubernetes.Quantity");
    /* upstream quantity_test.go */
    expect_error("quantity('10Mo')", "quantities must match the regular expression "
                                     "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    expect_error("quantity('10Mm')", "unable to parse quantity's suffix");
    expect_true("isQuantity('20') && isQuantity('20M') && isQuantity('20Mi') && !isQuantity('20Mo') && "
                "!isQuantity('10Mm')");
    expect_compile_error(ENV, "isQuantity([1, 2, 3])", "found no matching overload for 'isQuantity' applied to");
    expect_true("quantity('200M') == quantity('0.2G') && quantity('0.2G') == quantity('200M')");
    expect_true("quantity('2M') == quantity('0.002G') && quantity('2000k') == quantity('2M') && "
                "quantity('0.002G') == quantity('2000k')");
    expect_true("!(quantity('200M') == quantity('0.3G'))");
    expect_true("quantity('50k').add(quantity('20')) == quantity('50.02k')");
    expect_true("!quantity('50k').add(20).isLessThan(quantity('50020'))");
    expect_true("quantity('50k').sub(quantity('20')) == quantity('49.98k')");
    expect_true("quantity('50k').sub(20) == quantity('49980')");
    expect_true("quantity('50k').add(20).sub(quantity('100k')).asInteger() == -49980");
    expect_true("quantity('50k').add(20).sub(quantity('100k')).sub(-50000).asInteger() == 20");
    expect_error("quantity('9999999999999999999999999999999999999G').asInteger()", "cannot convert value to integer");
    expect_true("!quantity('9999999999999999999999999999999999999G').isInteger()");
    expect_true("quantity('50').isInteger()");
    expect_true("quantity('50.703k').asApproximateFloat() == 50703.0");
}

static void test_ip_cidr(void **s)
{
    (void)s;
    expect_true("isIP('192.168.0.1') && !isIP('192.168.0.1.0') && isIP('2001:db8::68')");
    expect_true("ip('192.168.0.1').family() == 4 && ip('::1').family() == 6");
    expect_true("ip.isCanonical('2001:db8::68') && !ip.isCanonical('2001:DB8::68')");
    expect_true("ip('0.0.0.0').isUnspecified() && ip('::').isUnspecified()");
    expect_true("ip('127.0.0.1').isLoopback() && !ip('1.2.3.4').isLoopback()");
    expect_true("ip('224.0.0.1').isLinkLocalMulticast() && ip('ff02::1').isLinkLocalMulticast()");
    expect_true("ip('169.254.169.254').isLinkLocalUnicast() && ip('fe80::1').isLinkLocalUnicast()");
    expect_true("ip('192.168.0.1').isGlobalUnicast() && !ip('255.255.255.255').isGlobalUnicast()");
    expect_true("string(ip('2001:db8:0:0:1:0:0:1')) == '2001:db8::1:0:0:1'");
    expect_true("ip('127.0.0.1') == ip('127.0.0.1') && ip('127.0.0.1') != ip('127.0.0.2')");
    expect_true("type(ip('192.168.0.1')) == net.IP");
    expect_error("ip('192.168.0.1.0')", "IP Address \"192.168.0.1.0\" parse error during conversion from string: "
                                        "ParseAddr(\"192.168.0.1.0\"): IPv4 address too long");
    expect_error("ip('fe80::1%en0')", "IP address \"fe80::1%en0\" with zone value is not allowed");
    expect_error("ip('::ffff:1.2.3.4')", "IPv4-mapped IPv6 address \"::ffff:1.2.3.4\" is not allowed");
    expect_error("ip.isCanonical('127.0.0.1.0')",
                 "IP Address \"127.0.0.1.0\" parse error during conversion from string: ParseAddr(\"127.0.0.1.0\"): "
                 "IPv4 address too long");
    expect_compile_error(ENV, "isIP(cidr('192.168.0.0/24'))", "found no matching overload for 'isIP'");

    expect_true("isCIDR('192.168.0.0/24') && !isCIDR('192.168.0.0/33')");
    expect_true("cidr('192.168.0.0/24').containsIP(ip('192.168.0.1'))");
    expect_true("!cidr('192.168.0.0/24').containsIP('192.168.1.1')");
    expect_true("cidr('192.168.0.0/24').containsCIDR(cidr('192.168.0.0/25'))");
    expect_true("!cidr('192.168.0.0/24').containsCIDR('192.168.0.0/23')");
    expect_true("cidr('2001:db8::/32').containsCIDR('2001:db8::/33')");
    expect_true("cidr('192.168.0.0/24').ip() == ip('192.168.0.0')");
    expect_true("cidr('192.168.0.1/24').masked() == cidr('192.168.0.0/24')");
    expect_true("cidr('192.168.0.1/24') != cidr('192.168.0.1/24').masked()");
    expect_true("cidr('192.168.0.0/16').prefixLength() == 16 && cidr('::1/128').prefixLength() == 128");
    expect_true("string(cidr('192.168.0.0/24')) == '192.168.0.0/24'");
    expect_true("type(cidr('192.168.0.0/24')) == net.CIDR");
    expect_error("cidr('192.168.0.0/')", "network address parse error during conversion from string: network "
                                         "address parse error during conversion from string: "
                                         "netip.ParsePrefix(\"192.168.0.0/\"): bad bits after slash: \"\"");
    expect_error("cidr('192.168.0.0/24').containsIP('x')",
                 "IP Address \"x\" parse error during conversion from string: ParseAddr(\"x\"): unable to parse IP");
    expect_compile_error(ENV, "cidr(192168)", "found no matching overload for 'cidr' applied to '(int)'");
}

static void test_format(void **s)
{
    (void)s;
    expect_true("format.dns1123Label().validate('my-name') == optional.none()");
    expect_true("format.dns1123Label().validate('a.b') == optional.of(['must not contain dots'])");
    expect_true("format.named('dns1123Label').hasValue() && !format.named('nope').hasValue()");
    expect_true("format.named('labelValue').value().validate('') == optional.none()");
    expect_true("format.dns1123Subdomain().validate('example.com') == optional.none()");
    expect_true("format.dns1035Label().validate('1abc').value().size() == 1");
    expect_true("format.qualifiedName().validate('example.com/MyName') == optional.none()");
    expect_true("format.dns1123LabelPrefix().validate('abc-') == optional.none()");
    expect_true("format.dns1123SubdomainPrefix().validate('abc-') == optional.none()");
    expect_true("format.dns1035LabelPrefix().validate('abc-') == optional.none()");
    expect_true("format.uri().validate('example') == optional.of(['parse \"example\": invalid URI for request'])");
    expect_true("format.uuid().validate('123e4567-e89b-12d3-a456-426614174000') == optional.none()");
    expect_true("format.uuid().validate('x') == optional.of(['does not match the UUID format'])");
    expect_true("format.byte().validate('aGVsbG8=') == optional.none()");
    expect_true("format.byte().validate('aGVsbG8') == optional.of(['invalid base64'])");
    expect_true("format.date().validate('2021-01-01') == optional.none()");
    expect_true("format.date().validate('2021-02-30') == optional.of(['invalid date'])");
    expect_true("format.datetime().validate('2021-01-01T00:00:00Z') == optional.none()");
    expect_true("format.datetime().validate('2021-01-01') == optional.of(['invalid datetime'])");
    /* upstream format_test.go */
    expect_true("format.dns1123LabelPrefix().validate('my-label-prefix-') == optional.none()");
    expect_true("format.dns1123SubdomainPrefix().validate('mysubdomain.prefix.-') == optional.none()");
    expect_true("format.dns1035LabelPrefix().validate('my-label-prefix-') == optional.none()");
    expect_true("format.dns1123LabelPrefix().validate('contains a space-') == optional.of(['a lowercase RFC 1123 "
                "label must consist of lower case alphanumeric characters or \\'-\\', and must start and end with "
                "an alphanumeric character (e.g. \\'my-name\\',  or \\'123-abc\\', regex used for validation is "
                "\\'[a-z0-9]([-a-z0-9]*[a-z0-9])?\\')'])");
    expect_true("format.qualifiedName().validate('contains a space') == optional.of(['name part must consist of "
                "alphanumeric characters, \\'-\\', \\'_\\' or \\'.\\', and must start and end with an "
                "alphanumeric character (e.g. \\'MyName\\',  or \\'my.name\\',  or \\'123-abc\\', regex used "
                "for validation is \\'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\\')'])");
    expect_true("format.qualifiedName().validate('my.name') == optional.none()");
    expect_true("format.date().validate('2020-01-32') == optional.of(['invalid date'])");
    expect_true("format.datetime().validate('2020-01-32T00:00:00Z') == optional.of(['invalid datetime'])");
    expect_true("format.labelValue().validate('my-cool-label-Value') == optional.none()");
    expect_true("format.labelValue().validate('my-cool-label-Value!!\\n\\n!!!').value().size() == 1");
    expect_true("format.named('uuid').value() == format.uuid() && format.named('dns1123Label').value() == "
                "format.dns1123Label()");
    expect_true("format.dns1123Label() != format.dns1035Label() && format.uri() != format.uuid()");
}

static void test_semver(void **s)
{
    (void)s;
    expect_true("isSemver('1.2.3') && !isSemver('1.2') && !isSemver('v1.2.3')");
    expect_true("isSemver('v1.2', true) && !isSemver('v1.2', false)");
    expect_true("semver('1.2.3').major() == 1 && semver('1.2.3').minor() == 2 && semver('1.2.3').patch() == 3");
    expect_true("semver('v01.02', true) == semver('1.2.0')");
    expect_true("semver('1.2.3').compareTo(semver('1.2.3')) == 0");
    expect_true("semver('1.2.3').compareTo(semver('2.0.0')) == -1");
    expect_true("semver('1.2.3').compareTo(semver('0.1.2')) == 1");
    expect_true("semver('1.0.0-alpha').isLessThan(semver('1.0.0'))");
    expect_true("semver('1.0.0-rc.1').isGreaterThan(semver('1.0.0-beta.11'))");
    expect_true("semver('1.2.3+a') == semver('1.2.3+b')");
    expect_error("semver('1.2')", "No Major.Minor.Patch elements found");
    expect_error("semver('01.2.3')", "Major number must not contain leading zeroes \"01\"");
    expect_error("semver('1.2-rc', true)", "short version cannot contain PreRelease/Build meta data");
    expect_true("type(semver('1.2.3')) == kubernetes.Semver");
    /* upstream semver_test.go */
    expect_error("semver('v1.0')", "No Major.Minor.Patch elements found");
    expect_true("isSemver('1.2.3-beta.1+build.1')");
    expect_true("!isSemver('') && !isSemver('v1.0.0') && !isSemver(' 1.0.0') && !isSemver('1. 0.0') && "
                "!isSemver('1.0.0 ') && !isSemver('01.01.01') && !isSemver('1') && !isSemver('1.1')");
    expect_true("!isSemver('', true) && !isSemver(' 1.0.0', true) && !isSemver('1. 0.0', true) && "
                "!isSemver('1.0.0 ', true)");
    expect_true("isSemver('v1.0.0', true) && isSemver('01.01.01', true) && isSemver('1', true) && "
                "isSemver('1.1', true)");
    expect_compile_error(ENV, "isSemver([1, 2, 3])", "found no matching overload for 'isSemver' applied to");
    expect_true("semver('v01.01', true) == semver('1.1.0')");
    expect_true("!(semver('1.2.3') == semver('1.0.0'))");
    expect_true("semver('1.0.0').isLessThan(semver('1.2.3')) && !semver('1.0.0').isLessThan(semver('1.0.0'))");
    expect_true("semver('1.2.3').isGreaterThan(semver('1.0.0')) && !semver('1.0.0').isGreaterThan(semver('1.0.0'))");
    expect_true("semver('1.0.0').compareTo(semver('1.2.3')) == -1 && semver('1.2.3').compareTo(semver('1.0.0')) == 1");
    /* before 1.33 (semver v0 does not exist at all; v1 arrived with the library) */
    cel_env *e32 = new_env(32);
    expect_compile_error(e32, "semver('1.2.3', true)", "undeclared reference to 'semver'");
    cel_env_free(e32);
}

static void test_authz(void **s)
{
    (void)s;
    expect_true("authorizer.group('apps').resource('deployments').namespace('prod').name('web').check('get')"
                ".allowed()");
    expect_true("!authorizer.group('apps').resource('deployments').check('delete').allowed()");
    expect_true("authorizer.group('apps').resource('deployments').subresource('scale').namespace('ns').name('n')"
                ".check('update').reason() == 'update apps/deployments/scale ns=ns name=n fs=- ls=-'");
    expect_true("authorizer.group('').resource('pods').fieldSelector('spec.nodeName=n1').labelSelector('app=x')"
                ".check('list').reason() == 'list /pods/ ns= name= fs=spec.nodeName=n1 ls=app=x'");
    expect_true("authorizer.path('/healthz').check('get').allowed()");
    expect_true("authorizer.path('/healthz').check('post').reason() == 'path /healthz post'");
    expect_true("authorizer.serviceAccount('kube-system', 'ctrl').group('').resource('pods').check('get').reason()"
                " == 'as system:serviceaccount:kube-system:ctrl (system:serviceaccounts:kube-system) get /pods'");
    expect_true("authorizer.requestResource.check('get').allowed()");
    expect_true("authorizer.requestResource.check('patch').reason() == 'patch apps/deployments/ ns=prod name=web "
                "fs=- ls=-'");
    expect_true("authorizer.path('/x').check('boom').errored() && "
                "authorizer.path('/x').check('boom').error() == 'authorizer exploded'");
    expect_true("!authorizer.path('/x').check('get').errored() && authorizer.path('/x').check('get').error() == ''");
    /* upstream argument checks */
    expect_error("authorizer.path('  ').check('get')", "path must not be empty");
    expect_error("authorizer.group('apps').resource('').check('get')", "resource must not be empty");
    expect_error("authorizer.serviceAccount('kube-system', 'Bad_Name')", "Invalid service account name");
    expect_error("authorizer.serviceAccount('Kube.System', 'ok')", "Invalid service account namespace");
    /* an empty selector is no selector */
    expect_true("authorizer.group('').resource('pods').fieldSelector('').check('list').reason() == "
                "'list /pods/ ns= name= fs=- ls=-'");
}

static void test_versions(void **s)
{
    (void)s;
    assert_int_equal(cel_k8s_libraries_for_version(26), CEL_K8S_LIB_URLS | CEL_K8S_LIB_REGEX | CEL_K8S_LIB_LISTS);
    assert_true(cel_k8s_libraries_for_version(28) & CEL_K8S_LIB_QUANTITY);
    assert_false(cel_k8s_libraries_for_version(29) & CEL_K8S_LIB_IP);
    assert_true(cel_k8s_libraries_for_version(30) & CEL_K8S_LIB_CIDR);
    assert_false(cel_k8s_libraries_for_version(32) & CEL_K8S_LIB_SEMVER);
    assert_int_equal(cel_k8s_libraries_for_version(33), CEL_K8S_LIB_ALL);
    cel_env *old = new_env(29);
    expect_compile_error(old, "ip('1.2.3.4').family() == 4", "undeclared reference to 'ip'");
    expect_compile_error(old, "isSemver('1.2.3')", "undeclared reference to 'isSemver'");
    cel_env_free(old);
}

/* constant arguments are parsed when the program is built; dynamic ones per call: same values, same errors, same
 * costs */
static void test_constant_parsing(void **s)
{
    (void)s;
    expect_true("quantity('1Gi') == quantity(dyn('1Gi')) && quantity('1.5G').compareTo(quantity(dyn('1500M'))) == 0");
    expect_true("ip('10.0.0.1') == ip(dyn('10.0.0.1')) && cidr('10.0.0.0/8') == cidr(dyn('10.0.0.0/8'))");
    expect_true("cidr('10.0.0.0/8').containsIP(ip(dyn('10.1.2.3')))");
    expect_true("semver('1.2.3') == semver(dyn('1.2.3')) && semver('v1.2', true) == semver(dyn('v1.2'), true)");
    expect_true("url('https://a.example/x?y=1') == url(dyn('https://a.example/x?y=1'))");
    expect_true("url('https://a.example:8443/').getPort() == '8443'");
    /* invalid constants still fail at runtime, with the upstream text */
    expect_error("quantity('1Gb')", "quantities must match the regular expression "
                                    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    expect_error("semver('1.2', false)", "No Major.Minor.Patch elements found");
    assert_int_equal(cost_of("quantity('1234567890123456789012345678901234567890') == quantity('1')"),
                     cost_of("quantity(dyn('1234567890123456789012345678901234567890')) == quantity(dyn('1'))") -
                         2); /* minus the two dyn() calls */
}

static cel_size_range estimate_of(const char *expr)
{
    cel_program *p = NULL;
    cel_error err;
    if (!cel_compile(ENV, expr, NULL, &p, &err))
        fail_msg("compile %s: %s", expr, err.message);
    cel_size_range r = cel_program_estimate_cost(p, 3 * 1024 * 1024);
    cel_program_free(p);
    return r;
}

/* static estimates come from the same rules (cost.go EstimateCallCost) */
static void test_estimates(void **s)
{
    (void)s;
    cel_size_range e = estimate_of("authorizer.path('/a').check('get').allowed()");
    assert_true(e.min >= 350000 && e.max >= 350000);
    cel_size_range a = estimate_of("isIP('1.2.3.4')");
    cel_size_range b =
        estimate_of("isIP('1.2.3.4xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx')");
    assert_int_equal(b.max - a.max, 8 - 1);
    cel_size_range f1 = estimate_of("'aaaa'.find('a') == 'a'");
    cel_size_range f2 = estimate_of("'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'.find('aaaaaaaaa') == 'a'");
    assert_true(f2.max - f1.max >= 12 - 1);
}

static void test_jsonpatch(void **s)
{
    (void)s;
    cel_env *env = cel_env_new(CEL_LIB_K8S);
    cel_env_set_options(env, CEL_OPT_K8S);
    cel_error err;
    cel_k8s_options o = {.version = 33, .jsonpatch = true};
    assert_true(cel_k8s_register(env, &o, &err));
    result r;
    run(env, "jsonpatch.escapeKey('k8s.io/a~b') == 'k8s.io~1a~0b' && jsonpatch.escapeKey('plain') == 'plain'", &r);
    assert_true(r.compiled && r.st == CEL_EVAL_OK && r.v.kind == CEL_BOOL && r.v.u.b);
    kg_arena_free(&r.arena);
    cel_env_free(env);
    /* not part of the validating environments */
    expect_compile_error(ENV, "jsonpatch.escapeKey('a')", "undeclared reference");
}

static void test_costs(void **s)
{
    (void)s;
    /* cost.go: the authz check is 350,000; string parsing ⌈0.1·len⌉; regex like matches */
    assert_true(cost_of("authorizer.path('/a').check('get').allowed()") >= 350000);
    uint64_t base = cost_of("isIP('1.2.3.4')");
    uint64_t longer = cost_of("isIP('1.2.3.4xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx')");
    assert_int_equal(longer - base, 8 - 1); /* ⌈0.1·78⌉ - ⌈0.1·7⌉ */
    uint64_t f1 = cost_of("'aaaa'.find('a') == 'a'");
    uint64_t f2 = cost_of("'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'.find('aaaaaaaaa') == 'a'");
    /* find: ⌈0.1·(1+4)⌉·⌈0.25·1⌉ = 1 vs ⌈0.1·40⌉·⌈0.25·9⌉ = 12; string == adds ⌈0.1·min⌉ on both */
    assert_int_equal(f2 - f1, 12 - 1);
    /* list functions: one traversal (1 per scalar element, ⌊0.1·bytes⌋ per string, 0 for an empty list) */
    assert_int_equal(cost_of("[1, 2, 3, 4, 5, 6, 7, 8].isSorted()") - cost_of("[1, 2, 3, 4].isSorted()"), 4);
    assert_int_equal(cost_of("['aaaaaaaaaaaaaaaaaaaa'].isSorted()") - cost_of("['a'].isSorted()"), 2);
    assert_int_equal(cost_of("[1, 2, 3, 4].sum() == 10") - cost_of("[1, 2].sum() == 3"), 2);
    /* containsIP: ⌈0.1·2·⌈bits/8⌉⌉ */
    assert_int_equal(cost_of("cidr('::/128').containsIP(ip('::1'))") - cost_of("cidr('::/8').containsIP(ip('::1'))"),
                     3);
    /* containsCIDR adds ⌈0.1·size⌉ + 1; the string overload adds the parse ⌈0.1·len⌉ */
    assert_int_equal(cost_of("cidr('::/128').containsCIDR('::1/128')") - cost_of("cidr('::/128').containsIP('::1')"),
                     ceil(0.1 * 16) + 1 + 1 - 1);
    /* isURL has no rule in cost.go: 1, whatever the length */
    assert_int_equal(cost_of("isURL('https://example.com/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')"),
                     cost_of("isURL('https://e/')"));
    /* url() is ⌈0.1·len⌉ */
    assert_int_equal(
        cost_of("url('https://example.com/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa') != url('/')") -
            cost_of("url('https://e/') != url('/')"),
        8 - 1); /* 71 code points vs 10 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_regex),     cmocka_unit_test(test_lists),
        cmocka_unit_test(test_urls),      cmocka_unit_test(test_quantity),
        cmocka_unit_test(test_ip_cidr),   cmocka_unit_test(test_format),
        cmocka_unit_test(test_semver),    cmocka_unit_test(test_authz),
        cmocka_unit_test(test_versions),  cmocka_unit_test(test_constant_parsing),
        cmocka_unit_test(test_estimates), cmocka_unit_test(test_jsonpatch),
        cmocka_unit_test(test_costs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
