#!/usr/bin/env bash
# kgate check end to end, as a CI job runs it: the kgate binary, the full default admission chain, one core.
#   - throughput: 10,000 pods in one multi-document file (in a namespace with a LimitRange and a ResourceQuota, so
#     LimitRanger, ServiceAccount, DefaultTolerationSeconds, Priority and ResourceQuota all act on every pod),
#     pinned to one CPU: manifests/s over the wall time of the whole run (process start, parse, admission,
#     output), and over its CPU time; with -o text (the verdicts) and -o json (plus every object's patch);
#   - cold start: one pod, from exec to exit (the first verdict is printed just before exit): wall ms; and, for
#     scale, `kgate version` (exec and dynamic loading of the one kgate binary, which links every door): exec_only_ms.
# The machine may be shared: 5 runs of each, the median reported (every run kept in the JSON).
set -uo pipefail
B=${1:?build dir}
KGATE=$B/kgate
OUT=$(cd "$(dirname "$0")/.." && mkdir -p results && cd results && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
N=${KGATE_CHECK_BENCH_PODS:-10000}
{
  printf 'apiVersion: v1\nkind: Namespace\nmetadata: {name: bench}\n---\n'
  printf 'apiVersion: v1\nkind: LimitRange\nmetadata: {name: limits, namespace: bench}\nspec:\n  limits:\n'
  printf '  - type: Container\n    default: {cpu: 500m, memory: 256Mi}\n    defaultRequest: {cpu: 10m, memory: 16Mi}\n---\n'
  printf 'apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q, namespace: bench}\nspec: {hard: {pods: "100000"}}\n'
  for ((i = 0; i < N; i++)); do
    printf -- '---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: web-%d\n  namespace: bench\n  labels: {app: web}\n' "$i"
    printf 'spec:\n  containers:\n  - name: app\n    image: nginx:1.25\n    ports: [{containerPort: 80}]\n'
  done
} >"$W/pods.yaml"
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: one}\nspec:\n  containers: [{name: c, image: nginx}]\n' >"$W/one.yaml"
CPU="taskset -c 0"
command -v taskset >/dev/null || CPU=""
runs_tp=() runs_json=() runs_cold=() runs_exec=()
for i in 1 2 3 4 5; do
  # wall and CPU seconds of the 10,000-pod run, text then json
  /usr/bin/time -o "$W/t" -f '%e %U %S %M' $CPU "$KGATE" check "$W/pods.yaml" >"$W/out.txt" 2>/dev/null
  runs_tp+=("$(tail -1 "$W/t")")
  grep -q "^$((N + 3)) objects: $((N + 3)) admitted" "$W/out.txt" || { echo "bench/check: not all admitted"; tail -3 "$W/out.txt"; exit 1; }
  /usr/bin/time -o "$W/t" -f '%e %U %S %M' $CPU "$KGATE" check -o json "$W/pods.yaml" >"$W/out.json" 2>/dev/null
  runs_json+=("$(tail -1 "$W/t")")
  rc=$(node -e 'const r=JSON.parse(require("fs").readFileSync(process.argv[1]));console.log(r.summary.admitted)' "$W/out.json")
  [ "$rc" = "$((N + 3))" ] || { echo "bench/check: expected $((N + 3)) admitted, got $rc"; exit 1; }
  /usr/bin/time -o "$W/t" -f '%e' $CPU "$KGATE" check "$W/one.yaml" >/dev/null 2>/dev/null
  c=$(tail -1 "$W/t")
  runs_cold+=("$c")
  /usr/bin/time -o "$W/t" -f '%e' $CPU "$KGATE" version >/dev/null 2>/dev/null
  runs_exec+=("$(tail -1 "$W/t")")
done
printf '%s\n' "${runs_tp[@]}" | N=$((N + 3)) COLD="${runs_cold[*]}" EXEC="${runs_exec[*]}" JSONRUNS="$(printf '%s;' "${runs_json[@]}")" node -e '
  const n = +process.env.N;
  const parse = (lines) => lines.filter(l => l.trim()).map(l => l.trim().split(" ").map(Number));
  const runs = parse(require("fs").readFileSync(0, "utf8").split("\n"));
  const jruns = parse(process.env.JSONRUNS.split(";"));
  const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  const wall = runs.map(r => r[0]), cpu = runs.map(r => r[1] + r[2]);
  const jwall = jruns.map(r => r[0]), jcpu = jruns.map(r => r[1] + r[2]);
  const cold = process.env.COLD.trim().split(" ").map(Number).map(s => s * 1000);
  const out = { bench: "kgate check", objects: n, cpu: "one core (taskset -c 0)",
                text: { manifests_per_s: Math.round(n / med(wall)), manifests_per_cpu_s: Math.round(n / med(cpu)),
                        wall_s: med(wall), cpu_s: med(cpu), max_rss_kb: med(runs.map(r => r[3])),
                        runs_wall_s: wall, runs_cpu_s: cpu },
                json: { manifests_per_s: Math.round(n / med(jwall)), manifests_per_cpu_s: Math.round(n / med(jcpu)),
                        wall_s: med(jwall), cpu_s: med(jcpu), max_rss_kb: med(jruns.map(r => r[3])),
                        runs_wall_s: jwall, runs_cpu_s: jcpu },
                cold_start_ms: med(cold), runs_cold_start_ms: cold,
                exec_only_ms: med(process.env.EXEC.trim().split(" ").map(Number).map(s => s * 1000)),
                method: "median of 5 runs; wall and CPU (user+sys) from /usr/bin/time; cold start = exec to exit of a one-pod check (the verdict is printed just before exit)",
                date: new Date().toISOString() };
  console.log(JSON.stringify(out));' | tee "$OUT/check.json"
