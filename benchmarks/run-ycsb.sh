#!/usr/bin/env bash
# YCSB core workloads A-F on vcorfu, Redis and etcd side by side in one run, on 127.0.0.1, then a
# markdown summary: per workload the run-phase throughput of each database, cold (the first
# seconds of a fresh client JVM against freshly started servers), warm (the run phase after its
# warm-up) and overall, the 99th percentile latency of each operation type, and the ratios
# vcorfu/redis and vcorfu/etcd.
#
# Usage:
#   benchmarks/run-ycsb.sh [--quick] [--out FILE] [--records N] [--operations M] [--seconds S]
#                          [--threads T] [--workloads a,b,c,d,e,f] [--buckets B] [--workdir DIR]
#                          [--base-port P] [--cold-seconds C] [--warm-after W]
#                          [--vcorfu-fsync-interval-ms N]
#
#   --quick          smoke run: 500 records, 2000 operations (unless --records/--operations given)
#   --out FILE       the summary and every database's raw YCSB output (default
#                    benchmarks/target/ycsb-run.md)
#   --records N      records loaded per workload and database (default 10000)
#   --operations M   operations in each run phase (default 100000; with --seconds, 1000000000)
#   --seconds S      end each run phase after S seconds (YCSB's maxexecutiontime), so every database
#                    runs for the same time; the phase also ends after M operations
#   --cold-seconds C the cold figure: the first C seconds of each run phase (default 10)
#   --warm-after W   the warm figure: each run phase after W seconds, reported when the phase runs on
#                    for at least 5 s more (default 30)
#   --threads T      YCSB client threads (default 8)
#   --workloads LIST comma-separated core workloads (default a,b,c,d,e,f)
#   --buckets B      buckets of each vcorfu table's CSMRMap (-p vcorfu.buckets=B, default 100)
#   --read-lease-ms L the vcorfu client's read lease (-p vcorfu.read-lease-ms=L, default 1000; 0 = no
#                    lease: every read asks the sequencer for its bucket's tail)
#   --vcorfu-fsync-interval-ms N  the vcorfu node forces its log every N ms instead of before every
#                    acknowledgement (`vcorfu server --fsync-interval-ms N`); 1000 compares like for
#                    like with redis's appendfsync everysec (default: none, durable acknowledgements)
#   --workdir DIR    scratch directory (default: a fresh mktemp -d, removed at the end)
#   --base-port P    vcorfu on P, redis on P+1, etcd on P+2 (client) and P+3 (peer); default 19200
#   --warmup-ops W   operations of an unreported workload-B run (1000 records, table "warmup") on
#                    each fresh vcorfu node before its measured pair (default 0: none, so the cold
#                    figure is a fresh node's; with W > 0 it is a warmed node's).
#
# Servers: one durable vcorfu node (fresh data directory, default group-commit fsync, -Xmx2g),
# redis-server with appendonly yes / appendfsync everysec (peers/redis.sh start) and a one-member
# etcd that fsyncs its log before acknowledging writes (peers/etcd.sh start). All three are started
# fresh (new data directories) for every workload and stopped after it, so each workload's cold
# figure is that of fresh servers. Each (workload, database) pair runs on its own, one after the
# other: `BenchCli ycsb --db DB --workload X --records N --operations M --threads T --endpoint H:P
# -p table=usertable_X` (YCSB's default 10 fields of 100 bytes for every database; vcorfu also gets
# -p vcorfu.buckets=B and its read lease). The workloads are interleaved (vcorfu, redis, etcd for A,
# then for B, ...) so that a change of machine load hits the three databases alike. Every database
# gets the same T client threads, each binding in its usual configuration: vcorfu's T threads share
# one client runtime (one connection), redis's each hold one connection (Jedis), etcd's share one
# jetcd client (one gRPC connection). The run phase is a fresh client JVM; it prints a status line
# every second, from which come the cold figure (its first C seconds) and the warm one (after W s).
#
# Run time: --quick over all six workloads takes about 4 minutes (measured on a shared 2-core
# machine; mostly JVM start-ups, two client JVMs per pair). The default run (10000 records, 100000
# operations, 8 threads, all six workloads) runs 18 load and 18 run phases; at the rates the --quick
# run saw on that machine (vcorfu and etcd about 100-400 ops/s, redis about 2000 ops/s) that is
# about 1.5 to 2 hours, most of it in vcorfu and etcd; a quiet machine with more cores is faster.
# Run it on a quiet machine.
#
# Every process this script starts is recorded by PID (with its executable) and stopped by that
# PID only, also on failure or interrupt. Progress goes to standard error; the summary to standard
# output and, with the raw output, to the --out file. The exit status is 0 when every pair
# finished without errors, 1 otherwise (the summary marks the failed pairs).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
# shellcheck source=peers/lib.sh
source "$here/peers/lib.sh"
# shellcheck source=vcorfu-node.sh
source "$here/vcorfu-node.sh"

usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}

quick=false
out=$root/benchmarks/target/ycsb-run.md
records=""
operations=""
threads=8
workloads=a,b,c,d,e,f
buckets=100
read_lease_ms=1000
workdir=""
base_port=19200
warmup_ops=""
seconds=""
cold_seconds=10
warm_after=30
vcorfu_fsync_ms=""
while (($#)); do
  case "$1" in
    --quick) quick=true; shift ;;
    --out) out=${2:?--out needs a value}; shift 2 ;;
    --records) records=${2:?--records needs a value}; shift 2 ;;
    --operations) operations=${2:?--operations needs a value}; shift 2 ;;
    --threads) threads=${2:?--threads needs a value}; shift 2 ;;
    --workloads) workloads=${2:?--workloads needs a value}; shift 2 ;;
    --buckets) buckets=${2:?--buckets needs a value}; shift 2 ;;
    --read-lease-ms) read_lease_ms=${2:?--read-lease-ms needs a value}; shift 2 ;;
    --workdir) workdir=${2:?--workdir needs a value}; shift 2 ;;
    --base-port) base_port=${2:?--base-port needs a value}; shift 2 ;;
    --warmup-ops) warmup_ops=${2:?--warmup-ops needs a value}; shift 2 ;;
    --seconds) seconds=${2:?--seconds needs a value}; shift 2 ;;
    --cold-seconds) cold_seconds=${2:?--cold-seconds needs a value}; shift 2 ;;
    --warm-after) warm_after=${2:?--warm-after needs a value}; shift 2 ;;
    --vcorfu-fsync-interval-ms) vcorfu_fsync_ms=${2:?--vcorfu-fsync-interval-ms needs a value}; shift 2 ;;
    -h | --help) usage ;;
    *) echo "unknown argument: $1" >&2; usage ;;
  esac
done
if [[ -n "$seconds" ]]; then
  peers_require_uint --seconds "$seconds"
  operations=${operations:-1000000000}
fi
if [[ "$quick" == true ]]; then
  records=${records:-500}; operations=${operations:-2000}; warmup_ops=${warmup_ops:-0}
else
  records=${records:-10000}; operations=${operations:-100000}; warmup_ops=${warmup_ops:-0}
fi
peers_require_uint --cold-seconds "$cold_seconds"
peers_require_uint --warm-after "$warm_after"
[[ "$warmup_ops" =~ ^[0-9]+$ ]] || peers_die "--warmup-ops must be 0 or a positive integer, got '$warmup_ops'"
peers_require_uint --records "$records"
peers_require_uint --operations "$operations"
peers_require_uint --threads "$threads"
peers_require_uint --buckets "$buckets"
[[ -z "$vcorfu_fsync_ms" ]] || peers_require_uint --vcorfu-fsync-interval-ms "$vcorfu_fsync_ms"
[[ "$read_lease_ms" =~ ^[0-9]+$ ]] || peers_die "--read-lease-ms must be 0 or a positive integer, got '$read_lease_ms'"
peers_require_uint --base-port "$base_port"
((base_port + 3 <= 65535)) || peers_die "--base-port must leave room for four ports below 65536"
IFS=, read -r -a letters <<<"${workloads,,}"
((${#letters[@]} > 0)) || peers_die "--workloads must name at least one workload"
for w in "${letters[@]}"; do
  [[ "$w" =~ ^[a-f]$ ]] || peers_die "--workloads takes letters a to f separated by commas, got '$workloads'"
done
dbs=(vcorfu redis etcd)

own_workdir=false
if [[ -z "$workdir" ]]; then
  workdir=$(mktemp -d /tmp/vcorfu-ycsb.XXXXXX)
  own_workdir=true
fi
mkdir -p "$workdir/raw"

jar=$root/benchmarks/target/vcorfu-all.jar
java_opts=(-XX:+UseParallelGC)
host=127.0.0.1
vcorfu_port=$base_port
redis_port=$((base_port + 1))
etcd_port=$((base_port + 2))
etcd_peer_port=$((base_port + 3))
vcorfu_pidfile=$workdir/vcorfu/server.pid
redis=("$here/peers/redis.sh" --workdir "$workdir/peers" --port "$redis_port")
etcd=("$here/peers/etcd.sh" --workdir "$workdir/peers" --port "$etcd_port" --peer-port "$etcd_peer_port")
bench_pid=""

# stop_bench: stop a running BenchCli client and the YCSB phase JVM it started (its child), by PID.
stop_bench() {
  local pid=$bench_pid child
  bench_pid=""
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 0
  for child in $(cat "/proc/$pid/task/"*/children 2>/dev/null); do
    kill -TERM "$child" 2>/dev/null || true
  done
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

cleanup() {
  local IFS=$' \t\n' # the trap may fire inside an `IFS= read`
  stop_bench
  peers_stop "$vcorfu_pidfile" vcorfu >/dev/null 2>&1 || true
  "${redis[@]}" stop >/dev/null 2>&1 || true
  "${etcd[@]}" stop >/dev/null 2>&1 || true
  if [[ "$own_workdir" == true ]]; then rm -rf "$workdir"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

endpoint_of() {
  case "$1" in
    vcorfu) echo "$host:$vcorfu_port" ;;
    redis) echo "$host:$redis_port" ;;
    etcd) echo "$host:$etcd_port" ;;
  esac
}

# run_pair WORKLOAD DB: one YCSB load + run against DB; its output goes to raw/WORKLOAD-DB.out
# (standard output: YCSB's report) and raw/WORKLOAD-DB.err (progress lines, errors), its exit
# status to raw/WORKLOAD-DB.status. The client runs in the background so that an interrupt is
# handled at once (and the client stopped by cleanup).
run_pair() {
  local w=$1 db=$2 base=$workdir/raw/$1-$2 status=0
  local cmd=(java "${java_opts[@]}" -cp "$jar" io.vcorfu.benchmarks.BenchCli ycsb --db "$db" --workload "$w"
    --records "$records" --operations "$operations" --threads "$threads" --endpoint "$(endpoint_of "$db")"
    --cold-seconds "$cold_seconds" --warm-after "$warm_after" -p "table=usertable_$w")
  [[ -n "$seconds" ]] && cmd+=(-p "maxexecutiontime=$seconds")
  [[ "$db" == vcorfu ]] && cmd+=(-p "vcorfu.buckets=$buckets" -p "vcorfu.read-lease-ms=$read_lease_ms")
  peers_log "workload $w, $db: ${cmd[*]:4}"
  echo "\$ ${cmd[*]:4}" >"$base.cmd"
  "${cmd[@]}" >"$base.out" 2>"$base.err" &
  bench_pid=$!
  wait "$bench_pid" || status=$?
  bench_pid=""
  echo "$status" >"$base.status"
  if ((status != 0)); then
    peers_log "workload $w, $db failed with exit status $status; last lines:"
    tail -n 5 "$base.out" "$base.err" >&2 || true
  fi
  grep -E '^ycsb summary:' "$base.out" >&2 || true
}

# summarize: the markdown summary of every pair under raw/.
summarize() {
  local w db
  echo "# YCSB: vcorfu vs redis vs etcd$([[ "$quick" == true ]] && echo " (--quick smoke run)")"
  echo
  echo "$records records of 10 fields x 100 bytes, $operations operations$([[ -n "$seconds" ]] && echo " or $seconds s, whichever ends first"), $threads client threads per" \
    "(workload, database); fresh servers for every workload; vcorfu: one node, $([[ -n "$vcorfu_fsync_ms" ]] && echo "its log forced every $vcorfu_fsync_ms ms" || echo "durable (fsync before every acknowledgement)"), $buckets buckets per table, client read lease" \
    "$read_lease_ms ms, the $threads threads share one client runtime (one connection); redis: appendfsync" \
    "everysec, one connection per thread; etcd: one member, fsync per write batch, one jetcd client (one connection)." \
    "Run phase figures only: cold = its first $cold_seconds s (a fresh client JVM), warm = after $warm_after s" \
    "(n/a when the phase did not run on for 5 s more), overall = the whole phase. Ratios: vcorfu divided" \
    "by the peer, so a throughput ratio above 1 and a p99 ratio below 1 favour vcorfu."
  echo
  for w in "${letters[@]}"; do
    for db in "${dbs[@]}"; do
      printf '%s %s %s\n' "$w" "$db" "$(cat "$workdir/raw/$w-$db.status" 2>/dev/null || echo missing)"
      cat "$workdir/raw/$w-$db.out" 2>/dev/null || true
    done
  done | awk -v dbs="${dbs[*]}" -v workloads="${letters[*]}" '
    # A pair that did not exit with 0 shows "failed" instead of figures, and no ratio.
    function ok(w, db) { return status[w, db] == "0" }
    function cell(w, db, v) { return !ok(w, db) ? "failed" : v == "" ? "-" : v }
    function ratio(w, peer, a, b) {
      return (ok(w, "vcorfu") && ok(w, peer) && a != "" && b != "" && b + 0 > 0) ? sprintf("%.2f", a / b) : "-"
    }
    /^[a-f] (vcorfu|redis|etcd) / && NF == 3 { w = $1; db = $2; status[w, db] = $3; phase = ""; next }
    /^ycsb: run phase/ { phase = "run"; next }
    /^ycsb summary: / {
      if (match($0, /run cold \(first [0-9]+ s\) [0-9.]+ ops\/s/)) { c = substr($0, RSTART, RLENGTH); sub(/ ops\/s$/, "", c); sub(/.* /, "", c); cold[w, db] = sprintf("%.1f", c) }
      if (match($0, /run warm \(after [0-9]+ s\) [0-9.]+ ops\/s/)) { c = substr($0, RSTART, RLENGTH); sub(/ ops\/s$/, "", c); sub(/.* /, "", c); warm[w, db] = sprintf("%.1f", c) }
      next
    }
    /^ycsb: / { next }
    phase == "run" && /^\[/ {
      n = split($0, f, /, */)
      if (n < 3) next
      sec = substr(f[1], 2, length(f[1]) - 2)
      if (sec == "OVERALL" && f[2] == "Throughput(ops/sec)") tput[w, db] = sprintf("%.1f", f[3])
      else if (f[2] == "99thPercentileLatency(us)" && sec !~ /^CLEANUP/ && sec !~ /-FAILED$/) {
        p99[w, db, sec] = f[3]
        if (!((w, sec) in seen)) { seen[w, sec] = 1; ops[w] = ops[w] " " sec }
      }
      else if (f[2] == "Return=ERROR") errs[w, db] += f[3]
    }
    END {
      nd = split(dbs, d, " "); nw = split(workloads, wl, " ")
      print "## Throughput (ops/s)"
      print ""
      print "| workload | figure | vcorfu | redis | etcd | vcorfu/redis | vcorfu/etcd |"
      print "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
      for (i = 1; i <= nw; i++) {
        w = wl[i]
        printf "| %s | cold | %s | %s | %s | %s | %s |\n", toupper(w), cell(w, "vcorfu", cold[w, "vcorfu"]),
          cell(w, "redis", cold[w, "redis"]), cell(w, "etcd", cold[w, "etcd"]),
          ratio(w, "redis", cold[w, "vcorfu"], cold[w, "redis"]), ratio(w, "etcd", cold[w, "vcorfu"], cold[w, "etcd"])
        printf "| %s | warm | %s | %s | %s | %s | %s |\n", toupper(w), cell(w, "vcorfu", warm[w, "vcorfu"]),
          cell(w, "redis", warm[w, "redis"]), cell(w, "etcd", warm[w, "etcd"]),
          ratio(w, "redis", warm[w, "vcorfu"], warm[w, "redis"]), ratio(w, "etcd", warm[w, "vcorfu"], warm[w, "etcd"])
        printf "| %s | overall | %s | %s | %s | %s | %s |\n", toupper(w), cell(w, "vcorfu", tput[w, "vcorfu"]),
          cell(w, "redis", tput[w, "redis"]), cell(w, "etcd", tput[w, "etcd"]),
          ratio(w, "redis", tput[w, "vcorfu"], tput[w, "redis"]), ratio(w, "etcd", tput[w, "vcorfu"], tput[w, "etcd"])
      }
      print ""
      print "## 99th percentile latency (us) per operation type"
      print ""
      print "| workload | operation | vcorfu | redis | etcd | vcorfu/redis | vcorfu/etcd |"
      print "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
      for (i = 1; i <= nw; i++) {
        w = wl[i]
        m = split(ops[w], o, " ")
        for (j = 1; j <= m; j++) {
          s = o[j]
          printf "| %s | %s | %s | %s | %s | %s | %s |\n", toupper(w), s, cell(w, "vcorfu", p99[w, "vcorfu", s]),
            cell(w, "redis", p99[w, "redis", s]), cell(w, "etcd", p99[w, "etcd", s]),
            ratio(w, "redis", p99[w, "vcorfu", s], p99[w, "redis", s]),
            ratio(w, "etcd", p99[w, "vcorfu", s], p99[w, "etcd", s])
        }
      }
      bad = ""
      for (i = 1; i <= nw; i++) for (k = 1; k <= nd; k++) {
        w = wl[i]; db = d[k]
        if (status[w, db] != "0") bad = bad sprintf("- workload %s on %s: exit status %s\n", toupper(w), db, status[w, db])
        else if (errs[w, db] > 0) bad = bad sprintf("- workload %s on %s: %d operations returned ERROR\n", toupper(w), db, errs[w, db])
      }
      print ""
      if (bad == "") print "Every (workload, database) pair finished with no operation returning ERROR."
      else { print "Failed or erroneous pairs (see the raw output):"; print ""; printf "%s", bad }
    }'
}

# ---------------------------------------------------------------------------------------------
vcorfu_build_jar "$root" "$jar"
peers_require_cmd redis-server "run benchmarks/peers/install.sh"
peers_require_cmd etcd "run benchmarks/peers/install.sh"
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date -u +%FT%TZ)

# start_servers W: a fresh vcorfu node, redis and etcd (new data directories) for workload W; with
# --warmup-ops, the vcorfu node's JIT is then warmed with reads and updates on a table of its own.
start_servers() {
  rm -rf "$workdir/vcorfu"
  vcorfu_start_node "$workdir/vcorfu" "$vcorfu_port" "${java_opts[@]}" -Xmx2g -cp "$jar" -- \
    --data-dir "$workdir/vcorfu/data" ${vcorfu_fsync_ms:+--fsync-interval-ms "$vcorfu_fsync_ms"}
  "${redis[@]}" start
  "${etcd[@]}" start
  if ((warmup_ops > 0)); then
    peers_log "warming up the vcorfu node: workload b, $warmup_ops operations on table warmup"
    java "${java_opts[@]}" -cp "$jar" io.vcorfu.benchmarks.BenchCli ycsb --db vcorfu --workload b --records 1000 \
      --operations "$warmup_ops" --threads "$threads" --endpoint "$(endpoint_of vcorfu)" -p table=warmup \
      -p "vcorfu.buckets=$buckets" -p "vcorfu.read-lease-ms=$read_lease_ms" >"$workdir/raw/warmup-$1-vcorfu.out" 2>&1 \
      || peers_die "the vcorfu warm-up failed; see $workdir/raw/warmup-$1-vcorfu.out"
    grep -E '^ycsb summary:' "$workdir/raw/warmup-$1-vcorfu.out" >&2 || true
  fi
}

stop_servers() {
  peers_stop "$vcorfu_pidfile" vcorfu
  "${redis[@]}" stop
  "${etcd[@]}" stop
}

for w in "${letters[@]}"; do
  start_servers "$w"
  for db in "${dbs[@]}"; do
    run_pair "$w" "$db"
  done
  stop_servers
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
finished=$(date -u +%FT%TZ)

summary=$workdir/summary.md
summarize >"$summary"
mkdir -p "$(dirname "$out")"
{
  cat "$summary"
  echo
  echo "Started $started (load average $load_start), finished $finished (load average $load_end), $(nproc) cores."
  echo
  echo "## Raw output"
  for w in "${letters[@]}"; do
    for db in "${dbs[@]}"; do
      base=$workdir/raw/$w-$db
      echo
      echo "### workload $w, $db (exit status $(cat "$base.status"))"
      echo
      echo '```'
      cat "$base.cmd" "$base.out"
      echo "--- standard error ---"
      cat "$base.err"
      echo '```'
    done
  done
} >"$out"
echo
cat "$summary"
peers_log "wrote $out"
failed=0
grep -q '^Every (workload, database) pair finished' "$summary" || failed=1
exit "$failed"
