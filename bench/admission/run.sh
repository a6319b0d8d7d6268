#!/usr/bin/env bash
# Admission of a typical pod create through the whole default chain, in-process, with populated caches.
set -uo pipefail
B=${1:?build dir}
OUT=$(cd "$(dirname "$0")/../results" 2>/dev/null && pwd || (mkdir -p "$(dirname "$0")/../results" && cd "$(dirname "$0")/../results" && pwd))
"$B/bench/admission/bench_admission" 3 2>/dev/null | tee "$OUT/admission.json"
