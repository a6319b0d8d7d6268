/* Tests of the evaluator's planned forms (src/cel/plan.c): fused field paths on the JSON DOM, `"k" in m` and
 * `x == "s"` with a constant string, string concatenation chains, comprehensions over JSON. Every expression is
 * evaluated with its plan and again with the plan cleared (one node at a time, the general evaluator): values,
 * errors, statuses and actual costs must be identical, also under every cost limit from 0 to the full cost (the
 * cost reported when the limit is exceeded included). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cel/cel.h"
#include "cel/cel_internal.h"
#include "cel/cel_json.h"
#ifdef KGATE_HAVE_CEL_K8S
#include "cel/k8s/cel_k8s.h"
#endif
#include "json/json.h"

static const char *doc_text =
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"web-7d4b9c6f5-x2x9k\",\"namespace\":\"prod\","
    "\"labels\":{\"app\":\"web\",\"tier\":\"frontend\",\"long-label-key\":\"a-value-longer-than-ten\"},"
    "\"annotations\":{},\"uid\":\"\\u00e9t\\u00e9-\\u65e5\\u672c-0123456789\"},"
    "\"spec\":{\"containers\":[{\"name\":\"web\",\"image\":\"registry.example.com/platform/web:2.4.1\","
    "\"resources\":{\"limits\":{\"cpu\":\"1\",\"memory\":\"512Mi\"}}},"
    "{\"name\":\"sidecar\",\"image\":\"docker.io/envoy:1.31\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}},"
    "{\"name\":\"third\",\"image\":\"registry.example.com/x\",\"resources\":{}}],"
    "\"terminationGracePeriodSeconds\":30,\"priority\":0,\"ratio\":1.5,\"enabled\":true,\"nothing\":null,"
    "\"tags\":[\"a\",\"b\",\"c\"],\"mixed\":[1,\"a\",null,{\"k\":1},\"bbbbbbbbbbbbbbbb\",[\"a\"],"
    "\"\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\"],\"nested\":{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":{\"f\":{\"g\":{"
    "\"h\":{\"i\":{\"j\":"
    "{\"k\":{\"l\":{\"m\":{\"n\":{\"o\":{\"p\":{\"q\":{\"r\":\"deep\"}}}}}}}}}}}}}}}}}}},"
    "\"status\":{\"phase\":\"Pending\"}}";

/* Expressions covering the planned forms and their edges (errors, non-JSON operands, long strings for size costs,
 * non-ASCII strings, each position of a missing key, absorption around errors). */
static const char *exprs[] = {
    /* field paths */
    "object.metadata.name",
    "object.metadata.namespace",
    "object.spec.terminationGracePeriodSeconds",
    "object.spec.ratio",
    "object.spec.enabled",
    "object.spec.nothing",
    "object.spec.containers",
    "object.spec.containers[0].resources.limits.memory",
    "object.spec.containers[1].resources.limits.memory",
    "object.missing",
    "object.missing.deeper.still",
    "object.metadata.missing.deeper",
    "object.metadata.name.size",
    "object.spec.nothing.x",
    "object.spec.tags.x.y",
    "object.spec.nested.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r",
    "object.spec.nested.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s",
    "object.spec.nested.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.missing",
    "m.a.b",
    "m.a.c",
    "m.x",
    "m.a.b.c",
    "s.x",
    "{'a': {'b': object.metadata}}.a.b.name",
    "object.metadata.labels['app']",
    "[object.metadata][0].labels.tier",
    "has(object.metadata.labels)",
    "has(object.metadata.missing)",
    "has(object.metadata.labels.app)",
    "has(object.spec.containers[0].resources.limits)",
    "has(object.spec.nothing.x)",
    "has(m.a.b)",
    "has(m.a.z)",
    "has(object.missing.x)",
    /* "k" in m */
    "'app' in object.metadata.labels",
    "'nope' in object.metadata.labels",
    "'b' in object.spec.tags",
    "'z' in object.spec.tags",
    "'b' in m.a",
    "'x' in m.a",
    "'x' in object.missing",
    "'x' in object.metadata.name",
    "'memory' in object.spec.containers[2].resources",
    /* has() / in over a path that hits all the way, ending on every kind of JSON node */
    "has(object.metadata.name.x)",
    "has(object.spec.terminationGracePeriodSeconds.x) || has(object.spec.tags.x)",
    "'x' in object.spec.terminationGracePeriodSeconds",
    "'x' in object.spec.nothing",
    "'a' in object.spec.mixed && !('zz' in object.spec.mixed)",
    "object.spec.containers.all(c, has(c.resources.limits) && 'memory' in c.resources.limits) || "
    "object.spec.containers.exists(c, has(c.resources.requests) && 'cpu' in c.resources.requests)",
    "object.spec.containers.exists(c, 'limits' in c.resources && has(c.resources.limits.cpu))",
    /* x == "s" */
    "object.metadata.namespace == 'prod'",
    "'prod' == object.metadata.namespace",
    "object.metadata.namespace != 'prod'",
    "object.metadata.name == 'web-7d4b9c6f5-x2x9k'",
    "object.metadata.name != 'web-7d4b9c6f5-x2x9k-other'",
    "object.metadata.uid == 'something longer than ten'",
    "object.spec.terminationGracePeriodSeconds == 'x'",
    "object.spec.nothing == 'x'",
    "object.missing == 'x'",
    "'x' != object.missing",
    "object.metadata.labels.exists(k, k == 'app')",
    "object.metadata.labels.exists(k, k == 'long-label-key')",
    "object.metadata.labels.all(k, k != 'zzz')",
    "object.metadata.labels.exists(k, object.metadata.labels[k] == 'a-value-longer-than-ten')",
    /* v == "c" / v != "c" on the iteration variable over JSON, compared in place (long strings, other elements) */
    "object.metadata.labels.exists(k, k == 'long-label-keyX')",
    "object.metadata.labels.exists(k, 'long-label-key' == k)",
    "object.metadata.labels.all(k, k != 'long-label-key')",
    "object.metadata.labels.exists(k, k == '')",
    "object.metadata.annotations.exists(k, k == 'a') || object.metadata.annotations.all(k, k == 'a')",
    "object.spec.tags.exists(t, t == 'c') && object.spec.tags.all(t, t != 'd')",
    "object.spec.mixed.exists(x, x == 'a')",
    "object.spec.mixed.exists(x, x == 'zzz')",
    "object.spec.mixed.all(x, x != 'bbbbbbbbbbbbbbbbb')",
    "object.spec.mixed.exists(x, 'bbbbbbbbbbbbbbbb' == x)",
    "object.spec.mixed.exists(x, x == '\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9')",
    "object.spec.mixed.all(x, x != 1)",
    "object.spec.mixed.map(x, object.metadata.labels.exists(k, k == 'tier'))",
    "object.metadata.labels.exists(k, object.spec.tags.exists(t, k == 'tier'))",
    "object.metadata.labels.exists(k, object.spec.tags.exists(k, k == 'c'))",
    "object.spec.containers.all(c, c.resources.exists(k, k == 'limits'))",
    "{'a': 1, 'bb': 2}.exists(k, k == 'bb') && ['x', 'y'].all(v, v != 'z')",
    /* the key loop reduced to finding the deciding element (eval_fast.c compr_eq_keys): decided first, in the middle,
     * last, never; all / exists with == / !=; constants of 10 and 11 bytes; arrays of strings, other elements */
    "object.metadata.labels.all(k, k == 'app')",
    "object.metadata.labels.exists(k, k != 'app')",
    "object.metadata.labels.exists(k, k == 'tier')",
    "object.metadata.labels.exists(k, k == 'nope')",
    "object.metadata.labels.all(k, k != 'nope')",
    "object.metadata.labels.all(k, 'zz' != k)",
    "object.metadata.labels.exists(k, k == 'long-label')",
    "object.metadata.labels.exists(k, k == 'long-label-')",
    "object.metadata.labels.all(k, k != '0123456789')",
    "object.spec.tags.exists(t, t == 'a')",
    "object.spec.tags.exists(t, t == 'b')",
    "object.spec.tags.exists(t, t != 'a')",
    "object.spec.tags.all(t, t == 'a')",
    "object.spec.tags.all(t, t != 'c')",
    "object.spec.tags.exists(t, t == 'x')",
    "object.spec.tags.all(t, t != '')",
    "object.spec.mixed.all(x, x == 1)",
    "object.spec.mixed.exists(x, x != 'a')",
    "object.metadata.annotations.all(k, k != 'a')",
    "object.metadata.labels.exists(k, k == 'app') && object.spec.tags.all(t, t != 'zzz')",
    /* x.a.b.startsWith / endsWith / matches on a path from the variable, walked from each element of a JSON array */
    "object.spec.containers.exists(c, c.image.endsWith(':1.31'))",
    "object.spec.containers.all(c, c.image.matches('^registry'))",
    "object.spec.containers.exists(c, c.image.matches('envoy'))",
    "object.spec.containers.all(c, c.resources.limits.cpu.startsWith('1'))",
    "object.spec.containers.exists(c, c.resources.limits.cpu.startsWith('2'))",
    "object.spec.mixed.exists(x, x.k.startsWith('a'))",
    "object.spec.mixed.all(x, x.k.endsWith('a'))",
    "object.spec.containers.all(c, object.spec.containers.exists(d, c.name.startsWith('w')))",
    "object.spec.containers.all(c, object.spec.containers.exists(c, c.name.startsWith('s')))",
    "object.spec.containers.all(c, c.name.endsWith('')) && object.spec.containers.all(c, c.name.matches(''))",
    "[object.metadata, object.spec].exists(o, o.name.startsWith('web'))",
    "object.spec.containers.map(c, object.spec.containers.all(d, d.image.startsWith(c.name)))",
    /* predicate trees over paths from the variable (has / in / == / startsWith, && / ||), and has(P.f) && g(P.f)
     * whose right side ends where the has() found f */
    "object.spec.containers.all(c, has(c.resources.limits) || 'memory' in c.resources.limits)",
    "object.spec.containers.exists(c, has(c.resources.requests) && 'cpu' in c.resources.requests)",
    "object.spec.containers.all(c, has(c.resources.limits) && c.resources.limits.memory == '512Mi')",
    "object.spec.containers.exists(c, has(c.resources.limits) && c.resources.limits.startsWith('x'))",
    "object.spec.containers.all(c, has(c.name) && c.name.startsWith('w'))",
    "object.spec.containers.exists(c, has(c.name) && c.name == 'sidecar')",
    "object.spec.containers.all(c, has(c.image) && c.image != 'registry.example.com/platform/web:2.4.1-long')",
    "object.spec.containers.exists(c, has(c.resources.limits) && has(c.resources.limits.cpu))",
    "object.spec.containers.all(c, (has(c.resources) && has(c.resources.limits)) && 'cpu' in c.resources.limits)",
    "object.spec.containers.exists(c, c.name == 'sidecar' && has(c.resources.requests))",
    "object.spec.containers.all(c, !has(c.x) || c.x == 'y')",
    "object.spec.containers.all(c, has(c.missing) && c.missing.startsWith('a'))",
    "object.spec.containers.exists(c, c.missing == 'a' || c.name.endsWith('car'))",
    "object.spec.containers.all(c, dyn(c.name) == 'web' || has(c.resources.requests))",
    "object.spec.mixed.all(x, has(x.k) && x.k == 'a')",
    "object.spec.mixed.exists(x, has(x.k) || 'k' in x)",
    "object.spec.containers.all(c, has(c.resources.limits) && object.spec.containers.exists(d, "
    "has(d.resources.limits) && 'memory' in d.resources.limits))",
    "object.missing.exists(k, k == 'a')",
    "object.metadata.name.exists(k, k == 'a')",
    "object.spec.nothing.exists(x, x == 'a') || object.spec.priority.all(x, x != 'a')",
    "object.metadata.labels.exists(k, has(k.x) || k.startsWith('a'))",
    "object.metadata.labels.all(k, k.x.startsWith('a'))",
    "object.metadata.name.all(k, k.x.startsWith('a')) || object.spec.nothing.exists(k, has(k.x) && has(k.y))",
    "object.spec.containers.all(c, c.resources.exists(k, k == 'limits') || c.name.startsWith('t'))",
    "[object.spec.containers[0]].all(c, c.image.startsWith('registry')) && "
    "dyn(object.spec.containers).exists(c, has(c.resources) && 'limits' in c.resources)",
    "[object.metadata][0].labels.exists(k, k == 'app') && dyn(object.metadata.labels).all(k, k != '')",
    "object.spec.tags.exists(t, t == 'b') && m.exists(k, k == 'a') && !s.exists(k, k == 'x')",
    /* concatenation chains */
    "object.metadata.namespace + '/' + object.metadata.name",
    "'a' + 'b'",
    "'a' + 'b' + 'c' + 'd' + 'e' + 'f' + 'g' + 'h' + 'i' + 'j' + 'k' + 'l'",
    "object.metadata.uid + object.metadata.uid + '-' + object.metadata.uid",
    "object.metadata.namespace + '/' + object.spec.terminationGracePeriodSeconds",
    "object.metadata.namespace + object.missing + 'x'",
    "object.missing + 'x' + 'y'",
    "object.spec.terminationGracePeriodSeconds + 1 + 2",
    "9223372036854775807 + x + 1",
    "[1] + [2] + [3]",
    "b'ab' + b'cd' + b'ef'",
    "'a' + dyn(b'x') + 'c'",
    "'x' + 'y' + dyn(1)",
    "'0123456789' + 'abcdefghij' + 'k' + 'lmnopqrstuvwxyz0123456789'",
    /* pieces of every short length (copied inline) and non-ASCII pieces around the 10-byte cost threshold */
    "'a' + 'bc' + 'def' + 'ghij' + 'klmno' + 'pqrstu' + 'vwxyz01' + '23456789' + '012345678' + '0123456789abcdef' + "
    "'0123456789abcdefg' + '0123456789abcdefghijklmnopqrstuvwxyz' + '0123456789abcdefghijklmno' + "
    "'0123456789abcdefghijklmnopqrstuv' + '0123456789abcdefghijklmnopqrstuvw'",
    "'\u00e9' + '\u00e9\u00e9' + '\u00e9\u00e9\u00e9\u00e9\u00e9' + '\u65e5\u672c\u8a9e' + 'abcdefg\u00e9'",
    "object.metadata.uid + '/' + object.metadata.name + '/' + object.metadata.uid",
    /* paths sharing their first steps (plan.c plan_concat_share): the later walk starts where the earlier got */
    "object.metadata.name + object.metadata.labels.app + object.metadata.labels.tier + object.metadata.namespace",
    "object.metadata.labels.app + '/' + object.metadata.labels.tier + object.metadata.labels.app",
    "object.metadata.missing + object.metadata.name",
    "object.metadata.name + object.metadata.missing",
    "object.missing.x + object.missing.y",
    "object.metadata.name + object.metadata.labels",
    "object.metadata.labels + object.metadata.name",
    "object.spec.nested.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r + object.spec.nested.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r",
    "m.a.b + m.a.b + object.metadata.name",
    "object.metadata.name + '-' + object.metadata.name + object.metadata.name.substring(1)",
    "object.spec.containers[0].name + object.spec.containers[0].image",
    "object.spec.tags.x + object.spec.tags.y",
    "object.metadata.name + dyn(1) + object.metadata.namespace",
    /* a chain longer than the planned form (16 +): the rest is a chain of its own */
    "'a' + 'a' + 'a' + 'a' + 'a' + 'a' + 'a' + 'a' + 'a' + 'a' + 'a' + 'a' + 'a' + 'a' + 'a' + 'a' + 'a' + 'a'",
    "size(object.metadata.namespace + '/' + object.metadata.name) > 3",
    "(object.metadata.namespace + '/') + (object.metadata.name + '!')",
    /* comprehensions over JSON, absorption */
    "object.spec.containers.all(c, c.image.startsWith('registry.example.com/'))",
    "object.spec.containers.exists(c, c.image.startsWith('docker.io/'))",
    "object.spec.containers.all(c, has(c.resources.limits) && 'memory' in c.resources.limits)",
    "object.spec.containers.exists(c, c.resources.limits.memory == '512Mi')",
    "object.spec.containers.all(c, c.resources.limits.memory == '512Mi')",
    "object.spec.containers.map(c, c.name + ':' + c.image)",
    "object.spec.containers.filter(c, c.name != 'web').map(c, c.name)",
    "object.spec.containers.exists_one(c, c.name == 'sidecar')",
    "object.spec.tags.all(t, t != 'z') && object.spec.tags.exists(t, t == 'c')",
    "object.metadata.labels.all(k, v, v != 'x')",
    "object.spec.containers.all(i, c, c.name != '' && i >= 0)",
    "size(object.spec.containers) <= 10 && object.spec.terminationGracePeriodSeconds < 100",
    "object.metadata.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",
    "object.missing == 'x' || true",
    "object.missing == 'x' && false",
    "object.missing.x || object.metadata.name == 'web-7d4b9c6f5-x2x9k'",
    "object.spec.nothing == null ? object.metadata.namespace + '!' : 'no'",
    "cel.bind(n, object.metadata.name, n + '/' + n)",
    "cel.bind(b, object.spec.containers.exists(c, c.name == 'web'), b && cel.bind(y, [1].all(i, i > 0), y))",
    /* bool contexts (results kept in registers): !, ?:, comparisons, && / || with errors and non-bools */
    "!(object.metadata.name == 'x')",
    "!object.missing",
    "!dyn(1)",
    "object.spec.priority < 1 && object.spec.ratio > 1.0",
    "object.spec.ratio < 2 || object.metadata.name < 'zzz'",
    "object.missing < 1",
    "object.metadata.uid > 'a string longer than ten'",
    "dyn(1) && true",
    "true && dyn(1)",
    "dyn('x') || false",
    "dyn('x') || object.missing",
    "object.missing || dyn('x')",
    "object.spec.containers.all(c, dyn(c.name))",
    "object.spec.containers.exists(c, dyn(c.name))",
    "object.spec.containers.exists(c, c.missing == 'x')",
    "object.spec.containers.all(c, c.missing == 'x')",
    "object.spec.containers.all(c, c.name == 'web' || c.missing)",
    "(object.spec.nothing == null ? object.missing : true) || true",
    "dyn(1) ? true : false",
    "object.spec.containers.all(c, object.spec.tags.exists(t, c.name.startsWith(t) || t == 'c'))",
    "[object.metadata.labels.exists(k, k == 'app')][0]",
    /* calls with one candidate overload (and host values of another kind than declared) */
    "object.metadata.name.startsWith('web')",
    "object.metadata.name.endsWith('x9k') && object.metadata.name.contains('7d4b')",
    "object.missing.startsWith('x')",
    "object.metadata.uid.startsWith('\\u00e9t') && object.metadata.uid.endsWith('0123456789')",
    "object.metadata.uid.startsWith('') && object.metadata.uid.endsWith('')",
    "'ab'.startsWith('abc') || 'ab'.endsWith('xab') || ''.startsWith('a')",
    "'abcdefghij'.startsWith('a') && 'abcdefghijk'.endsWith('k') && 'abcdefghijabcdefghij'.startsWith('b') == false",
    "size('abcde' + 'fghij') + size('abcde' + 'fghijk') + size('abcdefghij' + 'abcdefghij' + 'x')",
    "object.spec.containers.map(c, c.image.endsWith(':2.4.1'))",
    "object.spec.containers[0].image.startsWith(object.metadata.namespace)",
    "dyn(object.spec.tags).startsWith('a')",
    "'abc'.startsWith(object.missing)",
    "object.spec.priority.startsWith('x')",
    "str.startsWith('a')",
    "str.size()",
    "size(str)",
    "str + 'x'",
    "str == 'x'",
    "size(object.spec.containers)",
    /* size(path) as a comparison operand (the length of a JSON array/object taken in place) */
    "size(object.metadata.labels) > 2 && 1 < size(object.spec.tags) && size(object.spec.tags) >= 3",
    "size(object.metadata.name) < 100 && size(object.metadata.uid) <= 17",
    "size(object.spec.nothing) < 1",
    "size(object.missing) < 1 || size(object.spec.priority) > 0",
    "object.spec.containers.all(c, size(c.name) > 2 && size(c.resources) >= 0)",
    "size(object.spec.terminationGracePeriodSeconds) > 1.5",
    "size(object.metadata.name) + size(object.metadata.labels) + size(dyn(b'abc')) + size(object.metadata.uid)",
    "size(object.spec.priority)",
    "object.metadata.uid.size() + object.spec.tags.size() + object.metadata.labels.size() + size([1, 2]) + size({})",
    "size(object.spec.nothing)",
    "size(b'\\xff\\x00') + size('\\u65e5\\u672c')",
    "size(object.missing)",
    "int(dyn('12')) + int(object.spec.ratio) + int(object.spec.terminationGracePeriodSeconds)",
    "int(object.metadata.name)",
    "string(object.spec.enabled) + string(object.spec.priority) + string(object.spec.nothing)",
    "duration(object.metadata.name)",
    "timestamp(object.metadata.name)",
    "double(object.spec.tags)",
    "object.metadata.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",
    "object.metadata.name.lowerAscii().upperAscii()",
    "matches(object.metadata.uid, '\\\\d+$') && object.metadata.uid.matches('^\\u00e9')",
    "object.spec.priority.matches('x')",
    "'abcdefghij'.matches('j$') && ''.matches('^$') && 'abcdefghijabcdefghij'.matches('(a|b)')",
    "object.missing.matches('x')",
    "str.matches('a')",
    "object.metadata.name.matches(object.metadata.namespace)",
    "'\\u65e5\\u672c\\u65e5\\u672c'.matches('\\u672c.\\u672c') || object.metadata.name.matches('(a|b|c|d|e|f)+x{2,}')",
#ifdef KGATE_HAVE_CEL_K8S
    "quantity('1Gi').isGreaterThan(quantity('1Mi'))",
    "quantity(object.spec.containers[0].resources.limits.memory).compareTo(quantity('1Gi')) < 0",
#endif
    "int(object.spec.terminationGracePeriodSeconds) + 1",
    "string(object.spec.ratio) + '!'",
    "object.metadata.name.split('-').size() == 3",
    "object.?metadata.?name.orValue('none') + '/' + object.?missing.?x.orValue('none')",
    /* concatenations over comprehension variables, and roots evaluated without the jump target */
    "object.spec.containers.map(c, c.name + ':' + c.image)",
    "object.spec.containers.all(c, (c.name + '/' + c.image + '/' + c.name).size() > 12)",
    "object.spec.containers.map(c, object.metadata.name + '.' + c.name)",
    "object.metadata.uid + object.metadata.name + object.metadata.uid",
    "object.metadata.labels.tier + object.metadata.labels.app + object.metadata.labels.tier",
    "object.metadata.name + object.spec.priority",
    "object.metadata.uid.endsWith('9')",
    "object.metadata.uid.startsWith('\u00e9t')",
    "object.metadata.labels['long-label-key'].startsWith('a-')",
    "object.spec.nothing.startsWith('a')",
    "object.metadata.missing.endsWith('a')",
    "object.spec.priority.matches('0')",
    /* roots made only of the bool fast forms (and near misses: other types, absent keys, non-path operands) */
    "object.spec.priority < 1 && object.spec.terminationGracePeriodSeconds >= 30",
    "size(object.spec.containers) <= 10 && object.spec.terminationGracePeriodSeconds < 100",
    "size(object.metadata.labels) > 2 || size(object.spec.tags) < 0",
    "object.spec.ratio < 2 && object.spec.priority < 2",
    "object.spec.priority < 2 || object.spec.ratio < 2",
    "size(object.metadata.name) < 30 && object.spec.priority == 0",
    "has(object.metadata.labels.app) && 'tier' in object.metadata.labels && object.metadata.labels.app == 'web'",
    "has(object.spec.nothing.x) || 'x' in object.spec.tags",
    "object.metadata.name == 'web-7d4b9c6f5-x2x9k' || object.spec.nothing",
    "object.metadata.labels['long-label-key'] != 'a-value-longer-than-ten' && true",
    "object.metadata.labels.tier != 'a-value-longer-than-ten' || false",
    "object.spec.missing < 3 || object.spec.enabled",
    "object.spec.terminationGracePeriodSeconds > size(object.spec.containers) && x < 2",
    "object.metadata.uid.startsWith('\u00e9') && object.metadata.name.matches('^web-') && size(object.spec.tags) == 3",
    "object.metadata.labels.exists(k, k == 'app')",
    "object.metadata.labels.exists(k, k == 'zzz') || object.metadata.labels.all(k, k != 'tier')",
    "object.metadata.labels.all(k, k != 'zzz') && object.spec.tags.exists(t, t == 'c')",
    "object.spec.mixed.exists(t, t == 'a')",
    "object.metadata.labels.exists(k, k == 'long-label-key')",
    "object.spec.nothing.exists(k, k == 'a') || true",
    "object.spec.tags.exists_one(t, t == 'b')",
    "object.spec.containers.all(c, object.metadata.labels.exists(k, k == 'app'))",
};

typedef struct fx {
    cel_env *env;
    kg_arena data, arena;
    kg_json *doc;
    cel_value m;
} fx;

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    f->env = cel_env_new(CEL_LIB_K8S | CEL_LIB_BINDINGS);
    cel_env_set_options(f->env, CEL_OPT_K8S);
    cel_env_declare_var(f->env, "object", cel_type_dyn());
    cel_env_declare_var(f->env, "m", cel_type_dyn());
    cel_env_declare_var(f->env, "s", cel_type_dyn());
    cel_env_declare_var(f->env, "x", cel_type_int());
    cel_env_declare_var(f->env, "str", cel_type_string());
#ifdef KGATE_HAVE_CEL_K8S
    cel_error kerr;
    cel_k8s_options ko = {.version = 33};
    assert_true(cel_k8s_register(f->env, &ko, &kerr));
#endif
    kg_arena_init(&f->data, 0);
    kg_arena_init(&f->arena, 0);
    kg_error jerr;
    f->doc = kg_json_parse(&f->data, doc_text, strlen(doc_text), &jerr);
    assert_non_null(f->doc);
    /* a native map {"a": {"b": "native"}} */
    cel_value ik = cel_string("b", 1), iv = cel_string("native", 6);
    cel_value inner = cel_map_new(&f->data, &ik, &iv, 1);
    cel_value ok = cel_string("a", 1);
    f->m = cel_map_new(&f->data, &ok, &inner, 1);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    kg_arena_free(&f->arena);
    kg_arena_free(&f->data);
    cel_env_free(f->env);
    free(f);
    return 0;
}

typedef struct outcome {
    cel_eval_status st;
    const char *text;
    uint64_t cost;
} outcome;

static outcome eval_once(fx *f, const cel_program *p, uint64_t limit)
{
    cel_activation *act = cel_activation_new(f->env, &f->arena);
    cel_activation_set(act, "object", cel_json_to_value(f->doc));
    cel_activation_set(act, "m", f->m);
    cel_activation_set(act, "s", cel_string("str", 3));
    cel_activation_set(act, "x", cel_int(1));
    cel_activation_set(act, "str", cel_int(5)); /* a host binding of another type than declared */
    cel_value v;
    outcome o = {0};
    o.st = cel_eval(p, act, limit, &v, &o.cost);
    o.text = o.st == CEL_EVAL_OK ? cel_value_debug(&f->arena, &v) : kg_arena_strdup(&f->arena, cel_error_message(&v));
    return o;
}

/* the same bindings by slot, without an activation (cel_eval_slots); n < 5 leaves the last slots unbound */
static outcome eval_slots_once(fx *f, const cel_program *p, uint64_t limit, size_t n)
{
    const cel_value vals[5] = {cel_json_to_value(f->doc), f->m, cel_string("str", 3), cel_int(1), cel_int(5)};
    assert_int_equal(cel_env_var_slot(f->env, "object"), 0);
    assert_int_equal(cel_env_var_slot(f->env, "str"), 4);
    cel_value v;
    outcome o = {0};
    o.st = cel_eval_slots(p, &f->arena, vals, n, limit, &v, &o.cost);
    o.text = o.st == CEL_EVAL_OK ? cel_value_debug(&f->arena, &v) : kg_arena_strdup(&f->arena, cel_error_message(&v));
    /* the values were read in place, never written */
    assert_int_equal(vals[0].kind, CEL_MAP);
    assert_int_equal(vals[3].u.i, 1);
    return o;
}

static void same(const char *src, const char *what, uint64_t limit, outcome a, outcome b)
{
    if (a.st != b.st || a.cost != b.cost || strcmp(a.text, b.text) != 0)
        fail_msg("%s (%s, limit %llu): planned [%d] %s cost %llu, unplanned [%d] %s cost %llu", src, what,
                 (unsigned long long)limit, (int)a.st, a.text, (unsigned long long)a.cost, (int)b.st, b.text,
                 (unsigned long long)b.cost);
}

static void check_expr(fx *f, const char *src)
{
    cel_program *planned = NULL, *plain = NULL;
    cel_error err;
    if (!cel_compile(f->env, src, NULL, &planned, &err))
        fail_msg("%s: %s", src, err.message);
    assert_true(cel_compile(f->env, src, NULL, &plain, &err));
    cel_plan_clear(plain);
    assert_int_equal(cel_plan_count(plain), 0);
    /* twice: the second run uses the member hints left by the first */
    for (int rep = 0; rep < 2; rep++) {
        kg_arena_reset(&f->arena);
        outcome a = eval_once(f, planned, CEL_NO_COST_LIMIT), b = eval_once(f, plain, CEL_NO_COST_LIMIT);
        same(src, "no limit", CEL_NO_COST_LIMIT, a, b);
        same(src, "by slot", CEL_NO_COST_LIMIT, a, eval_slots_once(f, planned, CEL_NO_COST_LIMIT, 5));
        for (uint64_t lim = 0; lim <= b.cost + 1; lim++) {
            kg_arena_reset(&f->arena);
            outcome u = eval_once(f, plain, lim);
            same(src, "limit", lim, eval_once(f, planned, lim), u);
            same(src, "limit, by slot", lim, eval_slots_once(f, planned, lim, 5), u);
        }
    }
    cel_program_free(planned);
    cel_program_free(plain);
}

static void test_planned_equals_unplanned(void **state)
{
    fx *f = *state;
    for (size_t i = 0; i < sizeof exprs / sizeof *exprs; i++)
        check_expr(f, exprs[i]);
}

/* the shapes the planner is meant to catch are planned */
static void test_plan_applies(void **state)
{
    fx *f = *state;
    static const struct {
        const char *src;
        size_t min_planned;
    } cases[] = {
        {"object.metadata.name", 1},
        {"'app' in object.metadata.labels", 2},
        {"object.metadata.namespace == 'prod'", 2},
        {"object.metadata.namespace + '/' + object.metadata.name", 4},
        {"1 + 2", 1},
        {"object.metadata.name.startsWith('web')", 2},
        {"size(object.metadata.name)", 2},
        {"object.metadata.name.matches('^w')", 2},
        {"true", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cel_program *p = NULL;
        cel_error err;
        assert_true(cel_compile(f->env, cases[i].src, NULL, &p, &err));
        if (cel_plan_count(p) < cases[i].min_planned)
            fail_msg("%s: %zu planned nodes, want >= %zu", cases[i].src, cel_plan_count(p), cases[i].min_planned);
        cel_program_free(p);
    }
}

/* cel_eval_slots with fewer values than the env declares: the rest are unbound ("no such attribute"), in the fast
 * root forms (which then miss) and in the general evaluation alike */
static void test_eval_slots_unbound(void **state)
{
    fx *f = *state;
    static const struct {
        const char *src;
        size_t n;
        const char *want;
    } cases[] = {
        {"object.metadata.name.startsWith('web')", 1, "true"},
        {"object.metadata.namespace + '/' + object.metadata.name", 1, "\"prod/web-7d4b9c6f5-x2x9k\""},
        {"x < 3", 3, "no such attribute(s): x"},
        {"x < 3", 4, "true"},
        {"object.metadata.name.startsWith('web')", 0, "no such attribute(s): object"},
        {"object.metadata.namespace + '/' + object.metadata.name", 0, "no such attribute(s): object"},
        {"size(object.spec.containers) < 5 && str == 'x'", 4, "no such attribute(s): str"},
    };
    const cel_value vals[5] = {cel_json_to_value(f->doc), f->m, cel_string("str", 3), cel_int(1), cel_int(5)};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cel_program *p = NULL;
        cel_error err;
        assert_true(cel_compile(f->env, cases[i].src, NULL, &p, &err));
        kg_arena_reset(&f->arena);
        cel_value v;
        cel_eval_status st = cel_eval_slots(p, &f->arena, vals, cases[i].n, CEL_NO_COST_LIMIT, &v, NULL);
        const char *got = st == CEL_EVAL_OK ? cel_value_debug(&f->arena, &v) : cel_error_message(&v);
        if (strcmp(got, cases[i].want) != 0)
            fail_msg("%s with %zu values: %s, want %s", cases[i].src, cases[i].n, got, cases[i].want);
        cel_program_free(p);
    }
}

/* which roots run without the cost limit's jump target (eval_fast.c eval_root_*), and which concatenations have the
 * fast form */
static void test_root_fast_forms(void **state)
{
    fx *f = *state;
    static const struct {
        const char *src;
        int root_fast; /* ROOT_FAST_* */
        bool cat_fast;
    } cases[] = {
        {"object.metadata.namespace + '/' + object.metadata.name", ROOT_FAST_CONCAT, true},
        {"'<' + object.metadata.name + '>'", ROOT_FAST_CONCAT, true},
        {"object.metadata.name.matches('^w')", ROOT_FAST_BOOL, false},
        {"object.metadata.name.startsWith('w')", ROOT_FAST_BOOL, false},
        {"object.metadata.name.endsWith('w')", ROOT_FAST_BOOL, false},
        {"object.metadata.name == 'w'", ROOT_FAST_BOOL, false},
        {"size(object.spec.containers) <= 10 && object.spec.terminationGracePeriodSeconds < 100", ROOT_FAST_BOOL,
         false},
        {"has(object.metadata.name) || 'a' in object.metadata.labels && true", ROOT_FAST_BOOL, false},
        {"object.metadata.labels.exists(k, k == 'app')", ROOT_FAST_BOOL, false},
        {"object.metadata.labels.all(k, k != 'app') || object.spec.priority < 3", ROOT_FAST_BOOL, false},
        {"object.metadata.labels.exists(k, k.startsWith('a'))", ROOT_FAST_NONE, false},
        {"s.startsWith('w')", ROOT_FAST_NONE, false},        /* not a path */
        {"object.metadata.name + s", ROOT_FAST_NONE, false}, /* an operand neither a constant nor a path */
        {"object.metadata.name + string(x)", ROOT_FAST_NONE, false},
        {"size(object.metadata.name) + 1", ROOT_FAST_NONE, false}, /* + of ints: planned as a chain, no fast form */
        {"x < 3", ROOT_FAST_NONE, false},                          /* a variable, not a path */
        {"object.spec.ratio < 2.5", ROOT_FAST_NONE, false},        /* a double constant */
        {"object.spec.priority < 1 && !has(object.spec.x)", ROOT_FAST_NONE, false}, /* ! is not a fast form */
        {"has(object.metadata) && true", ROOT_FAST_NONE, false},                    /* has() on a variable's field */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cel_program *p = NULL;
        cel_error err;
        if (!cel_compile(f->env, cases[i].src, NULL, &p, &err))
            fail_msg("%s: %s", cases[i].src, err.message);
        if (p->root_fast != cases[i].root_fast)
            fail_msg("%s: root_fast %d, want %d", cases[i].src, p->root_fast, cases[i].root_fast);
        bool cat = p->root->xk == X_CONCAT && p->root->xp && ((const cat_chain *)p->root->xp)->fast;
        if (cat != cases[i].cat_fast)
            fail_msg("%s: concat fast form %d", cases[i].src, cat);
        cel_plan_clear(p);
        assert_false(p->root_fast);
        cel_program_free(p);
    }
    /* a concatenation inside a comprehension: the fast form, over the iteration variable */
    cel_program *p = NULL;
    cel_error err;
    assert_true(cel_compile(f->env, "object.spec.containers.map(c, c.name + '/' + c.image)", NULL, &p, &err));
    assert_false(p->root_fast);
    cel_program_free(p);
}

/* the member hint is only a guess: objects of other shapes (keys elsewhere, fewer members, missing keys) evaluated
 * with the same program after each other give the right answers */
static void test_hint_other_shapes(void **state)
{
    fx *f = *state;
    static const char *docs[] = {
        "{\"a\":{\"x\":1,\"y\":2,\"z\":3}}",
        "{\"a\":{\"z\":30,\"y\":20,\"x\":10}}",
        "{\"a\":{\"z\":300}}",
        "{\"a\":{}}",
        "{\"a\":{\"zz\":1,\"z\":4000}}",
        "{\"b\":{}}",
        "{\"a\":{\"y\":1,\"x\":2,\"z\":5}}",
    };
    static const char *want[] = {"3", "30", "300", "no such key: z", "4000", "no such key: a", "5"};
    cel_program *p = NULL;
    cel_error err;
    assert_true(cel_compile(f->env, "object.a.z", NULL, &p, &err));
    for (int rep = 0; rep < 2; rep++)
        for (size_t i = 0; i < sizeof docs / sizeof *docs; i++) {
            kg_arena_reset(&f->arena);
            kg_error jerr;
            kg_json *d = kg_json_parse(&f->arena, docs[i], strlen(docs[i]), &jerr);
            assert_non_null(d);
            cel_activation *act = cel_activation_new(f->env, &f->arena);
            cel_activation_set(act, "object", cel_json_to_value(d));
            cel_value v;
            cel_eval_status st = cel_eval(p, act, CEL_NO_COST_LIMIT, &v, NULL);
            const char *got =
                st == CEL_EVAL_OK ? cel_value_debug(&f->arena, &v) : kg_arena_strdup(&f->arena, cel_error_message(&v));
            if (strcmp(got, want[i]) != 0)
                fail_msg("doc %zu: got %s, want %s", i, got, want[i]);
        }
    cel_program_free(p);
}

/* concatenations of paths that share their first steps, over documents of other shapes one after the other (the
 * hints move, keys go missing, the shared prefix ends on something that is not an object): the planned program
 * gives the unplanned program's values, errors and costs, under every cost limit */
static void test_concat_shared_prefix(void **state)
{
    fx *f = *state;
    static const char *docs[] = {
        "{\"a\":{\"x\":\"1\",\"y\":\"2\",\"b\":{\"c\":\"3\",\"d\":\"4\"}}}",
        "{\"a\":{\"b\":{\"d\":\"40\",\"c\":\"30\"},\"y\":\"20\",\"x\":\"10\"}}",
        "{\"a\":{\"y\":\"200\",\"b\":{\"c\":\"300\"}}}", "{\"a\":{\"x\":\"1000\",\"y\":2000,\"b\":[1]}}",
        "{\"a\":[\"x\"]}", "{\"b\":{}}",
        "{\"a\":{\"x\":\"\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\",\"y\":\"0123456789\",\"b\":{\"c\":\"x\"}}}",
        /* raw UTF-8 (the parser's slow path: code points counted) next to plain ASCII (byte lengths taken) */
        "{\"a\":{\"x\":\"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\",\"y\":\"01234567890\",\"b\":{\"c\":"
        "\"\xe6\x97\xa5\","
        "\"d\":\"abcdefghijklmnopqrstuvwxyz\"}}}",
        NULL, /* a string longer than the arena's free space (the fast form leaves it to the general one) */
        NULL, /* two strings that fill the free space only together */
    };
    static const char *srcs[] = {
        "object.a.x + '/' + object.a.y",
        "object.a.b.c + object.a.b.d + object.a.x",
        "object.a.x + object.a.b.c + object.a.b.d + object.a.y",
        "object.a.y + object.a.y",
        "'<' + object.a.b.d + '|' + object.a.b.c + '>'",
    };
    {
        /* the plan: object.a.y starts where object.a.x got after one step */
        cel_program *p = NULL;
        cel_error err;
        assert_true(cel_compile(f->env, srcs[0], NULL, &p, &err));
        const cel_node *top = p->root, *x = top->args[0]->args[0], *y = top->args[1];
        assert_int_equal(top->xk, X_CONCAT);
        assert_int_equal(x->xk, X_PATH);
        assert_int_equal(y->xk, X_PATH);
        const path_plan *px = x->xp, *py = y->xp;
        assert_int_equal(px->save, 1);
        assert_int_equal(px->from, -1);
        assert_int_equal(py->from, 0);
        assert_int_equal(py->from_m, 1);
        cel_program_free(p);
    }
    for (size_t e = 0; e < sizeof srcs / sizeof *srcs; e++) {
        cel_program *planned = NULL, *plain = NULL;
        cel_error err;
        assert_true(cel_compile(f->env, srcs[e], NULL, &planned, &err));
        assert_true(cel_compile(f->env, srcs[e], NULL, &plain, &err));
        cel_plan_clear(plain);
        for (int rep = 0; rep < 2; rep++)
            for (size_t i = 0; i < sizeof docs / sizeof *docs; i++) {
                kg_error jerr;
                const char *text = docs[i];
                if (!text) {
                    /* x: 9000 bytes; or x and b.d: 4000 each */
                    size_t nx = docs[i - 1] ? 9000 : 4000, nd = docs[i - 1] ? 3 : 4000;
                    char *t = kg_arena_alloc(&f->data, nx + nd + 100), *w = t;
                    w += sprintf(w, "{\"a\":{\"y\":\"yy\",\"x\":\"");
                    memset(w, 'x', nx);
                    w += nx;
                    w += sprintf(w, "\",\"b\":{\"c\":\"c\",\"d\":\"");
                    memset(w, 'd', nd);
                    w += nd;
                    sprintf(w, "\"}}}");
                    text = t;
                }
                kg_json *d = kg_json_parse(&f->data, text, strlen(text), &jerr);
                assert_non_null(d);
                outcome b = {0};
                for (uint64_t lim = 0; lim <= b.cost + 2; lim++) {
                    outcome o[2];
                    for (int w = 0; w < 2; w++) {
                        kg_arena_reset(&f->arena);
                        cel_activation *act = cel_activation_new(f->env, &f->arena);
                        cel_activation_set(act, "object", cel_json_to_value(d));
                        cel_value v;
                        o[w].st = cel_eval(w ? plain : planned, act, lim == b.cost + 2 ? CEL_NO_COST_LIMIT : lim, &v,
                                           &o[w].cost);
                        o[w].text = o[w].st == CEL_EVAL_OK ? cel_value_debug(&f->data, &v)
                                                           : kg_arena_strdup(&f->data, cel_error_message(&v));
                    }
                    same(srcs[e], docs[i] ? docs[i] : "(long strings)", lim, o[0], o[1]);
                    if (lim == 0) {
                        /* the full cost first: the limits to try */
                        kg_arena_reset(&f->arena);
                        cel_activation *act = cel_activation_new(f->env, &f->arena);
                        cel_activation_set(act, "object", cel_json_to_value(d));
                        cel_value v;
                        cel_eval(plain, act, CEL_NO_COST_LIMIT, &v, &b.cost);
                    }
                }
            }
        cel_program_free(planned);
        cel_program_free(plain);
    }
}

/* cel_activation_set: names sharing their first byte (the first candidate is not the name), set twice, undeclared
 * names (extra bindings, found by a resolver-less lookup as errors), the empty name */
static void test_activation_set_names(void **state)
{
    (void)state;
    cel_env *env = cel_env_new(0);
    static const char *names[] = {"oa", "o", "ob", "obc", ""};
    for (size_t i = 0; i < 4; i++)
        assert_true(cel_env_declare_var(env, names[i], cel_type_int()));
    kg_arena a;
    kg_arena_init(&a, 0);
    cel_program *p = NULL;
    cel_error err;
    assert_true(cel_compile(env, "oa * 1000 + o * 100 + ob * 10 + obc", NULL, &p, &err));
    cel_activation *act = cel_activation_new(env, &a);
    cel_activation_set(act, "obc", cel_int(9));
    cel_activation_set(act, "ob", cel_int(3));
    cel_activation_set(act, "o", cel_int(2));
    cel_activation_set(act, "oa", cel_int(1));
    cel_activation_set(act, "obc", cel_int(4));
    cel_activation_set(act, "oz", cel_int(7)); /* undeclared: an extra binding */
    cel_activation_set(act, "", cel_int(8));
    cel_activation_set(act, "oz", cel_int(6));
    cel_value v;
    assert_int_equal(cel_eval(p, act, CEL_NO_COST_LIMIT, &v, NULL), CEL_EVAL_OK);
    assert_int_equal(v.kind, CEL_INT);
    assert_int_equal(v.u.i, 1234);
    assert_int_equal(act->slots[0].kind, CEL_INT);
    size_t extras = 0;
    for (bound_var *b = act->extra; b; b = b->next) {
        extras++;
        if (!strcmp(b->name, "oz"))
            assert_int_equal(b->v.u.i, 6);
    }
    assert_int_equal(extras, 2);
    cel_program_free(p);
    kg_arena_free(&a);
    cel_env_free(env);
}

/* binding by slot: the slot is the declaration's, a slot the env lacks binds nothing, an activation made before
 * more declarations gets their slots (unbound) when a program that reads them runs, and the resolver is asked once
 * for an unbound slot (a refusal is remembered) */
static int resolver_calls;
static bool resolve_late(void *ud, cel_call_ctx *ctx, const char *name, cel_value *out)
{
    (void)ud;
    (void)ctx;
    resolver_calls++;
    if (!strcmp(name, "late")) {
        *out = cel_int(40);
        return true;
    }
    return false;
}

static void test_activation_bind_slots(void **state)
{
    (void)state;
    cel_env *env = cel_env_new(0);
    assert_true(cel_env_declare_var(env, "a", cel_type_int()));
    assert_true(cel_env_declare_var(env, "b", cel_type_int()));
    assert_int_equal(cel_env_var_slot(env, "a"), 0);
    assert_int_equal(cel_env_var_slot(env, "b"), 1);
    assert_int_equal(cel_env_var_slot(env, "c"), -1);
    kg_arena a;
    kg_arena_init(&a, 0);
    cel_activation *act = cel_activation_new(env, &a); /* before "late" and "never" are declared */
    assert_true(cel_activation_bind(act, 1, cel_int(2)));
    assert_false(cel_activation_bind(act, -1, cel_int(9)));
    assert_false(cel_activation_bind(act, 2, cel_int(9))); /* not declared yet */
    assert_true(cel_env_declare_var(env, "late", cel_type_int()));
    assert_true(cel_env_declare_var(env, "never", cel_type_int()));
    int late = cel_env_var_slot(env, "late");
    assert_int_equal(late, 2);
    cel_activation_set_resolver(act, resolve_late, NULL);
    cel_program *p = NULL, *q = NULL;
    cel_error err;
    assert_true(cel_compile(env, "a * 100 + b * 10 + late", NULL, &p, &err));
    assert_true(cel_compile(env, "never", NULL, &q, &err));
    cel_value v;
    /* a is unbound and the resolver does not know it */
    assert_int_equal(cel_eval(p, act, CEL_NO_COST_LIMIT, &v, NULL), CEL_EVAL_ERROR);
    assert_string_equal(cel_error_message(&v), "no such attribute(s): a");
    assert_int_equal(resolver_calls, 2); /* "a" refused; "late" (the other operand is still evaluated) resolved */
    assert_true(cel_activation_bind(act, cel_env_var_slot(env, "a"), cel_int(1)));
    assert_int_equal(cel_eval(p, act, CEL_NO_COST_LIMIT, &v, NULL), CEL_EVAL_OK);
    assert_int_equal(v.kind, CEL_INT);
    assert_int_equal(v.u.i, 160); /* "late" was resolved once and kept */
    assert_int_equal(resolver_calls, 2);
    assert_int_equal(cel_eval(p, act, CEL_NO_COST_LIMIT, &v, NULL), CEL_EVAL_OK);
    assert_int_equal(v.u.i, 160);
    assert_int_equal(resolver_calls, 2);
    for (int i = 0; i < 2; i++) { /* refused once, then remembered */
        assert_int_equal(cel_eval(q, act, CEL_NO_COST_LIMIT, &v, NULL), CEL_EVAL_ERROR);
        assert_string_equal(cel_error_message(&v), "no such attribute(s): never");
    }
    assert_int_equal(resolver_calls, 3);
    /* binding by slot and by name reach the same variable */
    assert_true(cel_activation_bind(act, late, cel_int(5)));
    assert_int_equal(cel_eval(p, act, CEL_NO_COST_LIMIT, &v, NULL), CEL_EVAL_OK);
    assert_int_equal(v.u.i, 125);
    cel_activation_set(act, "late", cel_int(7));
    assert_int_equal(cel_eval(p, act, CEL_NO_COST_LIMIT, &v, NULL), CEL_EVAL_OK);
    assert_int_equal(v.u.i, 127);
    cel_program_free(p);
    cel_program_free(q);
    kg_arena_free(&a);
    cel_env_free(env);
}

/* one program evaluated by several threads at once over documents of different shapes: the shared member hints
 * move all the time, the answers never do */
typedef struct hint_thread {
    cel_env *env;
    const cel_program *p;
    kg_json *docs[3];
    int failures;
} hint_thread;

static void *hint_worker(void *arg)
{
    hint_thread *t = arg;
    static const char *want[3] = {"3", "30", "no such key: z"};
    kg_arena a;
    kg_arena_init(&a, 0);
    for (int i = 0; i < 3000; i++) {
        kg_arena_reset(&a);
        int d = (int)(((uintptr_t)i + (uintptr_t)t / sizeof *t) % 3);
        cel_activation *act = cel_activation_new(t->env, &a);
        cel_activation_set(act, "object", cel_json_to_value(t->docs[d]));
        cel_value v;
        cel_eval_status st = cel_eval(t->p, act, CEL_NO_COST_LIMIT, &v, NULL);
        const char *got = st == CEL_EVAL_OK ? cel_value_debug(&a, &v) : cel_error_message(&v);
        if (strcmp(got, want[d]) != 0)
            t->failures++;
    }
    kg_arena_free(&a);
    return NULL;
}

static void test_hint_threads(void **state)
{
    fx *f = *state;
    static const char *docs[3] = {"{\"a\":{\"x\":1,\"y\":2,\"z\":3}}", "{\"a\":{\"z\":30,\"y\":20}}",
                                  "{\"a\":{\"y\":1}}"};
    cel_program *p = NULL;
    cel_error err;
    assert_true(cel_compile(f->env, "object.a.z", NULL, &p, &err));
    hint_thread ts[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        ts[i].env = f->env;
        ts[i].p = p;
        ts[i].failures = 0;
        for (int d = 0; d < 3; d++) {
            kg_error jerr;
            ts[i].docs[d] = kg_json_parse(&f->data, docs[d], strlen(docs[d]), &jerr);
            assert_non_null(ts[i].docs[d]);
        }
        assert_int_equal(pthread_create(&th[i], NULL, hint_worker, &ts[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(ts[i].failures, 0);
    }
    cel_program_free(p);
}

/* CEL -> JSON of numbers beyond the int64 range (the fuzz target met 2.2222e+28): number nodes with their text,
 * no int64 conversion of the double (undefined behaviour, UBSan) */
static void test_json_big_numbers(void **state)
{
    fx *f = *state;
    struct {
        cel_value v;
        const char *want;
    } cases[] = {
        {cel_double(2.2222e28), "2.2222e+28"},
        {cel_double(-9.3e18), "-9300000000000000000"},
        {cel_uint(18446744073709551615ull), "18446744073709551615"},
        {cel_double(4096.0), "4096"},
        {cel_double(1.5), "1.5"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char eb[128];
        kg_json *j = cel_value_to_json(&f->arena, &cases[i].v, eb, sizeof eb);
        assert_non_null(j);
        const char *got = kg_json_to_string(&f->arena, j, 0, NULL);
        if (strcmp(got, cases[i].want) != 0)
            fail_msg("case %zu: got %s, want %s", i, got, cases[i].want);
    }
}

/* cel_utf8_len (word-at-a-time count of non-continuation bytes, used by size() and the string costs) against a
 * byte loop, for every length 0..64 at every alignment, over random bytes */
static void test_utf8_len(void **state)
{
    (void)state;
    unsigned seed = 1;
    char buf[80];
    for (int rep = 0; rep < 200; rep++)
        for (size_t n = 0; n <= 64; n++)
            for (size_t off = 0; off < 8; off++) {
                for (size_t i = 0; i < n; i++) {
                    seed = seed * 1103515245u + 12345u;
                    unsigned r = seed >> 16;
                    buf[off + i] = (char)((r & 3) == 0 ? 'a' : (r & 3) == 1 ? 0x80 | (r >> 2 & 63) : (r >> 2) & 255);
                }
                size_t want = 0;
                for (size_t i = 0; i < n; i++)
                    want += ((unsigned char)buf[off + i] & 0xC0) != 0x80;
                assert_int_equal(cel_utf8_len(buf + off, n), want);
                assert_int_equal(cel_utf8_len_i(buf + off, n), want);
            }
    /* the inline form's ASCII test: ASCII strings of every length with one byte of bit 7 (a lead or a continuation
     * byte) at each position, so each of its word loads is the one that has to see it */
    for (size_t n = 0; n <= 72; n++)
        for (size_t p = 0; p <= n; p++)
            for (int hb = 0; hb < 2; hb++) {
                /* exactly n bytes on the heap: a read past the end is an error under ASan */
                char *h = malloc(n ? n : 1);
                assert_non_null(h);
                for (size_t i = 0; i < n; i++)
                    h[i] = (char)('a' + i % 26);
                if (p < n)
                    h[p] = (char)(hb ? 0x80 : 0xC3);
                size_t want = n - (p < n && hb);
                assert_int_equal(cel_utf8_len_i(h, n), want);
                assert_int_equal(cel_utf8_len(h, n), want);
                free(h);
            }
}

/* fused comprehension predicates (has/in/==/startsWith over paths from the variable, the has-then-in reuse, key
 * compares) evaluated by several threads at once over documents whose objects have their keys in other orders:
 * results and costs stay those of one thread alone */
typedef struct fused_thread {
    cel_env *env;
    const cel_program *p[3];
    kg_json *docs[3];
    const char *want[3][3];
    uint64_t want_cost[3][3];
    int failures;
} fused_thread;

static void *fused_worker(void *arg)
{
    fused_thread *t = arg;
    kg_arena a;
    kg_arena_init(&a, 0);
    for (int i = 0; i < 2000; i++) {
        kg_arena_reset(&a);
        int d = (int)(((uintptr_t)i + (uintptr_t)t / sizeof *t) % 3), e = i % 3;
        cel_activation *act = cel_activation_new(t->env, &a);
        cel_activation_set(act, "object", cel_json_to_value(t->docs[d]));
        cel_value v;
        uint64_t cost;
        cel_eval_status st = cel_eval(t->p[e], act, CEL_NO_COST_LIMIT, &v, &cost);
        const char *got = st == CEL_EVAL_OK ? cel_value_debug(&a, &v) : cel_error_message(&v);
        if (strcmp(got, t->want[e][d]) != 0 || cost != t->want_cost[e][d])
            t->failures++;
    }
    kg_arena_free(&a);
    return NULL;
}

static void test_fused_threads(void **state)
{
    fx *f = *state;
    static const char *docs[3] = {
        "{\"l\":{\"app\":\"x\",\"b\":1},\"cs\":[{\"n\":\"web\",\"r\":{\"lim\":{\"m\":1}}},{\"n\":\"s\",\"r\":{}}]}",
        "{\"cs\":[{\"r\":{\"x\":0,\"lim\":{\"c\":2,\"m\":1}},\"n\":\"web2\"}],\"l\":{\"b\":1,\"c\":2,\"app\":\"y\"}}",
        "{\"l\":{},\"cs\":[{\"n\":\"a\"},{\"r\":{\"lim\":{}},\"n\":\"webx\"},{\"n\":\"web\",\"r\":{\"lim\":{\"m\":3}}}]"
        "}",
    };
    static const char *srcs[3] = {
        "object.cs.all(c, has(c.r.lim) && 'm' in c.r.lim)",
        "object.l.exists(k, k == 'app')",
        "object.cs.exists(c, c.n.startsWith('web') && has(c.r))",
    };
    fused_thread ts[4];
    pthread_t th[4];
    cel_program *progs[3];
    for (int e = 0; e < 3; e++) {
        cel_error err;
        assert_true(cel_compile(f->env, srcs[e], NULL, &progs[e], &err));
    }
    kg_json *pd[3];
    for (int d = 0; d < 3; d++) {
        kg_error jerr;
        pd[d] = kg_json_parse(&f->data, docs[d], strlen(docs[d]), &jerr);
        assert_non_null(pd[d]);
    }
    /* the answers of one thread alone, from unplanned programs */
    const char *want[3][3];
    uint64_t want_cost[3][3];
    for (int e = 0; e < 3; e++) {
        cel_program *plain;
        cel_error err;
        assert_true(cel_compile(f->env, srcs[e], NULL, &plain, &err));
        cel_plan_clear(plain);
        for (int d = 0; d < 3; d++) {
            cel_activation *act = cel_activation_new(f->env, &f->data);
            cel_activation_set(act, "object", cel_json_to_value(pd[d]));
            cel_value v;
            cel_eval_status st = cel_eval(plain, act, CEL_NO_COST_LIMIT, &v, &want_cost[e][d]);
            want[e][d] =
                st == CEL_EVAL_OK ? cel_value_debug(&f->data, &v) : kg_arena_strdup(&f->data, cel_error_message(&v));
        }
        cel_program_free(plain);
    }
    for (int i = 0; i < 4; i++) {
        ts[i].env = f->env;
        ts[i].failures = 0;
        for (int e = 0; e < 3; e++) {
            ts[i].p[e] = progs[e];
            for (int d = 0; d < 3; d++) {
                ts[i].want[e][d] = want[e][d];
                ts[i].want_cost[e][d] = want_cost[e][d];
            }
        }
        for (int d = 0; d < 3; d++)
            ts[i].docs[d] = pd[d];
        assert_int_equal(pthread_create(&th[i], NULL, fused_worker, &ts[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(ts[i].failures, 0);
    }
    for (int e = 0; e < 3; e++)
        cel_program_free(progs[e]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_planned_equals_unplanned, setup, teardown),
        cmocka_unit_test_setup_teardown(test_plan_applies, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hint_other_shapes, setup, teardown),
        cmocka_unit_test(test_utf8_len),
        cmocka_unit_test_setup_teardown(test_json_big_numbers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hint_threads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fused_threads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_concat_shared_prefix, setup, teardown),
        cmocka_unit_test(test_activation_set_names),
        cmocka_unit_test(test_activation_bind_slots),
        cmocka_unit_test_setup_teardown(test_root_fast_forms, setup, teardown),
        cmocka_unit_test_setup_teardown(test_eval_slots_unbound, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
