#!/usr/bin/env bash
# CEL benchmark: kgate's CEL (bench_cel) and the npm engines @marcbachmann/cel-js and @bufbuild/cel (bench_npm.mjs)
# on the same Pod and expressions, in one go; writes bench/results/cel.json and bench/results/cel.md.
# Usage: bench/cel/run.sh <build-dir-with-bench_cel> ; env CEL_BENCH_MS (default 200), CEL_BENCH_RUNS (default 11).
set -euo pipefail
B=${1:?usage: run.sh <build dir>}
cd "$(dirname "$0")/../.."
MS=${CEL_BENCH_MS:-200}
RUNS=${CEL_BENCH_RUNS:-11}
BIN="$B/bench/cel/bench_cel"
[ -x "$BIN" ] || { echo "bench/cel: $BIN not built (cmake --build $B --target bench_cel)"; exit 1; }
command -v node >/dev/null || { echo "bench/cel: node is required"; exit 1; }

# The peers, pinned (cel.md §4.3), in the git-ignored bench/node_modules.
want_ok() {
    node -e '
      const v = (p) => { try { return require(`./bench/node_modules/${p}/package.json`).version } catch { return "" } };
      process.exit(v("@bufbuild/cel") === "0.6.1" && v("@marcbachmann/cel-js") === "8.0.0" && v("@bufbuild/protobuf") === "2.17.0" ? 0 : 1)'
}
if ! want_ok; then
    npm install --prefix bench --no-save --no-audit --no-fund \
        @bufbuild/cel@0.6.1 @bufbuild/protobuf@2.17.0 @marcbachmann/cel-js@8.0.0 >/dev/null ||
        { echo "bench/cel: cannot install the npm peers (network?); nothing compared"; exit 1; }
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The machine is shared: alternate kgate and the npm engines run by run so that load changes hit all of them, and
# take the median per figure over the runs (each run is itself a calibrated ~$MS ms measurement after warm-up).
for r in $(seq 1 "$RUNS"); do
    "$BIN" bench/cel/pod.json bench/cel/expressions.json "$MS" 1 > "$tmp/kgate.$r.json"
    node bench/cel/bench_npm.mjs bench/cel/pod.json bench/cel/expressions.json "$MS" 1 > "$tmp/npm.$r.json"
done
# kgate alone: Kubernetes library functions over the same Pod (no npm peer implements them)
"$BIN" bench/cel/pod.json bench/cel/k8s_expressions.json "$MS" "$RUNS" > "$tmp/kgate_k8s.json"
mkdir -p bench/results
node bench/cel/report.mjs "$tmp" "$RUNS" bench/results/cel.json bench/results/cel.md
