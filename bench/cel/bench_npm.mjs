// Times compile and eval of the CEL expressions in expressions.json over pod.json with the two npm CEL engines,
// in one process with interleaved runs (method of ../../../shared/reference/cel.md §4.3):
//   @bufbuild/cel      compile = plan(env, parse(expr))   (0.6.1 exports no type checker)
//   @marcbachmann/cel-js compile = env.parse(expr) + .check()
//   eval = one call of the compiled program with the activation {object: pod}.
// JSON integers become BigInt so both engines see CEL int, as Kubernetes does. Prints one JSON document.
// Usage: node bench_npm.mjs <pod.json> <expressions.json> [ms-per-run=200] [runs=11]
import { readFileSync } from 'node:fs'
import { celEnv, parse as bufParse, plan as bufPlan } from '@bufbuild/cel'
import { Environment } from '@marcbachmann/cel-js'

const [podPath, exprPath, msArg, runsArg] = process.argv.slice(2)
const MS = Number(msArg || 200)
const RUNS = Number(runsArg || 11)

function bigints (v) {
  if (Array.isArray(v)) return v.map(bigints)
  if (v !== null && typeof v === 'object') {
    const o = {}
    for (const [k, x] of Object.entries(v)) o[k] = bigints(x)
    return o
  }
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v)
  return v
}

const podText = readFileSync(podPath, 'utf8')
const pod = bigints(JSON.parse(podText, (k, v) => v))
const exprs = JSON.parse(readFileSync(exprPath, 'utf8'))
const expected = (i) => i === 4 ? 'prod/web-7d4b9c6f5-x2x9k' : true

const bufEnv = celEnv()
const marcEnv = new Environment({ unlistedVariablesAreDyn: true, enableOptionalTypes: true })

const engines = {
  '@bufbuild/cel': {
    compile: (e) => bufPlan(bufEnv, bufParse(e)),
    run: (p) => p({ object: pod })
  },
  '@marcbachmann/cel-js': {
    compile: (e) => { const p = marcEnv.parse(e); const r = p.check(); if (r && r.valid === false) throw r.error; return p },
    run: (p) => p({ object: pod })
  }
}

let sink = 0
function timeOnce (fn, target) {
  // calibrated: grow the batch until it takes at least `target` ms
  let n = 1
  for (;;) {
    const t0 = process.hrtime.bigint()
    for (let i = 0; i < n; i++) sink ^= (fn() ? 1 : 0)
    const dt = Number(process.hrtime.bigint() - t0) / 1e6
    if (dt >= target) return (dt * 1e6) / n
    n = dt < 1 ? n * 10 : Math.ceil(n * Math.max(1.2, (target * 1.05) / dt))
  }
}
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)] }

// check results and warm up globally
const programs = {}
for (const [name, e] of Object.entries(engines)) {
  programs[name] = exprs.map((x) => e.compile(x))
  programs[name].forEach((p, i) => {
    const r = e.run(p)
    if (r !== expected(i)) throw new Error(`${name} expr ${i}: got ${String(r)}`)
  })
  for (let w = 0; w < 3; w++) exprs.forEach((x, i) => { timeOnce(() => e.compile(x), 20); timeOnce(() => e.run(programs[name][i]), 20) })
}

const samples = {}
for (const name of Object.keys(engines)) samples[name] = exprs.map(() => ({ compile: [], eval: [] }))
for (let r = 0; r < RUNS; r++) {
  for (const [name, e] of Object.entries(engines)) { // interleaved
    exprs.forEach((x, i) => {
      samples[name][i].compile.push(timeOnce(() => e.compile(x), MS))
      const p = programs[name][i]
      samples[name][i].eval.push(timeOnce(() => e.run(p), MS))
    })
  }
}

const out = { node: process.version, ms_per_run: MS, runs: RUNS, engines: {} }
for (const name of Object.keys(engines)) {
  out.engines[name] = exprs.map((x, i) => ({
    expr: x,
    compile_ns: Math.round(median(samples[name][i].compile)),
    eval_ns: Math.round(median(samples[name][i].eval))
  }))
}
out.sink = sink
console.log(JSON.stringify(out, null, 2))
