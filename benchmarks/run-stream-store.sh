#!/usr/bin/env bash
# The stream-store comparison in one run: vcorfu (single durable node and the five-process
# loopback layout), Redis streams and etcd, one after another on 127.0.0.1, same value sizes and
# concurrency, then a summary table with the ratios.
#
# Usage:
#   benchmarks/run-stream-store.sh [--quick] [--duration S] [--out FILE] [--workdir DIR] [--base-port P]
#
#   --quick         smoke run: 2 s per vcorfu measurement, small redis/etcd request counts
#   --duration S    seconds per vcorfu measurement (default 15; --quick sets 2)
#   --out FILE      also write every raw result line and the summary to FILE
#   --workdir DIR   scratch directory (default: a fresh mktemp -d, removed at the end)
#   --base-port P   vcorfu ports P .. P+4 (default 19000); redis uses 6390, etcd 2389/2390
#   --targets       only the measurements the targets compare (about 4 minutes): single node
#                   warm-up, tokens (2 threads, batch 64), 1 KB appends at 8 and 50 threads; redis
#                   INCR -c 50; etcd put 1 KB at 8 and 50 clients
#
# Every vcorfu append measurement first runs the same load for the warm-up time (2 s with --quick,
# else 5 s; 30 s for the 1 KB measurements the targets compare) in the same client process,
# uncounted, so the client's JIT is warm when measuring.
# Order: build the jar if missing or stale; single durable node (fresh data dir, default
# group-commit fsync): a 2x5 s warm-up (tagged "warmup"), tokens (loopback batch 1, loopback
# batch 64 with 1 and 2 threads, in-process batch 64), the append matrix
# (32 B and 4 KB x 1/32/1000 streams x 1/8 threads), 1 KB appends at 8 and 50 threads (the etcd
# concurrency), bulk stream reads; then the five-process layout (sequencer, two log replicas,
# two stream replicas, each durable): a 5 s warm-up, 32 B and 4 KB x 32 streams x 1/8 threads and 1 KB x 8/50;
# then redis (appendfsync everysec): INCR -c 50 and XADD/XRANGE at 32 B and 4 KB x 1/8 clients
# and 1 KB x 8/50; then etcd: put at the same sizes and concurrency, get at 1 KB.
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
targets=false
duration=""
out=""
workdir=""
base_port=19000
while (($#)); do
  case "$1" in
    --quick) quick=true; shift ;;
    --targets) targets=true; shift ;;
    --duration) duration=${2:?--duration needs a value}; shift 2 ;;
    --out) out=${2:?--out needs a value}; shift 2 ;;
    --workdir) workdir=${2:?--workdir needs a value}; shift 2 ;;
    --base-port) base_port=${2:?--base-port needs a value}; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
if [[ -z "$duration" ]]; then
  if [[ "$quick" == true ]]; then duration=2; else duration=15; fi
fi
peers_require_uint --base-port "$base_port"

# Request counts for the peers, sized so each measurement takes about as long as a vcorfu one
# (redis-benchmark and etcd's tool run a fixed number of requests, not a fixed time).
if [[ "$quick" == true ]]; then
  incr_n=100000; xadd_n=20000; etcd_n1=300; etcd_n8=1000; etcd_n50=2000; get_n=5000
else
  incr_n=500000; xadd_n=150000; etcd_n1=5000; etcd_n8=15000; etcd_n50=30000; get_n=30000
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
redis=("$here/peers/redis.sh" --workdir "$peer_dir")
etcd=("$here/peers/etcd.sh" --workdir "$peer_dir")
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

# ---------------------------------------------------------------------------------------------
peers_log "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "load-start | $(uptime)" >>"$results"

vcorfu_build_jar "$root" "$jar"

if [[ ! -x "$peer_dir/bin/etcd-bench" ]]; then
  if [[ -x "$PEERS_DEFAULT_WORKDIR/bin/etcd-bench" ]]; then
    mkdir -p "$peer_dir/bin"
    cp "$PEERS_DEFAULT_WORKDIR/bin/etcd-bench" "$peer_dir/bin/etcd-bench"
  else
    "$here/peers/install.sh" --workdir "$peer_dir" >&2
  fi
fi

d=$duration
warm=$(( duration < 10 ? 2 : 5 ))
# The 1 KB appends the targets compare run in a client JVM that has finished compiling its hot
# path: measured on the 2-core machine, a fresh client keeps a C2 compiler thread busy for about
# 30 s and reaches its steady rate only after that (etcd's Go benchmark needs no warm-up).
warm_kb=$(( duration < 10 ? 2 : 30 ))
sizes=(32 4096)
stream_counts=(1 32 1000)
thread_counts=(1 8)
kb_threads=(8 50)

# --- vcorfu, single durable node ---------------------------------------------------------------
p0=$base_port
ep=127.0.0.1:$p0
start_vcorfu single "$p0" 2g --data-dir "$workdir/vcorfu/single/data"
# Warm-up (JIT) of a freshly started server; reported under the tag "warmup", not in the summary.
measure warmup "${bench[@]}" tokens --endpoint "$ep" --threads 1 --batch 1 --pipeline 32 --duration "$warm"
measure warmup "${bench[@]}" append --endpoint "$ep" --size 1024 --streams 32 --threads 8 --duration "$warm" --prefix warmup
if [[ "$targets" == true ]]; then
  measure single "${bench[@]}" tokens --endpoint "$ep" --threads 2 --batch 64 --pipeline 32 --duration "$d"
  sizes=()
else
  measure single "${bench[@]}" tokens --endpoint "$ep" --threads 1 --batch 1 --pipeline 32 --duration "$d"
  measure single "${bench[@]}" tokens --endpoint "$ep" --threads 1 --batch 64 --pipeline 32 --duration "$d"
  measure single "${bench[@]}" tokens --endpoint "$ep" --threads 2 --batch 64 --pipeline 32 --duration "$d"
  measure single "${bench[@]}" tokens --in-process --threads 1 --batch 64 --pipeline 32 --duration "$d"
fi
for size in "${sizes[@]}"; do
  for k in "${stream_counts[@]}"; do
    for t in "${thread_counts[@]}"; do
      measure single "${bench[@]}" append --endpoint "$ep" --warmup "$warm" --size "$size" --streams "$k" --threads "$t" \
        --duration "$d" --prefix "s$size-k$k-t$t"
    done
  done
done
for t in "${kb_threads[@]}"; do
  measure single "${bench[@]}" append --endpoint "$ep" --warmup "$warm_kb" --size 1024 --streams 32 --threads "$t" --duration "$d" --prefix "s1024-k32-t$t"
done
# Bulk reads of what the appends wrote: one stream of 32 B entries, and 32 streams of 4 KB entries,
# 100 addresses per call (the XRANGE COUNT below).
if [[ "$targets" != true ]]; then
measure single "${bench[@]}" read --endpoint "$ep" --stream "s32-k1-t8-0" --threads 1 --batch 100 --duration "$d"
measure single "${bench[@]}" read --endpoint "$ep" --stream "s32-k1-t8-0" --threads 8 --batch 100 --duration "$d"
measure single "${bench[@]}" read --endpoint "$ep" --streams 32 --prefix "s4096-k32-t8" --threads 8 --batch 100 --duration "$d"
fi
stop_vcorfu

# --- vcorfu, five-process loopback layout ---------------------------------------------------------
if [[ "$targets" != true ]]; then
layout=$workdir/vcorfu/layout.json
mkdir -p "$(dirname "$layout")"
cat >"$layout" <<EOF
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
EOF
for i in 1 2 3 4 0; do
  start_vcorfu "five-$i" "$((p0 + i))" 512m --data-dir "$workdir/vcorfu/five-$i/data" --layout "$layout"
done
measure warmup "${bench[@]}" append --endpoint "$ep" --size 1024 --streams 32 --threads 8 --duration "$warm" --prefix warmup
for size in "${sizes[@]}"; do
  for t in "${thread_counts[@]}"; do
    measure five "${bench[@]}" append --endpoint "$ep" --warmup "$warm" --size "$size" --streams 32 --threads "$t" --duration "$d" --prefix "f$size-t$t"
  done
done
for t in "${kb_threads[@]}"; do
  measure five "${bench[@]}" append --endpoint "$ep" --warmup "$warm_kb" --size 1024 --streams 32 --threads "$t" --duration "$d" --prefix "f1024-t$t"
done
measure five "${bench[@]}" read --endpoint "$ep" --streams 32 --prefix "f4096-t8" --threads 8 --batch 100 --duration "$d"
stop_vcorfu
fi

# --- redis ------------------------------------------------------------------------------------------
"${redis[@]}" start
measure redis "${redis[@]}" bench-incr --clients 50 --requests "$incr_n"
for size in "${sizes[@]}"; do
  for t in "${thread_counts[@]}"; do
    measure "redis size $size clients $t" "${redis[@]}" bench-stream --size "$size" --clients "$t" --requests "$xadd_n" --batch 100
  done
done
for t in "${kb_threads[@]}"; do
  measure "redis size 1024 clients $t" "${redis[@]}" bench-stream --size 1024 --clients "$t" --requests "$xadd_n" --batch 100
done
"${redis[@]}" stop

# --- etcd -------------------------------------------------------------------------------------------
"${etcd[@]}" start
etcd_total() { case "$1" in 1) echo "$etcd_n1" ;; 8) echo "$etcd_n8" ;; *) echo "$etcd_n50" ;; esac; }
for size in "${sizes[@]}"; do
  for t in "${thread_counts[@]}"; do
    measure "etcd size $size clients $t" "${etcd[@]}" bench-put --size "$size" --clients "$t" --conns "$t" --total "$(etcd_total "$t")"
  done
done
for t in "${kb_threads[@]}"; do
  measure "etcd size 1024 clients $t" "${etcd[@]}" bench-put --size 1024 --clients "$t" --conns "$t" --total "$(etcd_total "$t")"
done
if [[ "$targets" != true ]]; then
  measure "etcd size 1024 clients 8" "${etcd[@]}" bench-get --size 1024 --clients 8 --conns 8 --total "$get_n"
fi
"${etcd[@]}" stop

peers_log "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "load-end | $(uptime)" >>"$results"

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
