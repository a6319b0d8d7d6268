#!/usr/bin/env bash
# Storage benchmark: $1 = build dir. Uses a scratch directory on the same disk as the repo (not tmpfs) so fsync
# is real; writes bench/results/storage.json.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build-bench}
D=$(mktemp -d "$PWD/bench/storage/.data-XXXXXX")
trap 'rm -rf "$D"' EXIT
mkdir -p bench/results
"$B/bench/storage/bench_storage" "$D" "${KGATE_BENCH_SCALE:-1}" > bench/results/storage.json
cat bench/results/storage.json
# the etcd3 backend on a private etcd (bench/storage/run_etcd.sh)
"$(dirname "$0")/run_etcd.sh" "$B"
