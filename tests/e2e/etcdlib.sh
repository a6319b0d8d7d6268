# Helpers for the etcd end-to-end scripts (source after lib.sh; needs $W, a temp dir the caller removes):
# an N-member etcd cluster on loopback ports and further kgate replicas sharing the first one's CA and admin token.
#   etcd_cluster_start N   -> ETCD_PIDS[i], ETCD_CP[i] (client port), ETCD_URLS (comma-separated client URLs)
#   etcd_member_kill I / etcd_member_start I (restart member I with its data dir)
#   replica_start NAME FLAGS... -> REPLICA_PID[NAME]; the first replica is started with lib.sh's start_kgate
#   etcd_cleanup (kills members and replicas; call from the caller's EXIT trap)
ETCD=${ETCD:-/usr/bin/etcd}
# the system python (a version manager's shim can take seconds per start on a loaded machine)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
declare -a ETCD_PIDS=() ETCD_CP=() ETCD_PP=()
declare -A REPLICA_PID=()
ETCD_URLS=""
ETCD_INITIAL=""

etcd_free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

etcd_member_start() {
  local i=$1
  "$ETCD" --name "m$i" --data-dir "$W/etcd$i" --listen-client-urls "http://127.0.0.1:${ETCD_CP[$i]}" \
    --advertise-client-urls "http://127.0.0.1:${ETCD_CP[$i]}" --listen-peer-urls "http://127.0.0.1:${ETCD_PP[$i]}" \
    --initial-advertise-peer-urls "http://127.0.0.1:${ETCD_PP[$i]}" --initial-cluster "$ETCD_INITIAL" \
    --initial-cluster-state new --initial-cluster-token "kg-$$" --unsafe-no-fsync --heartbeat-interval 50 \
    --election-timeout 500 --log-level warn --logger zap >>"$W/etcd$i.log" 2>&1 &
  ETCD_PIDS[$i]=$!
}

# wait until member I answers a linearizable range (the cluster has a leader)
etcd_member_wait() {
  local i=$1
  for _ in $(seq 1 150); do
    curl -s -m 1 -X POST "http://127.0.0.1:${ETCD_CP[$i]}/v3/kv/range" -d '{"key":"AA=="}' 2>/dev/null |
      grep -q header && return 0
    sleep 0.1
  done
  echo "etcd member $i did not become ready"
  cat "$W/etcd$i.log"
  return 1
}

etcd_cluster_start() {
  local n=$1 i
  ETCD_INITIAL=""
  ETCD_URLS=""
  for ((i = 0; i < n; i++)); do
    ETCD_CP[$i]=$(etcd_free_port)
    ETCD_PP[$i]=$(etcd_free_port)
    ETCD_INITIAL+="${ETCD_INITIAL:+,}m$i=http://127.0.0.1:${ETCD_PP[$i]}"
    ETCD_URLS+="${ETCD_URLS:+,}http://127.0.0.1:${ETCD_CP[$i]}"
  done
  for ((i = 0; i < n; i++)); do etcd_member_start "$i"; done
  for ((i = 0; i < n; i++)); do etcd_member_wait "$i" || return 1; done
}

etcd_member_kill() {
  local i=$1
  [ -n "${ETCD_PIDS[$i]:-}" ] || return 0
  kill -9 "${ETCD_PIDS[$i]}" 2>/dev/null
  wait "${ETCD_PIDS[$i]}" 2>/dev/null
  ETCD_PIDS[$i]=""
}

# replica_start NAME FLAGS...: a further replica in $W/NAME with the first replica's ($W/r1) CA and admin token
replica_start() {
  local name=$1 dir="$W/$1"
  shift
  mkdir -p "$dir"
  cp "$W/r1/ca.crt" "$W/r1/ca.key" "$W/r1/admin.token" "$dir/" 2>/dev/null
  "$KGATE" serve --data-dir "$dir" --secure-port 0 "$@" >>"$dir/serve.log" 2>&1 &
  REPLICA_PID[$name]=$!
  for _ in $(seq 1 300); do
    [ "$(grep -c "kgate serve is running" "$dir/serve.log" 2>/dev/null)" -gt "$(cat "$dir/runs" 2>/dev/null | wc -l)" ] &&
      { echo x >>"$dir/runs"; return 0; }
    kill -0 "${REPLICA_PID[$name]}" 2>/dev/null || break
    sleep 0.05
  done
  echo "replica $name did not start"
  cat "$dir/serve.log"
  return 1
}

replica_kill() {
  local name=$1 sig=${2:-TERM}
  [ -n "${REPLICA_PID[$name]:-}" ] || return 0
  kill "-$sig" "${REPLICA_PID[$name]}" 2>/dev/null
  wait "${REPLICA_PID[$name]}" 2>/dev/null
  REPLICA_PID[$name]=""
}

etcd_cleanup() {
  local n i
  for n in "${!REPLICA_PID[@]}"; do replica_kill "$n"; done
  stop_kgate
  for i in "${!ETCD_PIDS[@]}"; do
    [ -n "${ETCD_PIDS[$i]}" ] && kill "${ETCD_PIDS[$i]}" 2>/dev/null && wait "${ETCD_PIDS[$i]}" 2>/dev/null
  done
  return 0
}
