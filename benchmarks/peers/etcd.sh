#!/usr/bin/env bash
# etcd as a peer system for vcorfu benchmarks: a one-member cluster (or --members N) on 127.0.0.1
# only.
#
# Usage:
#   etcd.sh [--workdir DIR] [--port PORT] [--peer-port PORT] [--members N] start
#   etcd.sh [--workdir DIR] stop [--keep-data]
#   etcd.sh [--workdir DIR] [--port PORT] [--members N] bench-put [--size B] [--clients C] [--conns C]
#           [--total N] [--key-space K] [--sequential-keys]
#   etcd.sh [--workdir DIR] [--port PORT] [--members N] bench-get [--size B] [--clients C] [--conns C]
#           [--total N] [--consistency l|s]
#   etcd.sh [--workdir DIR] [--port PORT] [--members N] members
#
# Options (accepted before or after the command):
#   --workdir DIR       state directory (default /tmp/vcorfu-peers); the server keeps its PID file,
#                       log and data directory under DIR/etcd/, and the load generator is
#                       DIR/bin/etcd-bench (built by install.sh)
#   --port PORT         client port on 127.0.0.1 (default 2389)
#   --peer-port PORT    peer port on 127.0.0.1 (default 2390)
#   --members N         members of the cluster (default 1). Member i (0 .. N-1) listens on client
#                       port PORT+2i and peer port PEER-PORT+2i; with N > 1 its PID file, log and
#                       data live under DIR/etcd/member-i/. Give the same N to every command.
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
#   With --members N > 1, start runs N members (vcorfu-peer-0 .. N-1) with one --initial-cluster
#   naming them all and waits until every member reports itself healthy (a leader is elected).
# stop: stops every member by its recorded PID (SIGTERM, SIGKILL after 20 s); a member that is no
#   longer running (killed by a failover benchmark) has its PID file removed.
# members: prints one line per member, "127.0.0.1:PORT PID" (PID "-" when it is not running).
# bench-put: etcd-bench put against every member (--endpoints lists them all; etcd-bench spreads its
#   --conns connections over them in turn, so with --conns 1 every request goes to member 0); prints
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
members=1
command=""
get_key=vcorfu-peers-get-key

while (($#)); do
  case "$1" in
    --workdir) workdir=${2:?--workdir needs a value}; shift 2 ;;
    --port) port=${2:?--port needs a value}; shift 2 ;;
    --peer-port) peer_port=${2:?--peer-port needs a value}; shift 2 ;;
    --members) members=${2:?--members needs a value}; shift 2 ;;
    --size) size=${2:?--size needs a value}; shift 2 ;;
    --clients) clients=${2:?--clients needs a value}; shift 2 ;;
    --conns) conns=${2:?--conns needs a value}; shift 2 ;;
    --total) total=${2:?--total needs a value}; shift 2 ;;
    --key-space) key_space=${2:?--key-space needs a value}; shift 2 ;;
    --sequential-keys) sequential=true; shift ;;
    --consistency) consistency=${2:?--consistency needs a value}; shift 2 ;;
    --keep-data) keep_data=true; shift ;;
    -h | --help) usage ;;
    start | stop | bench-put | bench-get | members)
      [[ -z "$command" ]] || peers_die "only one command may be given"
      command=$1; shift ;;
    *) echo "unknown argument: $1" >&2; usage ;;
  esac
done
[[ -n "$command" ]] || usage
peers_require_uint --port "$port"
peers_require_uint --peer-port "$peer_port"
peers_require_uint --members "$members"
peers_require_uint --size "$size"
peers_require_uint --clients "$clients"
peers_require_uint --conns "$conns"
peers_require_uint --total "$total"
key_space=${key_space:-$total}
peers_require_uint --key-space "$key_space"
[[ "$consistency" == l || "$consistency" == s ]] || peers_die "--consistency must be l or s"

host=127.0.0.1
state=$workdir/etcd
bench_bin=$workdir/bin/etcd-bench
endpoint=$host:$port

# member_dir I: the state directory of member I (DIR/etcd itself for a one-member cluster).
member_dir() {
  if ((members == 1)); then echo "$state"; else echo "$state/member-$1"; fi
}
member_port() { echo $((port + 2 * $1)); }
member_peer_port() { echo $((peer_port + 2 * $1)); }
member_name() {
  if ((members == 1)); then echo vcorfu-peer; else echo "vcorfu-peer-$1"; fi
}
# every member's client endpoint, comma-separated, for etcd-bench
endpoints=$(for ((i = 0; i < members; i++)); do printf '%s%s:%s' "$([[ $i -gt 0 ]] && echo ,)" "$host" "$(member_port "$i")"; done)

require_running() {
  local i
  for ((i = 0; i < members; i++)); do
    peers_running "$(member_dir "$i")/server.pid" ||
      peers_die "etcd member $i is not running under $workdir; run '$0 --workdir $workdir --members $members start' first"
  done
  [[ -x "$bench_bin" ]] || peers_die "$bench_bin is missing; run benchmarks/peers/install.sh --workdir $workdir"
}

# healthy PORT: succeed if the member's /health endpoint reports a working member (it needs a leader).
healthy() {
  local reply
  reply=$(
    exec 3<>"/dev/tcp/$host/$1" || exit 1
    printf 'GET /health HTTP/1.0\r\nHost: %s\r\n\r\n' "$host:$1" >&3
    timeout 2 cat <&3
  ) 2>/dev/null || return 1
  [[ "$reply" == *'"health":"true"'* ]]
}

all_healthy() {
  local i
  for ((i = 0; i < members; i++)); do
    healthy "$(member_port "$i")" || return 1
  done
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
  out=$("$bench_bin" --endpoints "$endpoints" --clients "$clients" --conns "$conns" --precise "$@" 2>&1) ||
    peers_die "etcd-bench failed: $out"
  summarize "$out"
}

case "$command" in
  start)
    peers_require_cmd etcd "run benchmarks/peers/install.sh"
    initial_cluster=$(for ((i = 0; i < members; i++)); do
      printf '%s%s=http://%s:%s' "$([[ $i -gt 0 ]] && echo ,)" "$(member_name "$i")" "$host" "$(member_peer_port "$i")"
    done)
    for ((i = 0; i < members; i++)); do
      dir=$(member_dir "$i")
      mkdir -p "$dir"
      peers_running "$dir/server.pid" && peers_die "etcd member $i is already running (PID $(cut -d' ' -f1 "$dir/server.pid"))"
      peers_port_free "$host" "$(member_port "$i")"
      peers_port_free "$host" "$(member_peer_port "$i")"
    done
    for ((i = 0; i < members; i++)); do
      dir=$(member_dir "$i")
      cport=$(member_port "$i")
      pport=$(member_peer_port "$i")
      rm -rf "$dir/data"
      mkdir -p "$dir/data"
      chmod 700 "$dir/data"
      peers_start "$dir/server.pid" "$dir/etcd.log" etcd \
        --name "$(member_name "$i")" --data-dir "$dir/data" \
        --listen-client-urls "http://$host:$cport" --advertise-client-urls "http://$host:$cport" \
        --listen-peer-urls "http://$host:$pport" --initial-advertise-peer-urls "http://$host:$pport" \
        --initial-cluster "$initial_cluster" --initial-cluster-state new \
        --initial-cluster-token vcorfu-peers --logger zap --log-outputs stderr \
        --enable-pprof=false
    done
    for ((i = 0; i < members; i++)); do
      dir=$(member_dir "$i")
      peers_wait_port "$dir/server.pid" "$host" "$(member_port "$i")" 30 "$dir/etcd.log"
    done
    for ((i = 0; i < 300; i++)); do
      all_healthy && break
      sleep 0.1
    done
    all_healthy || peers_die "etcd did not report itself healthy within 30 s (logs: $(member_dir 0)/etcd.log ...)"
    if ((members == 1)); then
      peers_log "etcd listening on $endpoint (peer port $peer_port), data in $state/data"
    else
      peers_log "etcd cluster of $members members listening on $endpoints, data in $state/member-*/data"
    fi
    ;;
  stop)
    # Every member this work directory has, whatever --members says.
    for dir in "$state" "$state"/member-*; do
      [[ -d "$dir" ]] || continue
      if [[ -f "$dir/server.pid" ]]; then peers_stop "$dir/server.pid" "etcd ($(basename "$dir"))"; fi
      if [[ "$keep_data" == false ]]; then rm -rf "$dir/data"; fi
    done
    ;;
  members)
    for ((i = 0; i < members; i++)); do
      pidfile=$(member_dir "$i")/server.pid
      if peers_running "$pidfile"; then pid=$(cut -d' ' -f1 "$pidfile"); else pid=-; fi
      echo "$host:$(member_port "$i") $pid"
    done
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
    peers_value "$size" | ETCDCTL_API=3 etcdctl --endpoints "$endpoints" put "$get_key" >/dev/null
    read -r rps p50 p99 secs < <(run_bench range "$get_key" --total "$total" --consistency "$consistency")
    echo "etcd get ops/s: $rps p50_ms: $p50 p99_ms: $p99 clients: $clients conns: $conns total: $total seconds: $secs"
    ;;
esac
