#!/usr/bin/env bash
# Zero drift between `kgate serve` and `kgate check` (issue 17): one corpus (testdata/check) through both doors,
# identical verdicts, codes, messages, warnings and mutated objects required. The comparison is check_drift.py.
KGATE=$1
. "$(dirname "$0")/lib.sh"
python3 -c 'import yaml' 2>/dev/null || { echo "SKIP: python3 with PyYAML is needed"; exit 77; }
W=$(mktemp -d)
trap 'stop_kgate; rm -rf "$W"' EXIT
start_kgate "$W/data" || exit 1
python3 "$(dirname "$0")/check_drift.py" "$KGATE" "$(dirname "$0")/testdata/check" "$W"
