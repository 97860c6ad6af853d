#!/usr/bin/env bash
# etcd as a peer system for vcorfu benchmarks: a one-member cluster on 127.0.0.1 only.
#
# Usage:
#   etcd.sh [--workdir DIR] [--port PORT] [--peer-port PORT] start
#   etcd.sh [--workdir DIR] stop [--keep-data]
#   etcd.sh [--workdir DIR] [--port PORT] bench-put [--size B] [--clients C] [--conns C]
#           [--total N] [--key-space K] [--sequential-keys]
#   etcd.sh [--workdir DIR] [--port PORT] bench-get [--size B] [--clients C] [--conns C]
#           [--total N] [--consistency l|s]
#
# Options (accepted before or after the command):
#   --workdir DIR       state directory (default /tmp/vcorfu-peers); the server keeps its PID file,
#                       log and data directory under DIR/etcd/, and the load generator is
#                       DIR/bin/etcd-bench (built by install.sh)
#   --port PORT         client port on 127.0.0.1 (default 2389)
#   --peer-port PORT    peer port on 127.0.0.1 (default 2390)
#   --size B            value size in bytes (default 256)
#   --clients C         gRPC clients of the load generator (default 50)
#   --conns C           gRPC connections they share (default 1, the client library's default:
#                       one client holds one connection)
#   --total N           requests per measurement (default 20000)
#   --key-space K       bench-put: number of distinct keys the puts go to (default N); random
#                       keys are drawn uniformly from them
#   --sequential-keys   bench-put: write keys 0,1,2,... (modulo K) in order instead of random keys
#   --consistency l|s   bench-get: linearizable (l, default) or serializable (s) reads
#   --keep-data         on stop, leave DIR/etcd/data in place (it is removed by default)
#
# start: runs etcd (member name vcorfu-peer) with client URL http://127.0.0.1:PORT, peer URL
#   http://127.0.0.1:PEER-PORT and data in DIR/etcd/data (wiped first), metrics on the client
#   port only. etcd fsyncs its write-ahead log before acknowledging each write batch. History is
#   not compacted, so the data stays within etcd's default 2 GiB backend quota only while the
#   puts of one server lifetime total well under 2 GiB (restart it between large runs).
# stop: stops the server by its recorded PID (SIGTERM, SIGKILL after 20 s).
# bench-put: etcd-bench put; prints
#   etcd put ops/s: X p50_ms: Y p99_ms: Z clients: C conns: K total: N seconds: S
# bench-get: writes one key holding B bytes, then runs etcd-bench range on it; prints
#   etcd get ops/s: X p50_ms: Y p99_ms: Z clients: C conns: K total: N seconds: S
# Figures come from the load generator's summary (Requests/sec, Total seconds and its latency
# distribution, converted from seconds to milliseconds).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"

usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}

workdir=$PEERS_DEFAULT_WORKDIR
port=2389
peer_port=2390
size=256
clients=50
conns=1
total=20000
key_space=""
sequential=false
consistency=l
keep_data=false
command=""
get_key=vcorfu-peers-get-key

while (($#)); do
  case "$1" in
    --workdir) workdir=${2:?--workdir needs a value}; shift 2 ;;
    --port) port=${2:?--port needs a value}; shift 2 ;;
    --peer-port) peer_port=${2:?--peer-port needs a value}; shift 2 ;;
    --size) size=${2:?--size needs a value}; shift 2 ;;
    --clients) clients=${2:?--clients needs a value}; shift 2 ;;
    --conns) conns=${2:?--conns needs a value}; shift 2 ;;
    --total) total=${2:?--total needs a value}; shift 2 ;;
    --key-space) key_space=${2:?--key-space needs a value}; shift 2 ;;
    --sequential-keys) sequential=true; shift ;;
    --consistency) consistency=${2:?--consistency needs a value}; shift 2 ;;
    --keep-data) keep_data=true; shift ;;
    -h | --help) usage ;;
    start | stop | bench-put | bench-get)
      [[ -z "$command" ]] || peers_die "only one command may be given"
      command=$1; shift ;;
    *) echo "unknown argument: $1" >&2; usage ;;
  esac
done
[[ -n "$command" ]] || usage
peers_require_uint --port "$port"
peers_require_uint --peer-port "$peer_port"
peers_require_uint --size "$size"
peers_require_uint --clients "$clients"
peers_require_uint --conns "$conns"
peers_require_uint --total "$total"
key_space=${key_space:-$total}
peers_require_uint --key-space "$key_space"
[[ "$consistency" == l || "$consistency" == s ]] || peers_die "--consistency must be l or s"

host=127.0.0.1
state=$workdir/etcd
pidfile=$state/server.pid
logfile=$state/etcd.log
datadir=$state/data
bench_bin=$workdir/bin/etcd-bench
endpoint=$host:$port

require_running() {
  peers_running "$pidfile" || peers_die "etcd is not running under $workdir; run '$0 --workdir $workdir start' first"
  [[ -x "$bench_bin" ]] || peers_die "$bench_bin is missing; run benchmarks/peers/install.sh --workdir $workdir"
}

# healthy: succeed if the server's /health endpoint reports a working member (it needs a leader).
healthy() {
  local reply
  reply=$(
    exec 3<>"/dev/tcp/$host/$port" || exit 1
    printf 'GET /health HTTP/1.0\r\nHost: %s\r\n\r\n' "$endpoint" >&3
    timeout 2 cat <&3
  ) 2>/dev/null || return 1
  [[ "$reply" == *'"health":"true"'* ]]
}

# summarize OUTPUT: print "rps p50_ms p99_ms seconds" from the load generator's report.
summarize() {
  awk '
    /Requests\/sec:/ { rps = $2 }
    /^ *Total:/ { secs = $2 }
    /^ *50% in / { p50 = $3 * 1000 }
    /^ *99% in / { p99 = $3 * 1000 }
    END {
      if (rps == "" || p50 == "" || p99 == "" || secs == "") exit 3
      printf "%.2f %.3f %.3f %.1f\n", rps, p50, p99, secs
    }' <<<"$1" || peers_die "unexpected etcd-bench output: $1"
}

# run_bench ARGS...: run the load generator against this server and summarize its report.
run_bench() {
  local out
  out=$("$bench_bin" --endpoints "$endpoint" --clients "$clients" --conns "$conns" --precise "$@" 2>&1) ||
    peers_die "etcd-bench failed: $out"
  summarize "$out"
}

case "$command" in
  start)
    peers_require_cmd etcd "run benchmarks/peers/install.sh"
    mkdir -p "$state"
    peers_running "$pidfile" && peers_die "etcd is already running (PID $(cut -d' ' -f1 "$pidfile"))"
    peers_port_free "$host" "$port"
    peers_port_free "$host" "$peer_port"
    rm -rf "$datadir"
    mkdir -p "$datadir"
    chmod 700 "$datadir"
    peers_start "$pidfile" "$logfile" etcd \
      --name vcorfu-peer --data-dir "$datadir" \
      --listen-client-urls "http://$host:$port" --advertise-client-urls "http://$host:$port" \
      --listen-peer-urls "http://$host:$peer_port" --initial-advertise-peer-urls "http://$host:$peer_port" \
      --initial-cluster "vcorfu-peer=http://$host:$peer_port" --initial-cluster-state new \
      --initial-cluster-token vcorfu-peers --logger zap --log-outputs stderr \
      --enable-pprof=false
    peers_wait_port "$pidfile" "$host" "$port" 30 "$logfile"
    for ((i = 0; i < 300; i++)); do
      healthy && break
      sleep 0.1
    done
    healthy || peers_die "etcd did not report itself healthy within 30 s (log: $logfile)"
    peers_log "etcd listening on $endpoint (peer port $peer_port), data in $datadir"
    ;;
  stop)
    peers_stop "$pidfile" etcd
    if [[ "$keep_data" == false ]]; then rm -rf "$datadir"; fi
    ;;
  bench-put)
    require_running
    args=(put --total "$total" --val-size "$size" --key-space-size "$key_space")
    [[ "$sequential" == true ]] && args+=(--sequential-keys)
    read -r rps p50 p99 secs < <(run_bench "${args[@]}")
    echo "etcd put ops/s: $rps p50_ms: $p50 p99_ms: $p99 clients: $clients conns: $conns total: $total seconds: $secs"
    ;;
  bench-get)
    require_running
    peers_require_cmd etcdctl "run benchmarks/peers/install.sh"
    peers_value "$size" | ETCDCTL_API=3 etcdctl --endpoints "$endpoint" put "$get_key" >/dev/null
    read -r rps p50 p99 secs < <(run_bench range "$get_key" --total "$total" --consistency "$consistency")
    echo "etcd get ops/s: $rps p50_ms: $p50 p99_ms: $p99 clients: $clients conns: $conns total: $total seconds: $secs"
    ;;
esac
