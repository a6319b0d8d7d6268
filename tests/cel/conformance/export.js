#!/usr/bin/env node
// Exports the CEL conformance suite shipped by the pinned @bufbuild/cel-spec (cel-spec v0.25.1) to plain JSON for
// the C runner. Installs the package into ./node_modules (git-ignored) on first use; later runs reuse it.
// Usage: node export.js OUT.json
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const here = __dirname;
const pkg = path.join(here, 'node_modules', '@bufbuild', 'cel-spec', 'package.json');
if (!fs.existsSync(pkg)) {
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--silent', '--prefix', here], { cwd: here, stdio: 'inherit' });
}
const version = JSON.parse(fs.readFileSync(pkg, 'utf8'));
const { tests } = require(path.join(here, 'node_modules', '@bufbuild', 'cel-spec', 'dist', 'cjs', 'testdata', 'conformance.js'));

// Proto dependence (see docs/cel.md): message types of the conformance protos, or google.protobuf messages other than
// the Timestamp/Duration abstract types.
const WKT = /google\.protobuf\.(?!Timestamp\b|Duration\b)[A-Za-z]+/;
function classify(orig) {
  // Timestamp and Duration are CEL abstract types: as declared message types or Any-packed values they need no
  // protobuf runtime.
  const s = JSON.stringify(orig)
    .replace(/"messageType":"google\.protobuf\.(Timestamp|Duration)"/g, '"abstractTime":"$1"')
    .replace(/"@type":"type\.googleapis\.com\/google\.protobuf\.(Timestamp|Duration)"/g, '"packedTime":"$1"');
  if ((orig.container || '').startsWith('cel.expr.conformance')) return 'msg';
  if ((orig.container || '').startsWith('google.protobuf')) return 'wkt';
  if (s.includes('cel.expr.conformance') || /TestAllTypes|NestedTestAllTypes|GlobalEnum|NestedEnum/.test(s)) return 'msg';
  if (WKT.test(s) || /"messageType"|"wrapper"|"wellKnown":"ANY"/.test(s)) return 'wkt';
  return 'plain';
}

// JSON.stringify writes -0 as 0: keep the sign of negative-zero doubles by writing them as strings.
function keepNegZero(v) {
  if (Array.isArray(v)) return v.map(keepNegZero);
  if (v && typeof v === 'object') {
    const o = {};
    for (const [k, x] of Object.entries(v)) o[k] = (k === 'doubleValue' && Object.is(x, -0)) ? '-0' : keepNegZero(x);
    return o;
  }
  return v;
}

const out = [];
for (const file of tests.suites) {
  for (const section of file.suites || []) {
    for (const t of section.tests) {
      const o = t.original;
      out.push({
        id: `${file.name}/${section.name}/${o.name}`,
        file: file.name,
        section: section.name,
        name: o.name,
        expr: o.expr,
        disableMacros: !!o.disableMacros,
        disableCheck: !!o.disableCheck,
        checkOnly: !!o.checkOnly,
        container: o.container || '',
        typeEnv: o.typeEnv || [],
        bindings: keepNegZero(o.bindings || {}),
        expect: keepNegZero(o.value !== undefined ? { value: o.value } : null) || (o.value !== undefined ? { value: o.value }
          : o.evalError !== undefined ? { error: o.evalError }
          : o.typedResult !== undefined ? { typed: o.typedResult }
          : o.anyEvalErrors !== undefined ? { error: o.anyEvalErrors }
          : o.unknown !== undefined || o.anyUnknowns !== undefined ? { unknown: true }
          : { value: { boolValue: true } }),
        celgoType: t.type || '',
        celgoError: t.error || '',
        kind: classify(o),
      });
    }
  }
}
const dest = process.argv[2] || path.join(here, 'suite', 'conformance.json');
fs.mkdirSync(path.dirname(dest), { recursive: true });
fs.writeFileSync(dest, JSON.stringify({ package: `${version.name}@${version.version}`,
  celSpec: version.upstreamCelSpecRef, tests: out }));
const counts = out.reduce((m, t) => (m[t.kind] = (m[t.kind] || 0) + 1, m), {});
console.error(`exported ${out.length} tests (${JSON.stringify(counts)}) to ${dest}`);
