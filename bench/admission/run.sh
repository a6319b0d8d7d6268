#!/usr/bin/env bash
# Admission of a typical pod create through the whole default chain, in-process, with populated caches.
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
  const ns = runs.map(r => r.ns_per_pod).sort((a, b) => a - b);
  const out = { ...runs[0], ns_per_pod: ns[Math.floor(ns.length / 2)], runs_ns_per_pod: runs.map(r => r.ns_per_pod),
                iterations: runs.reduce((s, r) => s + r.iterations, 0), method: "median of 5 runs of 1 s",
                date: new Date().toISOString() };
  console.log(JSON.stringify(out));' | tee "$OUT/admission.json"
