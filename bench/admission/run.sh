#!/usr/bin/env bash
# Admission of a typical pod create through the whole default chain, in-process, with populated caches; then the
# ValidatingAdmissionPolicy costs (bench_policies: policies.json).
# The machine may be shared: 5 runs of 1 s, the median reported (every run kept in the JSON).
set -uo pipefail
B=${1:?build dir}
OUT=$(cd "$(dirname "$0")/../results" 2>/dev/null && pwd || (mkdir -p "$(dirname "$0")/../results" && cd "$(dirname "$0")/../results" && pwd))
runs=()
for i in 1 2 3 4 5; do
  r=$("$B/bench/admission/bench_admission" 1 2>/dev/null) || { echo "bench/admission: bench_admission failed"; exit 1; }
  runs+=("$r")
done
printf '%s\n' "${runs[@]}" | node -e '
  const runs = require("fs").readFileSync(0, "utf8").trim().split("\n").map(JSON.parse);
  const med = (k) => runs.map(r => r[k]).sort((a, b) => a - b)[Math.floor(runs.length / 2)];
  const out = { ...runs[0], ns_per_pod: med("ns_per_pod"), cpu_ns_per_pod: med("cpu_ns_per_pod"),
                runs_ns_per_pod: runs.map(r => r.ns_per_pod), runs_cpu_ns_per_pod: runs.map(r => r.cpu_ns_per_pod),
                iterations: runs.reduce((s, r) => s + r.iterations, 0), method: "median of 5 runs of 1 s (wall clock; cpu_ns_per_pod: the thread\u0027s CPU time, unaffected by descheduling on a shared machine)",
                date: new Date().toISOString() };
  console.log(JSON.stringify(out));' | tee "$OUT/admission.json"

# ValidatingAdmissionPolicy (issue 14): 10 policies vs none in the same run, and recompilation of 100 policies
if r=$("$B/bench/admission/bench_policies" 0.5 5 2>/dev/null); then
  printf '%s\n' "$r" | node -e '
    const r = JSON.parse(require("fs").readFileSync(0, "utf8"));
    r.method = "rounds alternate the chain without and with the 10 policies (medians); added_cpu_ns_per_pod uses the thread\u0027s CPU time, unaffected by descheduling on a shared machine; recompilation in CPU time, medians of 20";
    r.date = new Date().toISOString();
    console.log(JSON.stringify(r));' | tee "$OUT/policies.json"
else
  echo "bench/admission: bench_policies failed"; exit 1
fi
