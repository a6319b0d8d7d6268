# Shared helpers for the end-to-end scripts: start/stop kgate serve, assertions with a pass/fail count.
set -u
PASS=0
FAIL=0
KGATE_PID=""

pass() { PASS=$((PASS + 1)); echo "ok   - $1"; }
failx() { FAIL=$((FAIL + 1)); echo "FAIL - $1"; [ $# -gt 1 ] && printf '       %s\n' "$2" | head -20; }

# expect_out NAME EXPECTED-SUBSTRING CMD...   (stdout+stderr of CMD must contain the substring)
expect_out() {
  local name=$1 want=$2 out
  shift 2
  out=$("$@" 2>&1)
  if printf '%s' "$out" | grep -qF -- "$want"; then pass "$name"; else failx "$name" "want: $want | got: $out"; fi
}
# expect_not NAME UNWANTED-SUBSTRING CMD...
expect_not() {
  local name=$1 bad=$2 out
  shift 2
  out=$("$@" 2>&1)
  if printf '%s' "$out" | grep -qF -- "$bad"; then failx "$name" "unexpected: $bad | got: $out"; else pass "$name"; fi
}
# expect_eq NAME EXPECTED CMD...   (trimmed stdout must equal)
expect_eq() {
  local name=$1 want=$2 out
  shift 2
  out=$("$@" 2>&1)
  if [ "$out" = "$want" ]; then pass "$name"; else failx "$name" "want: [$want] | got: [$out]"; fi
}

# start_kgate DATA_DIR [extra flags...] : starts on a free port, waits for /readyz, exports KUBECONFIG
start_kgate() {
  local dir=$1
  shift
  mkdir -p "$dir"
  "$KGATE" serve --data-dir "$dir" --secure-port 0 "$@" >"$dir/serve.log" 2>&1 &
  KGATE_PID=$!
  for _ in $(seq 1 200); do
    if [ -s "$dir/admin.kubeconfig" ] && grep -q "kgate serve is running" "$dir/serve.log" 2>/dev/null; then
      export KUBECONFIG="$dir/admin.kubeconfig"
      return 0
    fi
    if ! kill -0 "$KGATE_PID" 2>/dev/null; then
      echo "kgate serve exited:"; cat "$dir/serve.log"; return 1
    fi
    sleep 0.05
  done
  echo "kgate serve did not start"; cat "$dir/serve.log"; return 1
}

stop_kgate() {
  if [ -n "$KGATE_PID" ]; then
    kill "$KGATE_PID" 2>/dev/null
    wait "$KGATE_PID" 2>/dev/null
    KGATE_PID=""
  fi
}

finish() {
  stop_kgate
  echo "$PASS passed, $FAIL failed"
  [ "$FAIL" -eq 0 ]
}
