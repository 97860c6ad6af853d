#!/usr/bin/env bash
# The stream-store comparison in one run: vcorfu (single durable node and the five-process
# loopback layout), Redis and etcd, one after another on 127.0.0.1, like for like: the same value
# sizes, the same concurrency, the same pipelining depth and the same number of connections on both
# sides of every ratio; then summary tables with the ratios.
#
# Usage:
#   benchmarks/run-stream-store.sh [--headline] [--quick] [--duration S] [--warmup S] [--cold S]
#                                  [--out FILE] [--workdir DIR] [--base-port P]
#
#   --headline      only the headline comparisons (RESULTS.md's top table), each cold and warm; about
#                   10 minutes. --targets is the old name of this option.
#   --quick         smoke run: short measurements and small redis/etcd request counts
#   --duration S    seconds of each vcorfu warm measurement (default 15; --headline 10; --quick 2)
#   --warmup S      --headline: seconds of load before the warm measurement, in the same client JVM
#                   (default 30; --quick 3)
#   --cold S        --headline: length of the cold window, the first S seconds of load of a fresh
#                   client JVM against a fresh node (default 10; --quick 2)
#   --out FILE      also write every raw result line and the summary to FILE
#   --workdir DIR   scratch directory (default: a fresh mktemp -d, removed at the end)
#   --base-port P   vcorfu ports P .. P+4 (default 19000); redis uses P+10, etcd P+11 and P+12
#
# Like for like. redis-benchmark opens one connection per client (-c) and keeps -P requests in
# flight on each; etcd's benchmark tool runs --clients clients over --conns connections (its client
# library's default is one connection per client object, so --conns 1). A vcorfu client (one
# ClusterStreamLog, as an application has) holds one connection per node; `bench tokens`, `append`
# and `read` take --conns C to run their threads over C independent clients. So:
#   - tokens: `bench tokens --threads 50 --conns 50 --pipeline P --batch 1` against
#     `redis-benchmark -t incr -c 50 -P P`, P = 1 (no pipelining) and 16; the same with --conns 1
#     (vcorfu's single client; the connection counts then differ, and the summary says so). --batch
#     64 (64 tokens per request, which INCR does not do) and --in-process are reported without a
#     peer ratio;
#   - 1 KB appends: `bench append --threads T --conns C` against `etcd put --clients T --conns C`
#     with C = 1 (each side's default: one client) and C = T; in the full matrix every system runs
#     one connection per client (vcorfu --conns T, redis -c T, etcd --conns T);
#   - reads: `bench read --threads 8 --conns 8` against XRANGE -c 8 and etcd range 8/8.
#
# Headline run (--headline): every comparison starts from fresh servers. For each row: a fresh
# durable vcorfu node (new data directory), one `bench` client JVM with --cold C --warmup W
# --duration D, which prints the cold figure (the first C seconds of load), the warm figure (the D
# seconds after W seconds of load) and the load of every second; then a fresh peer server and two
# runs of its own benchmark tool, one sized to last about C seconds (cold) and one about D seconds
# (warm). Redis and etcd are native code; their cold and warm runs differ only by the fresh server.
#
# Full run (default): single durable node (fresh data dir, default group-commit fsync): a 2x5 s
# warm-up (tagged "warmup"), the tokens rows above, the append matrix (32 B and 4 KB x 1/32/1000
# streams x 1/8 threads, one connection per thread), 1 KB appends at 8 and 50 threads (one
# connection, and one per thread), bulk stream reads; then the five-process layout (sequencer, two
# log replicas, two stream replicas, each durable): a 5 s warm-up, 32 B and 4 KB x 32 streams x 1/8
# threads and 1 KB x 8/50; then redis (appendfsync everysec): INCR -c 50 (-P 1 and 16) and
# XADD/XRANGE at 32 B and 4 KB x 1/8 clients and 1 KB x 8/50; then etcd: put at the same sizes and
# concurrency, get at 1 KB. Every vcorfu append measurement of the full run first runs the same load
# for the warm-up time (5 s; 30 s for 1 KB) in the same client process, uncounted; the full run
# reports warm figures only (the headline run has the cold ones).
#
# Every process this script starts is recorded by PID (with its executable) and stopped by that
# PID only, also on failure or interrupt. Progress goes to standard error; result lines and the
# summary go to standard output.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
# shellcheck source=peers/lib.sh
source "$here/peers/lib.sh"
# shellcheck source=vcorfu-node.sh
source "$here/vcorfu-node.sh"

quick=false
headline=false
duration=""
warmup=""
cold=""
out=""
workdir=""
base_port=19000
while (($#)); do
  case "$1" in
    --quick) quick=true; shift ;;
    --headline | --targets) headline=true; shift ;;
    --duration) duration=${2:?--duration needs a value}; shift 2 ;;
    --warmup) warmup=${2:?--warmup needs a value}; shift 2 ;;
    --cold) cold=${2:?--cold needs a value}; shift 2 ;;
    --out) out=${2:?--out needs a value}; shift 2 ;;
    --workdir) workdir=${2:?--workdir needs a value}; shift 2 ;;
    --base-port) base_port=${2:?--base-port needs a value}; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
if [[ "$quick" == true ]]; then
  duration=${duration:-2}; warmup=${warmup:-3}; cold=${cold:-2}
elif [[ "$headline" == true ]]; then
  duration=${duration:-10}; warmup=${warmup:-30}; cold=${cold:-10}
else
  duration=${duration:-15}; warmup=${warmup:-30}; cold=${cold:-10}
fi
peers_require_uint --duration "$duration"
peers_require_uint --warmup "$warmup"
peers_require_uint --cold "$cold"
peers_require_uint --base-port "$base_port"
((base_port + 12 <= 65535)) || peers_die "--base-port must leave room for 13 ports below 65536"

# Request counts for the peers (redis-benchmark and etcd's tool run a fixed number of requests, not
# a fixed time), sized from rates measured on the 2-core machine of RESULTS.md so that each run
# lasts about as long as the vcorfu measurement it is compared with; every peer result line prints
# the seconds it actually took.
if [[ "$quick" == true ]]; then
  incr_n=100000; incr16_n=400000; xadd_n=20000; etcd_n1=300; etcd_n8=1000; etcd_n50=2000; get_n=5000
  h_incr_cold=100000; h_incr_warm=100000; h_incr16_cold=400000; h_incr16_warm=400000
  h_etcd8_cold=2000; h_etcd8_warm=2000; h_etcd50_cold=4000; h_etcd50_warm=4000
else
  incr_n=1000000; incr16_n=8000000; xadd_n=150000; etcd_n1=15000; etcd_n8=50000; etcd_n50=130000; get_n=60000
  # About --cold and --duration seconds at 70,000 INCR/s, 550,000 pipelined INCR/s, 3,500 etcd
  # puts/s with 8 clients and 9,000 with 50.
  h_incr_cold=$((70000 * cold)); h_incr_warm=$((70000 * duration))
  h_incr16_cold=$((550000 * cold)); h_incr16_warm=$((550000 * duration))
  h_etcd8_cold=$((3500 * cold)); h_etcd8_warm=$((3500 * duration))
  h_etcd50_cold=$((9000 * cold)); h_etcd50_warm=$((9000 * duration))
fi

own_workdir=false
if [[ -z "$workdir" ]]; then
  workdir=$(mktemp -d /tmp/vcorfu-stream-store.XXXXXX)
  own_workdir=true
fi
mkdir -p "$workdir"
results=$workdir/results.txt
: >"$results"

jar=$root/benchmarks/target/vcorfu-all.jar
java_opts=(-XX:+UseParallelGC)
bench=(java "${java_opts[@]}" -cp "$jar" io.vcorfu.benchmarks.BenchCli)
peer_dir=$workdir/peers
redis=("$here/peers/redis.sh" --workdir "$peer_dir" --port "$((base_port + 10))")
etcd=("$here/peers/etcd.sh" --workdir "$peer_dir" --port "$((base_port + 11))" --peer-port "$((base_port + 12))")
vcorfu_pidfiles=()

stop_vcorfu() {
  local f
  for f in "${vcorfu_pidfiles[@]}"; do
    peers_stop "$f" "vcorfu $(basename "$(dirname "$f")")" || true
  done
  vcorfu_pidfiles=()
}

cleanup() {
  local IFS=$' \t\n' # the trap may fire inside an `IFS= read`
  stop_vcorfu
  "${redis[@]}" stop >/dev/null 2>&1 || true
  "${etcd[@]}" stop >/dev/null 2>&1 || true
  if [[ "$own_workdir" == true ]]; then rm -rf "$workdir"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start_vcorfu NAME PORT HEAP ARGS...: start one vcorfu server and wait for its "ready" line.
start_vcorfu() {
  local name=$1 port=$2 heap=$3
  shift 3
  vcorfu_pidfiles+=("$workdir/vcorfu/$name/server.pid")
  vcorfu_start_node "$workdir/vcorfu/$name" "$port" "${java_opts[@]}" "-Xmx$heap" -cp "$jar" -- "$@"
}

# measure TAG CMD...: run one measurement; its result lines go to stdout and, prefixed with TAG,
# to the results file.
measure() {
  local tag=$1 line
  shift
  peers_log "$tag: $*"
  while IFS= read -r line; do
    echo "$tag | $line"
    echo "$tag | $line" >>"$results"
  done < <("$@")
}

# note TAG TEXT: record a line that is not a measurement (a row's description or command).
note() {
  echo "$1 | $2" >>"$results"
}

# ---------------------------------------------------------------------------------------------
peers_log "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "load-start | $(date -u +%FT%TZ) $(uptime)" >>"$results"

vcorfu_build_jar "$root" "$jar"

if [[ ! -x "$peer_dir/bin/etcd-bench" ]]; then
  if [[ -x "$PEERS_DEFAULT_WORKDIR/bin/etcd-bench" ]]; then
    mkdir -p "$peer_dir/bin"
    cp "$PEERS_DEFAULT_WORKDIR/bin/etcd-bench" "$peer_dir/bin/etcd-bench"
  else
    "$here/peers/install.sh" --workdir "$peer_dir" >&2
  fi
fi

p0=$base_port
ep=127.0.0.1:$p0

# headline_row ID DESCRIPTION VCORFU_ARGS PEER PEER_COLD_ARGS PEER_WARM_ARGS: one headline
# comparison from fresh servers. VCORFU_ARGS are `bench` arguments (without --endpoint and the
# window options); PEER is redis or etcd, and PEER_*_ARGS are arguments of its script.
headline_row() {
  local id=$1 desc=$2 peer=$4
  local -a vargs pcold pwarm
  read -r -a vargs <<<"$3"
  read -r -a pcold <<<"$5"
  read -r -a pwarm <<<"$6"
  note "$id desc" "$desc"
  note "$id vcorfu-cmd" "vcorfu bench ${vargs[*]} --cold $cold --warmup $warmup --duration $duration"
  note "$id peer-cmd" "peers/$peer.sh ${pwarm[*]} (cold: ${pcold[*]})"
  rm -rf "$workdir/vcorfu/single"
  start_vcorfu single "$p0" 2g --data-dir "$workdir/vcorfu/single/data"
  measure "$id vcorfu" "${bench[@]}" "${vargs[@]}" --endpoint "$ep" --cold "$cold" --warmup "$warmup" --duration "$duration"
  stop_vcorfu
  local -a server
  if [[ "$peer" == redis ]]; then server=("${redis[@]}"); else server=("${etcd[@]}"); fi
  "${server[@]}" start
  measure "$id $peer cold" "${server[@]}" "${pcold[@]}"
  measure "$id $peer warm" "${server[@]}" "${pwarm[@]}"
  "${server[@]}" stop
}

if [[ "$headline" == true ]]; then
  # --- headline: each row from fresh servers, cold and warm ------------------------------------
  headline_row tokens-p1-c50 \
    "tokens, 50 threads on 50 connections, 1 request in flight each, 1 token per request; redis INCR -c 50 (50 connections)" \
    "tokens --threads 50 --conns 50 --pipeline 1 --batch 1" redis \
    "bench-incr --clients 50 --pipeline 1 --requests $h_incr_cold" "bench-incr --clients 50 --pipeline 1 --requests $h_incr_warm"
  headline_row tokens-p1-c1 \
    "tokens, 50 threads on 1 connection (one vcorfu client), 1 request in flight each; redis INCR -c 50 (connections differ: 50)" \
    "tokens --threads 50 --conns 1 --pipeline 1 --batch 1" redis \
    "bench-incr --clients 50 --pipeline 1 --requests $h_incr_cold" "bench-incr --clients 50 --pipeline 1 --requests $h_incr_warm"
  headline_row tokens-p16-c50 \
    "tokens, 50 threads on 50 connections, 16 requests in flight each, 1 token per request; redis INCR -c 50 -P 16" \
    "tokens --threads 50 --conns 50 --pipeline 16 --batch 1" redis \
    "bench-incr --clients 50 --pipeline 16 --requests $h_incr16_cold" "bench-incr --clients 50 --pipeline 16 --requests $h_incr16_warm"
  headline_row tokens-p16-c1 \
    "tokens, 50 threads on 1 connection, 16 requests in flight each; redis INCR -c 50 -P 16 (connections differ: 50)" \
    "tokens --threads 50 --conns 1 --pipeline 16 --batch 1" redis \
    "bench-incr --clients 50 --pipeline 16 --requests $h_incr16_cold" "bench-incr --clients 50 --pipeline 16 --requests $h_incr16_warm"
  headline_row append-t8-c1 \
    "durable 1 KB appends, 8 clients on 1 connection; etcd put, 8 clients on 1 connection" \
    "append --threads 8 --conns 1 --size 1024 --streams 32 --prefix h8c1" etcd \
    "bench-put --size 1024 --clients 8 --conns 1 --total $h_etcd8_cold" "bench-put --size 1024 --clients 8 --conns 1 --total $h_etcd8_warm"
  headline_row append-t8-c8 \
    "durable 1 KB appends, 8 clients on 8 connections; etcd put, 8 clients on 8 connections" \
    "append --threads 8 --conns 8 --size 1024 --streams 32 --prefix h8c8" etcd \
    "bench-put --size 1024 --clients 8 --conns 8 --total $h_etcd8_cold" "bench-put --size 1024 --clients 8 --conns 8 --total $h_etcd8_warm"
  headline_row append-t50-c1 \
    "durable 1 KB appends, 50 clients on 1 connection; etcd put, 50 clients on 1 connection" \
    "append --threads 50 --conns 1 --size 1024 --streams 32 --prefix h50c1" etcd \
    "bench-put --size 1024 --clients 50 --conns 1 --total $h_etcd50_cold" "bench-put --size 1024 --clients 50 --conns 1 --total $h_etcd50_warm"
  headline_row append-t50-c50 \
    "durable 1 KB appends, 50 clients on 50 connections; etcd put, 50 clients on 50 connections" \
    "append --threads 50 --conns 50 --size 1024 --streams 32 --prefix h50c50" etcd \
    "bench-put --size 1024 --clients 50 --conns 50 --total $h_etcd50_cold" "bench-put --size 1024 --clients 50 --conns 50 --total $h_etcd50_warm"
else
  # --- full run ----------------------------------------------------------------------------------
  d=$duration
  warm=$(( duration < 10 ? 2 : 5 ))
  # The 1 KB appends run in a client JVM that has finished compiling its hot path: measured on the
  # 2-core machine, a fresh client keeps a C2 compiler thread busy for about 30 s.
  warm_kb=$(( duration < 10 ? 2 : warmup ))
  sizes=(32 4096)
  stream_counts=(1 32 1000)
  thread_counts=(1 8)
  kb_threads=(8 50)

  # vcorfu, single durable node
  start_vcorfu single "$p0" 2g --data-dir "$workdir/vcorfu/single/data"
  # Warm-up (JIT) of a freshly started server; reported under the tag "warmup", not in the summary.
  measure warmup "${bench[@]}" tokens --endpoint "$ep" --threads 1 --batch 1 --pipeline 32 --duration "$warm"
  measure warmup "${bench[@]}" append --endpoint "$ep" --size 1024 --streams 32 --threads 8 --duration "$warm" --prefix warmup
  for p in 1 16; do
    for c in 50 1; do
      measure single "${bench[@]}" tokens --endpoint "$ep" --threads 50 --conns "$c" --batch 1 --pipeline "$p" --warmup "$warm" --duration "$d"
    done
  done
  measure single "${bench[@]}" tokens --endpoint "$ep" --threads 2 --batch 64 --pipeline 32 --warmup "$warm" --duration "$d"
  measure single "${bench[@]}" tokens --in-process --threads 1 --batch 64 --pipeline 32 --warmup "$warm" --duration "$d"
  for size in "${sizes[@]}"; do
    for k in "${stream_counts[@]}"; do
      for t in "${thread_counts[@]}"; do
        measure single "${bench[@]}" append --endpoint "$ep" --warmup "$warm" --size "$size" --streams "$k" --threads "$t" --conns "$t" \
          --duration "$d" --prefix "s$size-k$k-t$t"
      done
    done
  done
  for t in "${kb_threads[@]}"; do
    for c in 1 "$t"; do
      measure single "${bench[@]}" append --endpoint "$ep" --warmup "$warm_kb" --size 1024 --streams 32 --threads "$t" --conns "$c" \
        --duration "$d" --prefix "s1024-k32-t$t-c$c"
    done
  done
  # Bulk reads of what the appends wrote: one stream of 32 B entries, and 32 streams of 4 KB entries,
  # 100 addresses per call (the XRANGE COUNT below).
  measure single "${bench[@]}" read --endpoint "$ep" --stream "s32-k1-t8-0" --threads 1 --conns 1 --batch 100 --duration "$d"
  measure single "${bench[@]}" read --endpoint "$ep" --stream "s32-k1-t8-0" --threads 8 --conns 8 --batch 100 --duration "$d"
  measure single "${bench[@]}" read --endpoint "$ep" --streams 32 --prefix "s4096-k32-t8" --threads 8 --conns 8 --batch 100 --duration "$d"
  stop_vcorfu

  # vcorfu, five-process loopback layout
  layout=$workdir/vcorfu/layout.json
  mkdir -p "$(dirname "$layout")"
  cat >"$layout" <<LAYOUT
{
  "clusterId": "loopback",
  "epoch": 1,
  "sequencer": "127.0.0.1:$p0",
  "segments": [
    {
      "start": 0,
      "end": -1,
      "log":    [["127.0.0.1:$((p0 + 1))"], ["127.0.0.1:$((p0 + 2))"]],
      "stream": [["127.0.0.1:$((p0 + 3))"], ["127.0.0.1:$((p0 + 4))"]]
    }
  ]
}
LAYOUT
  for i in 1 2 3 4 0; do
    start_vcorfu "five-$i" "$((p0 + i))" 512m --data-dir "$workdir/vcorfu/five-$i/data" --layout "$layout"
  done
  measure warmup "${bench[@]}" append --endpoint "$ep" --size 1024 --streams 32 --threads 8 --duration "$warm" --prefix warmup
  for size in "${sizes[@]}"; do
    for t in "${thread_counts[@]}"; do
      measure five "${bench[@]}" append --endpoint "$ep" --warmup "$warm" --size "$size" --streams 32 --threads "$t" --conns "$t" \
        --duration "$d" --prefix "f$size-t$t"
    done
  done
  for t in "${kb_threads[@]}"; do
    for c in 1 "$t"; do
      measure five "${bench[@]}" append --endpoint "$ep" --warmup "$warm_kb" --size 1024 --streams 32 --threads "$t" --conns "$c" \
        --duration "$d" --prefix "f1024-t$t-c$c"
    done
  done
  measure five "${bench[@]}" read --endpoint "$ep" --streams 32 --prefix "f4096-t8" --threads 8 --conns 8 --batch 100 --duration "$d"
  stop_vcorfu

  # redis
  "${redis[@]}" start
  measure "redis p1" "${redis[@]}" bench-incr --clients 50 --pipeline 1 --requests "$incr_n"
  measure "redis p16" "${redis[@]}" bench-incr --clients 50 --pipeline 16 --requests "$incr16_n"
  for size in "${sizes[@]}"; do
    for t in "${thread_counts[@]}"; do
      measure "redis size $size clients $t" "${redis[@]}" bench-stream --size "$size" --clients "$t" --requests "$xadd_n" --batch 100
    done
  done
  for t in "${kb_threads[@]}"; do
    measure "redis size 1024 clients $t" "${redis[@]}" bench-stream --size 1024 --clients "$t" --requests "$xadd_n" --batch 100
  done
  "${redis[@]}" stop

  # etcd
  "${etcd[@]}" start
  etcd_total() { case "$1" in 1) echo "$etcd_n1" ;; 8) echo "$etcd_n8" ;; *) echo "$etcd_n50" ;; esac; }
  for size in "${sizes[@]}"; do
    for t in "${thread_counts[@]}"; do
      measure "etcd size $size clients $t" "${etcd[@]}" bench-put --size "$size" --clients "$t" --conns "$t" --total "$(etcd_total "$t")"
    done
  done
  for t in "${kb_threads[@]}"; do
    for c in 1 "$t"; do
      measure "etcd size 1024 clients $t" "${etcd[@]}" bench-put --size 1024 --clients "$t" --conns "$c" --total "$(etcd_total "$t")"
    done
  done
  measure "etcd size 1024 clients 8" "${etcd[@]}" bench-get --size 1024 --clients 8 --conns 8 --total "$get_n"
  "${etcd[@]}" stop
fi

peers_log "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "load-end | $(date -u +%FT%TZ) $(uptime)" >>"$results"

# --- summary ----------------------------------------------------------------------------------------
summary=$workdir/summary.txt
"$here/summarize-stream-store.sh" "$results" >"$summary"
echo
cat "$summary"
if [[ -n "$out" ]]; then
  {
    echo "# raw result lines"
    cat "$results"
    echo
    cat "$summary"
  } >"$out"
  peers_log "wrote $out"
fi
