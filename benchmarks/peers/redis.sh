#!/usr/bin/env bash
# Redis as a peer system for vcorfu benchmarks, on 127.0.0.1 only.
#
# Usage:
#   redis.sh [--workdir DIR] [--port PORT] start
#   redis.sh [--workdir DIR] [--port PORT] stop [--keep-data]
#   redis.sh [--workdir DIR] [--port PORT] bench-incr [--clients C] [--pipeline P] [--requests N]
#   redis.sh [--workdir DIR] [--port PORT] bench-stream [--size B] [--clients C] [--requests N] [--batch K]
#
# Options (accepted before or after the command):
#   --workdir DIR   state directory (default /tmp/vcorfu-peers); the server keeps its PID file,
#                   log and data directory under DIR/redis/
#   --port PORT     TCP port on 127.0.0.1 (default 6390)
#   --clients C     parallel connections of redis-benchmark (default 50)
#   --pipeline P    bench-incr: requests in flight per connection (redis-benchmark -P; default 1, no
#                   pipelining)
#   --requests N    requests per measurement (default 500000 for bench-incr, 100000 for bench-stream)
#   --size B        stream entry value size in bytes (default 256, at most 131071 because the value
#                   travels as one command-line argument)
#   --batch K       entries fetched per XRANGE call (default 100)
#   --keep-data     on stop, leave DIR/redis/data in place (it is removed by default)
#
# start: runs redis-server bound to 127.0.0.1:PORT with an append-only file in DIR/redis/data
#   (appendonly yes, appendfsync everysec), RDB snapshots disabled (save ""), no unix socket,
#   protected mode on. Any data directory left from an earlier run is wiped first.
# stop: stops the server by its recorded PID (SIGTERM, SIGKILL after 20 s).
# bench-incr: redis-benchmark -t incr -c C -P P -n N; prints
#   redis incr ops/s: X p50_ms: Y p99_ms: Z clients: C pipeline: P requests: N seconds: S
#   (S = N / X, the length of the measurement)
# bench-stream: deletes the stream, appends N entries of one field holding B bytes with
#   XADD <stream> * f <value>, then runs ceil(N/K) calls of XRANGE <stream> - + COUNT K (each
#   reads the first K entries of the stream); prints
#   redis xadd ops/s: X p50_ms: Y p99_ms: Z clients: C
#   redis xrange entries/s: X calls/s: R p50_ms: Y p99_ms: Z batch: K
#   entries/s is calls/s times the entries each call returns (min(K, stream length)).
# Throughput and percentiles come from redis-benchmark's --csv summary (latencies in ms).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"

usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}

workdir=$PEERS_DEFAULT_WORKDIR
port=6390
clients=50
pipeline=1
requests=""
size=256
batch=100
keep_data=false
command=""
stream_key=vcorfu-peers-stream

while (($#)); do
  case "$1" in
    --workdir) workdir=${2:?--workdir needs a value}; shift 2 ;;
    --port) port=${2:?--port needs a value}; shift 2 ;;
    --clients) clients=${2:?--clients needs a value}; shift 2 ;;
    --pipeline | -P) pipeline=${2:?--pipeline needs a value}; shift 2 ;;
    --requests | -n) requests=${2:?--requests needs a value}; shift 2 ;;
    --size) size=${2:?--size needs a value}; shift 2 ;;
    --batch) batch=${2:?--batch needs a value}; shift 2 ;;
    --keep-data) keep_data=true; shift ;;
    -h | --help) usage ;;
    start | stop | bench-incr | bench-stream)
      [[ -z "$command" ]] || peers_die "only one command may be given"
      command=$1; shift ;;
    *) echo "unknown argument: $1" >&2; usage ;;
  esac
done
[[ -n "$command" ]] || usage
peers_require_uint --port "$port"
peers_require_uint --clients "$clients"
peers_require_uint --pipeline "$pipeline"
peers_require_uint --size "$size"
peers_require_uint --batch "$batch"
((size <= 131071)) || peers_die "--size must be at most 131071 bytes (it is passed as one command-line argument)"

host=127.0.0.1
state=$workdir/redis
pidfile=$state/server.pid
logfile=$state/redis.log
datadir=$state/data

cli() {
  redis-cli -h "$host" -p "$port" "$@"
}

# bench_csv ARGS...: run redis-benchmark with --csv and print "rps p50 p99" of its one test.
bench_csv() {
  local out
  out=$(redis-benchmark -h "$host" -p "$port" --csv "$@") || peers_die "redis-benchmark failed"
  # Header: "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
  awk -F'","' '
    NR == 1 {
      for (i = 1; i <= NF; i++) { gsub(/"/, "", $i); col[$i] = i }
      if (!("rps" in col) || !("p50_latency_ms" in col) || !("p99_latency_ms" in col)) exit 3
      next
    }
    NF > 1 {
      for (i = 1; i <= NF; i++) gsub(/"/, "", $i)
      print $col["rps"], $col["p50_latency_ms"], $col["p99_latency_ms"]; found = 1; exit
    }
    END { if (!found) exit 3 }' <<<"$out" || peers_die "unexpected redis-benchmark output: $out"
}

require_running() {
  peers_running "$pidfile" || peers_die "redis is not running under $workdir; run '$0 --workdir $workdir --port $port start' first"
}

case "$command" in
  start)
    peers_require_cmd redis-server "run benchmarks/peers/install.sh"
    mkdir -p "$state"
    peers_running "$pidfile" && peers_die "redis is already running (PID $(cut -d' ' -f1 "$pidfile"))"
    peers_port_free "$host" "$port"
    rm -rf "$datadir"
    mkdir -p "$datadir"
    peers_start "$pidfile" "$logfile" redis-server \
      --bind "$host" --port "$port" --protected-mode yes \
      --daemonize no --dir "$datadir" \
      --appendonly yes --appendfsync everysec --save "" \
      --databases 1
    peers_wait_port "$pidfile" "$host" "$port" 20 "$logfile"
    for ((i = 0; i < 100; i++)); do
      [[ "$(cli PING 2>/dev/null || true)" == PONG ]] && break
      sleep 0.1
    done
    [[ "$(cli PING 2>/dev/null || true)" == PONG ]] || peers_die "redis does not answer PING (log: $logfile)"
    peers_log "redis listening on $host:$port, data in $datadir"
    ;;
  stop)
    peers_stop "$pidfile" redis
    if [[ "$keep_data" == false ]]; then rm -rf "$datadir"; fi
    ;;
  bench-incr)
    require_running
    requests=${requests:-500000}
    peers_require_uint --requests "$requests"
    read -r rps p50 p99 < <(bench_csv -t incr -c "$clients" -P "$pipeline" -n "$requests")
    seconds=$(awk -v n="$requests" -v r="$rps" 'BEGIN { printf "%.1f", (r > 0 ? n / r : 0) }')
    echo "redis incr ops/s: $rps p50_ms: $p50 p99_ms: $p99 clients: $clients pipeline: $pipeline requests: $requests seconds: $seconds"
    ;;
  bench-stream)
    require_running
    requests=${requests:-100000}
    peers_require_uint --requests "$requests"
    cli DEL "$stream_key" >/dev/null
    value=$(peers_value "$size")
    read -r rps p50 p99 < <(bench_csv -c "$clients" -n "$requests" XADD "$stream_key" '*' f "$value")
    echo "redis xadd ops/s: $rps p50_ms: $p50 p99_ms: $p99 clients: $clients"
    length=$(cli XLEN "$stream_key")
    per_call=$((length < batch ? length : batch))
    ((per_call > 0)) || peers_die "the stream is empty after the XADD run"
    calls=$(((requests + batch - 1) / batch))
    read -r rps p50 p99 < <(bench_csv -c "$clients" -n "$calls" XRANGE "$stream_key" - + COUNT "$batch")
    entries=$(awk -v r="$rps" -v k="$per_call" 'BEGIN { printf "%.2f", r * k }')
    echo "redis xrange entries/s: $entries calls/s: $rps p50_ms: $p50 p99_ms: $p99 batch: $per_call"
    cli DEL "$stream_key" >/dev/null
    ;;
esac
