#!/usr/bin/env bash
# Server-side apply vs strategic merge patch of the same Deployment change, and the managedFields step's share of
# an in-process pod create (bench_ssa, same run). Writes bench/results/ssa.json (the median of 3 runs by ratio).
# Usage: bench/ssa/run.sh BUILD_DIR [SECONDS]
set -uo pipefail
B=${1:?build dir}
SECS=${2:-3}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$ROOT/bench/results"
for _ in 1 2 3; do "$B/bench/ssa/bench_ssa" "$SECS"; done |
  sort -t: -k5 -n | sed -n 2p >"$ROOT/bench/results/ssa.json"
cat "$ROOT/bench/results/ssa.json"
