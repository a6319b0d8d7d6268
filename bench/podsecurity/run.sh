#!/usr/bin/env bash
# PodSecurity in-process: one typical pod evaluated against restricted:latest (compliant, and violating with the
# detail text built), and the plugin alone in a one-plugin chain on an enforce=restricted namespace.
# The machine may be shared: 5 runs of 1 s, the median of each figure reported (every run kept in the JSON).
set -uo pipefail
B=${1:?build dir}
OUT=$(cd "$(dirname "$0")/../results" 2>/dev/null && pwd || (mkdir -p "$(dirname "$0")/../results" && cd "$(dirname "$0")/../results" && pwd))
runs=()
for i in 1 2 3 4 5; do
  r=$("$B/bench/podsecurity/bench_podsecurity" 1 2>/dev/null) || { echo "bench/podsecurity: bench_podsecurity failed"; exit 1; }
  runs+=("$r")
done
printf '%s\n' "${runs[@]}" | node -e '
  const runs = require("fs").readFileSync(0, "utf8").trim().split("\n").map(JSON.parse);
  const keys = Object.keys(runs[0]).filter(k => k.endsWith("_ns"));
  const out = {};
  for (const k of keys) {
    out[k] = runs.map(r => r[k]).sort((a, b) => a - b)[Math.floor(runs.length / 2)];
    out["runs_" + k] = runs.map(r => r[k]);
  }
  Object.assign(out, { goal_evaluate_ns: 1000, method: "median of 5 runs of 1 s per figure (thread CPU time)",
                       date: new Date().toISOString() });
  console.log(JSON.stringify(out));' | tee "$OUT/podsecurity.json"
