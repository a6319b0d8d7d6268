// Merges the per-run kgate and npm benchmark outputs (<dir>/kgate.<r>.json, <dir>/npm.<r>.json, r = 1..runs) into
// bench/results/cel.json and a short cel.md with the ratios; every figure is the median over the runs.
// Usage: node report.mjs <dir> <runs> <out.json> <out.md>
import { readFileSync, writeFileSync } from 'node:fs'
import { loadavg, cpus } from 'node:os'

const [dir, runsArg, outJson, outMd] = process.argv.slice(2)
const runs = Number(runsArg)
const med = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)] }
const ks = [], ns = []
for (let r = 1; r <= runs; r++) {
  ks.push(JSON.parse(readFileSync(`${dir}/kgate.${r}.json`, 'utf8')))
  ns.push(JSON.parse(readFileSync(`${dir}/npm.${r}.json`, 'utf8')))
}
const k = { runs, ms_per_run: ks[0].ms_per_run, results: ks[0].results.map((x, i) => ({
  expr: x.expr,
  compile_ns: med(ks.map((kk) => kk.results[i].compile_ns)),
  eval_ns: med(ks.map((kk) => kk.results[i].eval_ns)),
  eval_act_ns: med(ks.map((kk) => kk.results[i].eval_act_ns))
})) }
const n = { node: ns[0].node, engines: {} }
for (const p of Object.keys(ns[0].engines)) {
  n.engines[p] = ns[0].engines[p].map((x, i) => ({
    expr: x.expr,
    compile_ns: med(ns.map((nn) => nn.engines[p][i].compile_ns)),
    eval_ns: med(ns.map((nn) => nn.engines[p][i].eval_ns))
  }))
}
const peers = Object.keys(n.engines)
const rows = k.results.map((r, i) => {
  const row = { expr: r.expr, kgate: { compile_ns: r.compile_ns, eval_ns: r.eval_ns, eval_act_ns: r.eval_act_ns } }
  for (const p of peers) row[p] = { compile_ns: n.engines[p][i].compile_ns, eval_ns: n.engines[p][i].eval_ns }
  const bestCompile = Math.min(...peers.map((p) => row[p].compile_ns))
  const bestEval = Math.min(...peers.map((p) => row[p].eval_ns))
  row.compile_speedup_vs_best_peer = +(bestCompile / r.compile_ns).toFixed(2)
  row.eval_speedup_vs_best_peer = +(bestEval / r.eval_ns).toFixed(2)
  row.eval_act_speedup_vs_best_peer = +(bestEval / r.eval_act_ns).toFixed(2)
  return row
})
const minOf = (key) => Math.min(...rows.map((r) => r[key]))
const summary = {
  date: new Date().toISOString(),
  node: n.node,
  cpus: cpus().length,
  loadavg_at_end: loadavg().map((x) => +x.toFixed(2)),
  method: `median of ${k.runs} calibrated runs of ~${k.ms_per_run} ms per figure, kgate and the npm engines alternating run by run; same Pod (bench/cel/pod.json) and expressions (bench/cel/expressions.json)`,
  goal: { eval_speedup: 10, compile_speedup: 5 },
  min_eval_speedup: minOf('eval_speedup_vs_best_peer'),
  min_compile_speedup: minOf('compile_speedup_vs_best_peer'),
  min_eval_act_speedup: minOf('eval_act_speedup_vs_best_peer')
}
summary.eval_goal_met = summary.min_eval_speedup >= 10
summary.compile_goal_met = summary.min_compile_speedup >= 5
let k8s = null
try { k8s = JSON.parse(readFileSync(`${dir}/kgate_k8s.json`, 'utf8')).results } catch { k8s = null }
writeFileSync(outJson, JSON.stringify({ summary, results: rows, kubernetes_libraries: k8s }, null, 2) + '\n')

const fmt = (x) => x >= 1000 ? Math.round(x).toLocaleString('en-US') : (Math.round(x * 10) / 10).toString()
let md = '# CEL benchmark: kgate vs npm CEL engines\n\n'
md += `${summary.date}, Node ${n.node}, ${summary.cpus} CPUs, load average at the end ${summary.loadavg_at_end.join(' / ')} (shared machine: compare columns, not absolute values); ${summary.method}. ns per operation; speed-up = best peer / kgate.\n`
md += 'compile: kgate = parse + check + plan; @marcbachmann/cel-js = parse + check; @bufbuild/cel = parse + plan.\n'
md += 'eval: kgate = the program over `object` bound by slot to the JSON DOM (cel_eval_slots) with cost tracking (1M per-call limit); kgate eval (act.) = the same through a fresh activation (cel_activation_new + bind + cel_eval); the npm engines get a fresh `{object: pod}` per call.\n\n'
md += `| # | expression | kgate compile | kgate eval | kgate eval (act.) | ${peers.map((p) => `${p} compile | ${p} eval`).join(' | ')} | compile × | eval × | eval (act.) × |\n`
md += `|---|---|---:|---:|---:|${peers.map(() => '---:|---:').join('|')}|---:|---:|---:|\n`
rows.forEach((r, i) => {
  md += `| ${i + 1} | \`${r.expr.replace(/\|/g, '\\|')}\` | ${fmt(r.kgate.compile_ns)} | ${fmt(r.kgate.eval_ns)} | ${fmt(r.kgate.eval_act_ns)} | `
  md += peers.map((p) => `${fmt(r[p].compile_ns)} | ${fmt(r[p].eval_ns)}`).join(' | ')
  md += ` | ${r.compile_speedup_vs_best_peer} | ${r.eval_speedup_vs_best_peer} | ${r.eval_act_speedup_vs_best_peer} |\n`
})
md += `\nGoal: eval ≥ 10× and compile ≥ 5× faster than the faster peer. Minimum speed-ups measured: eval ${summary.min_eval_speedup}× `
md += `(${summary.eval_goal_met ? 'met' : 'NOT met'}), compile ${summary.min_compile_speedup}× (${summary.compile_goal_met ? 'met' : 'NOT met'}); through a fresh activation, eval ${summary.min_eval_act_speedup}×.\n`
if (k8s) {
  md += '\nKubernetes library functions (kgate only; same Pod, same method):\n\n| expression | compile ns | eval ns |\n|---|---:|---:|\n'
  for (const r of k8s) md += `| \`${r.expr.replace(/\|/g, '\\|')}\` | ${fmt(r.compile_ns)} | ${fmt(r.eval_ns)} |\n`
}
writeFileSync(outMd, md)
process.stdout.write(md)
