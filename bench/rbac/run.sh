#!/usr/bin/env bash
# RBAC decisions: a user with 20 bindings among 10,000 roles and bindings (issue 16's goal: <= 1 us per decision).
set -uo pipefail
B=${1:?build dir}
OUT="$(cd "$(dirname "$0")/.." && pwd)/results"
mkdir -p "$OUT"
"$B/bench/rbac/bench_rbac" > "$OUT/rbac.json" || { echo "bench/rbac: bench_rbac failed"; exit 1; }
cat "$OUT/rbac.json"
