#!/usr/bin/env bash
# The cluster comparison in one run: a three-node vcorfu cluster (replication R = 3, default
# timings) against a three-member etcd cluster, both on 127.0.0.1, interleaved so that both see the
# same machine; then markdown tables.
#
# Usage:
#   benchmarks/run-cluster.sh [--quick] [--parts failover,pause,append,ycsb] [--runs N] [--out FILE]
#                             [--workdir DIR] [--base-port P] [--cold S] [--warmup S] [--duration S]
#                             [--ycsb-seconds S] [--records N] [--pause-s S] [--pause-before S]
#                             [--node-flags FLAGS] [--client-writes] [--callers threads|loop]
#
#   --quick           smoke run, about 3 minutes (the full run takes about 10): 1 failover run
#                     per role, appends --cold 2 --warmup 3 --duration 2, YCSB 1000 records and
#                     12 s run phases
#   --parts LIST      which parts to run, comma-separated (default failover,append,ycsb; pause on
#                     request)
#   --runs N          failover runs per role (default 5; --quick 1)
#   --cold S          appends: the cold window, the first S s of load of a fresh client JVM against a
#                     fresh cluster (default 10)
#   --warmup S        appends: seconds of load before the warm window, same client JVM (default 30)
#   --duration S      appends: the warm window (default 10)
#   --ycsb-seconds S  YCSB: length of each run phase (default 40); cold = its first 10 s, warm =
#                     after 20 s (--quick: 3 s and after 5 s)
#   --records N       YCSB: records loaded (default 10000)
#   --pause-s S       pause: how long each paused process stays stopped (default 8)
#   --pause-before S  pause: seconds of writes before the pause (default 12, so that the paused
#                     node has answered for over 10 s: a node that has answered for less is judged
#                     by a failure timeout of at least 1 s)
#   --node-flags F    extra `vcorfu server` flags for every vcorfu node, split on spaces (for
#                     instance "--probe-interval-ms 100 --layout-lease-ms 250"; default none)
#   --client-writes   appends: every vcorfu append takes a token and writes each copy itself
#                     (`bench append --client-writes`) instead of going whole to the sequencer
#                     node, which writes the copies (the default), to compare the two write paths
#   --callers C       appends: how vcorfu's --threads callers run (`bench append --callers`): loop
#                     (the default: each caller's next append is sent from the completion of its
#                     last, as etcd's benchmark runs its clients as goroutines) or threads (one
#                     parked thread per caller)
#   --out FILE        also write the summary and every raw result line to FILE
#   --workdir DIR     scratch directory, kept afterwards with every node's log (default: a fresh
#                     mktemp -d, removed at the end)
#   --base-port P     ZooKeeper on P, vcorfu nodes on P+1..P+3 (their /metrics on P+21..P+23),
#                     etcd members on P+11/P+13/P+15 (client) and P+12/P+14/P+16 (peer); default
#                     19400
#
# The clusters. vcorfu: one `vcorfu zookeeper` for the whole run; every measurement gets a fresh
# cluster (three new `vcorfu server --zookeeper Z --cluster NAME` nodes with new data directories
# and a cluster name of its own, `vcorfu cluster init --nodes a,b,c`, so R = 3: every node is a log
# and stream replica of every chain, the first is the sequencer), each node durable (fsync before
# every acknowledgement), -Xmx1g, default probe 50 ms, failure timeout 300 ms, layout lease
# 250 ms (--node-flags adds flags). etcd: peers/etcd.sh --members 3 (three etcd processes,
# --initial-cluster on 127.0.0.1 ports, default heartbeat 100 ms and election timeout 1000 ms,
# fsync before acknowledging), fresh data directories for every measurement.
#
# Parts, each interleaved (vcorfu, then etcd, under the same load):
#   failover  N rounds of: a fresh vcorfu cluster and `bench failover --kill sequencer`; a fresh
#             cluster and `bench failover --kill replica` (a node that is not the sequencer); a fresh
#             etcd cluster and `bench failover --db etcd --kill leader`. The tool writes 1 KB values
#             one after another from one thread, kills the role's process with SIGKILL after 3 s
#             and stamps every acknowledgement and the kill on one monotonic clock. Reported: the
#             median (and range) of kill -> first acknowledged write issued after the kill, and of
#             the longest gap between consecutive acknowledgements around the kill. vcorfu's
#             client has its defaults (failover timeout 30 s); etcd's jetcd client abandons a put
#             after 200 ms and sends the next (see EtcdFailoverTarget).
#   pause     as failover, but the process is paused (SIGSTOP, `bench failover --signal STOP`) for
#             --pause-s seconds (default 8) and then resumed (SIGCONT), the writer running on
#             through the resume: a fresh vcorfu cluster with its sequencer paused, another with a
#             replica (a node that is not the sequencer: with R = 3 on three nodes it is a log and
#             a stream replica of every chain) paused, both with the client's default settings; a
#             fresh etcd cluster with its leader paused, another with a follower paused, each put
#             abandoned after 500 ms. Rows "sequencer-paused", "replica-paused", "leader-paused"
#             and "follower-paused".
#   append    durable 1 KB appends to 32 streams with T = 8 and T = 50 client threads on T
#             connections: `bench append --threads T --conns T` (T independent clients, each with one
#             connection per node) against `etcd.sh bench-put --clients T --conns T` (etcd-bench: T
#             gRPC connections, spread over the three members in turn). vcorfu: one client JVM per
#             row prints the cold figure (first --cold s) and the warm one (--duration s after
#             --warmup s); etcd: one run sized to last about --cold s and one about --duration s.
#             Both warm runs also report what each append cost the whole machine (processor time
#             of every process and the kernel, TCP segments, and the servers' fsyncs and requests
#             from their /metrics pages): `bench append --cost`, `bench cost` around etcd's run.
#   ycsb      YCSB C then B, 8 threads, --records records, run phases of --ycsb-seconds: `bench ycsb
#             --db vcorfu --endpoint a,b,c` (one client runtime, read lease 1 s, 100 buckets) and
#             `bench ycsb --db etcd --endpoint a,b,c` (one jetcd client over the three members),
#             each on a fresh cluster.
#
# Every process this script starts is recorded by PID (with its executable) and stopped by that PID
# only, also on failure or interrupt. Progress goes to standard error; result lines and the summary
# to standard output.
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
parts=failover,append,ycsb
runs=""
cold=""
warmup=""
duration=""
ycsb_seconds=""
records=""
out=""
workdir=""
base_port=19400
pause_s=8
pause_before=12
node_flags=""
client_writes=()
callers=loop
while (($#)); do
  case "$1" in
    --quick) quick=true; shift ;;
    --parts) parts=${2:?--parts needs a value}; shift 2 ;;
    --runs) runs=${2:?--runs needs a value}; shift 2 ;;
    --cold) cold=${2:?--cold needs a value}; shift 2 ;;
    --warmup) warmup=${2:?--warmup needs a value}; shift 2 ;;
    --duration) duration=${2:?--duration needs a value}; shift 2 ;;
    --ycsb-seconds) ycsb_seconds=${2:?--ycsb-seconds needs a value}; shift 2 ;;
    --records) records=${2:?--records needs a value}; shift 2 ;;
    --out) out=${2:?--out needs a value}; shift 2 ;;
    --workdir) workdir=${2:?--workdir needs a value}; shift 2 ;;
    --base-port) base_port=${2:?--base-port needs a value}; shift 2 ;;
    --pause-s) pause_s=${2:?--pause-s needs a value}; shift 2 ;;
    --pause-before) pause_before=${2:?--pause-before needs a value}; shift 2 ;;
    --node-flags) node_flags=${2?--node-flags needs a value}; shift 2 ;;
    --client-writes) client_writes=(--client-writes); shift ;;
    --callers) callers=${2:?--callers needs a value}; shift 2 ;;
    -h | --help) usage ;;
    *) echo "unknown argument: $1" >&2; usage ;;
  esac
done
if [[ "$quick" == true ]]; then
  runs=${runs:-1}; cold=${cold:-2}; warmup=${warmup:-3}; duration=${duration:-2}
  ycsb_seconds=${ycsb_seconds:-12}; records=${records:-1000}; ycsb_cold=3; ycsb_warm_after=5
else
  runs=${runs:-5}; cold=${cold:-10}; warmup=${warmup:-30}; duration=${duration:-10}
  ycsb_seconds=${ycsb_seconds:-40}; records=${records:-10000}; ycsb_cold=10; ycsb_warm_after=20
fi
for v in runs cold warmup duration ycsb_seconds records base_port pause_s pause_before; do
  peers_require_uint "--${v//_/-}" "${!v}"
done
((base_port + 16 <= 65535)) || peers_die "--base-port must leave room for 17 ports below 65536"
IFS=, read -r -a part_list <<<"$parts"
for p in "${part_list[@]}"; do
  [[ "$p" == failover || "$p" == pause || "$p" == append || "$p" == ycsb ]] || peers_die "--parts takes failover, pause, append and ycsb, got '$parts'"
done
read -r -a extra_node_flags <<<"$node_flags"
has_part() { [[ ",$parts," == *",$1,"* ]]; }

own_workdir=false
if [[ -z "$workdir" ]]; then
  workdir=$(mktemp -d /tmp/vcorfu-cluster.XXXXXX)
  own_workdir=true
fi
mkdir -p "$workdir/raw"
results=$workdir/results.txt
: >"$results"

jar=$root/benchmarks/target/vcorfu-all.jar
java_opts=(-XX:+UseParallelGC)
# Node log lines carry the local time, so that a failover can be followed in them (the failover
# tool prints the kill's time in the same format).
log_clock=(-Dorg.slf4j.simpleLogger.showDateTime=true -Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS)
bench=(java "${java_opts[@]}" -cp "$jar" io.vcorfu.benchmarks.BenchCli)
host=127.0.0.1
zk_port=$base_port
zk=$host:$zk_port
node_ports=($((base_port + 1)) $((base_port + 2)) $((base_port + 3)))
metrics_ports=($((base_port + 21)) $((base_port + 22)) $((base_port + 23)))
vcorfu_metrics=http://$host:${metrics_ports[0]}/metrics,http://$host:${metrics_ports[1]}/metrics,http://$host:${metrics_ports[2]}/metrics
vcorfu_endpoints=$host:${node_ports[0]},$host:${node_ports[1]},$host:${node_ports[2]}
etcd=("$here/peers/etcd.sh" --workdir "$workdir/peers" --port "$((base_port + 11))" --peer-port "$((base_port + 12))" --members 3)
etcd_endpoints=$host:$((base_port + 11)),$host:$((base_port + 13)),$host:$((base_port + 15))
etcd_metrics=http://$host:$((base_port + 11))/metrics,http://$host:$((base_port + 13))/metrics,http://$host:$((base_port + 15))/metrics
# What etcd counts as fsyncs (its log's and its backend's commits) and as requests (client RPCs;
# it counts no messages between members).
etcd_cost=(--metrics "$etcd_metrics" --fsync-counters etcd_disk_wal_fsync_duration_seconds_count,etcd_disk_backend_commit_duration_seconds_count
  --request-counters grpc_server_handled_total)
node_pidfiles=()
bench_pid=""

# stop_bench: stop a running client and the child JVMs it started (YCSB phases), by PID.
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

cluster_down() {
  local f
  for f in "${node_pidfiles[@]}"; do
    peers_stop "$f" "vcorfu $(basename "$(dirname "$f")")" || true
  done
  node_pidfiles=()
}

cleanup() {
  local IFS=$' \t\n' # the trap may fire inside an `IFS= read`
  stop_bench
  cluster_down
  peers_stop "$workdir/zk/server.pid" zookeeper >/dev/null 2>&1 || true
  "${etcd[@]}" stop >/dev/null 2>&1 || true
  if [[ "$own_workdir" == true ]]; then rm -rf "$workdir"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# cluster_up NAME: three fresh nodes of cluster NAME (new data directories), started at once, and
# its first layout (R = 3). Sets node_pids (comma-separated, in the order of vcorfu_endpoints).
cluster_up() {
  local name=$1 dir=$workdir/vcorfu/$1 i pid exe
  rm -rf "$dir"
  for i in 0 1 2; do
    node_pidfiles+=("$dir/n$i/server.pid")
    vcorfu_launch_node "$dir/n$i" "${node_ports[$i]}" "${java_opts[@]}" -Xmx1g "${log_clock[@]}" -cp "$jar" -- \
      --data-dir "$dir/n$i/data" --zookeeper "$zk" --cluster "$name" --metrics-port "${metrics_ports[$i]}" \
      "${extra_node_flags[@]}"
  done
  for i in 0 1 2; do
    vcorfu_await_ready "$dir/n$i"
  done
  java "${java_opts[@]}" -cp "$jar" io.vcorfu.server.cli.VcorfuCli cluster init --zookeeper "$zk" \
    --cluster "$name" --nodes "$vcorfu_endpoints" >"$dir/init.log" 2>&1 ||
    { cat "$dir/init.log" >&2; peers_die "cluster init of $name failed"; }
  node_pids=""
  for i in 0 1 2; do
    IFS=" " read -r pid exe <"$dir/n$i/server.pid"
    node_pids+=${node_pids:+,}$pid
  done
  peers_log "vcorfu cluster $name up: $vcorfu_endpoints (pids $node_pids)"
}

# etcd_pids: the three members' PIDs, comma-separated, in the order of etcd_endpoints.
etcd_pids() {
  "${etcd[@]}" members | awk '{ printf "%s%s", (NR > 1 ? "," : ""), $2 }'
}

# measure TAG CMD...: run CMD in the background (so that an interrupt stops it at once); its
# standard output goes to the results file, each line prefixed with TAG, and to standard output.
measure() {
  local tag=$1 n status=0 shown
  shift
  shown="$*"
  shown=${shown/#"${bench[*]} "/vcorfu bench }
  shown=${shown/#"$here/"/benchmarks/}
  n=$(wc -l <"$results")
  peers_log "$tag: $shown"
  echo "$tag | \$ $shown" >>"$results"
  "$@" >"$workdir/raw/current.out" 2>"$workdir/raw/current.err" &
  bench_pid=$!
  wait "$bench_pid" || status=$?
  bench_pid=""
  sed "s/^/$tag | /" "$workdir/raw/current.out" >>"$results"
  cat "$workdir/raw/current.err" >>"$workdir/raw/stderr.txt"
  if ((status != 0)); then
    echo "$tag | exit status $status" >>"$results"
    peers_log "$tag exited with status $status; last lines of its standard error:"
    tail -n 5 "$workdir/raw/current.err" >&2 || true
  fi
  tail -n +"$((n + 1))" "$results"
}

# ---------------------------------------------------------------------------------------------
vcorfu_build_jar "$root" "$jar"
peers_require_cmd etcd "run benchmarks/peers/install.sh"
if [[ ! -x "$workdir/peers/bin/etcd-bench" ]]; then
  if [[ -x "$PEERS_DEFAULT_WORKDIR/bin/etcd-bench" ]]; then
    mkdir -p "$workdir/peers/bin"
    cp "$PEERS_DEFAULT_WORKDIR/bin/etcd-bench" "$workdir/peers/bin/etcd-bench"
  else
    "$here/peers/install.sh" --workdir "$workdir/peers" >&2
  fi
fi
started=$(date -u +%FT%TZ)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
echo "load-start | $started $(uptime)" >>"$results"
echo "node-flags | ${node_flags:-(defaults)}" >>"$results"
peers_log "load average at start: $load_start"

vcorfu_start_zookeeper "$workdir/zk" "$zk_port" "${java_opts[@]}" -Xmx256m -cp "$jar"
node_pids=""

if has_part failover; then
  for ((r = 1; r <= runs; r++)); do
    for role in sequencer replica; do
      cluster_up "fo-$r-$role"
      measure "failover vcorfu $role $r" "${bench[@]}" failover --db vcorfu --endpoint "$vcorfu_endpoints" \
        --pids "$node_pids" --kill "$role" --before 3 --after 2 --ack-times "$workdir/raw/acks-vcorfu-$role-$r.txt" || true
      cluster_down
    done
    "${etcd[@]}" start
    measure "failover etcd leader $r" "${bench[@]}" failover --db etcd --endpoint "$etcd_endpoints" \
      --pids "$(etcd_pids)" --kill leader --before 3 --after 2 --request-timeout-ms 200 \
      --ack-times "$workdir/raw/acks-etcd-leader-$r.txt" || true
    "${etcd[@]}" stop
    echo "load | failover round $r $(cut -d' ' -f1-3 /proc/loadavg)" >>"$results"
  done
fi

if has_part pause; then
  for ((r = 1; r <= runs; r++)); do
    for role in sequencer replica; do
      cluster_up "pause-$role-$r"
      measure "failover vcorfu $role-paused $r" "${bench[@]}" failover --db vcorfu --endpoint "$vcorfu_endpoints" \
        --pids "$node_pids" --kill "$role" --signal STOP --pause-s "$pause_s" --before "$pause_before" --after 2 \
        --ack-times "$workdir/raw/acks-vcorfu-$role-paused-$r.txt" || true
      cluster_down
    done
    for role in leader follower; do
      "${etcd[@]}" start
      measure "failover etcd $role-paused $r" "${bench[@]}" failover --db etcd --endpoint "$etcd_endpoints" \
        --pids "$(etcd_pids)" --kill "$role" --signal STOP --pause-s "$pause_s" --before "$pause_before" --after 2 \
        --request-timeout-ms 500 --ack-times "$workdir/raw/acks-etcd-$role-paused-$r.txt" || true
      "${etcd[@]}" stop
    done
    echo "load | pause round $r $(cut -d' ' -f1-3 /proc/loadavg)" >>"$results"
  done
fi

if has_part append; then
  # etcd puts/s with three members on the 2-core machine: about 3,500 with 8 clients and 5,000
  # with 50 under load, more on a quiet machine; the runs are sized to last about --cold and
  # --duration seconds there (each result line prints how long it took).
  for t in 8 50; do
    if ((t == 8)); then rate=4000; else rate=8000; fi
    cluster_up "append-t$t"
    measure "append vcorfu t$t" "${bench[@]}" append --endpoint "$vcorfu_endpoints" --threads "$t" --conns "$t" \
      --size 1024 --streams 32 --prefix "c$t" --cold "$cold" --warmup "$warmup" --duration "$duration" \
      --cost --metrics "$vcorfu_metrics" --callers "$callers" ${client_writes[@]+"${client_writes[@]}"}
    cluster_down
    "${etcd[@]}" start
    measure "append etcd t$t cold" "${etcd[@]}" bench-put --size 1024 --clients "$t" --conns "$t" --total "$((rate * cold))"
    # The warm run's cost, from the same counters as vcorfu's warm window (see bench cost).
    before=$("${bench[@]}" cost "${etcd_cost[@]}")
    measure "append etcd t$t warm" "${etcd[@]}" bench-put --size 1024 --clients "$t" --conns "$t" --total "$((rate * duration))"
    after=$("${bench[@]}" cost "${etcd_cost[@]}")
    measure "append etcd t$t cost" "${bench[@]}" cost --before "$before" --after "$after" --ops "$((rate * duration))" \
      --label "append warm"
    "${etcd[@]}" stop
    echo "load | append t$t $(cut -d' ' -f1-3 /proc/loadavg)" >>"$results"
  done
fi

if has_part ycsb; then
  for w in c b; do
    common=(--workload "$w" --records "$records" --operations 1000000000 --threads 8
      --cold-seconds "$ycsb_cold" --warm-after "$ycsb_warm_after" -p "table=usertable_$w" -p "maxexecutiontime=$ycsb_seconds")
    cluster_up "ycsb-$w"
    measure "ycsb vcorfu $w" "${bench[@]}" ycsb --db vcorfu --endpoint "$vcorfu_endpoints" "${common[@]}" \
      -p vcorfu.buckets=100 -p vcorfu.read-lease-ms=1000 || true
    cluster_down
    "${etcd[@]}" start
    measure "ycsb etcd $w" "${bench[@]}" ycsb --db etcd --endpoint "$etcd_endpoints" "${common[@]}" || true
    "${etcd[@]}" stop
    echo "load | ycsb $w $(cut -d' ' -f1-3 /proc/loadavg)" >>"$results"
  done
fi

finished=$(date -u +%FT%TZ)
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
echo "load-end | $finished $(uptime)" >>"$results"
peers_log "load average at end: $load_end"

# --- summary ----------------------------------------------------------------------------------------
summary=$workdir/summary.md
{
  echo "# Cluster: three vcorfu nodes (R = 3) vs a three-member etcd cluster, 127.0.0.1"
  echo
  echo "Started $started (load average $load_start), finished $finished (load average $load_end), $(nproc) cores;" \
    "$(java -version 2>&1 | head -n 1), $(etcd --version | head -n 1)."
  echo
  awk -v cold="$cold" -v warmup="$warmup" -v duration="$duration" -v ycold="$ycsb_cold" -v ywarm="$ycsb_warm_after" '
    function field(line, name,   n, f, i) {
      n = split(line, f, " ")
      for (i = 1; i < n; i++) if (f[i] == name) return f[i + 1]
      return ""
    }
    function after(line, re,   s) {
      if (!match(line, re)) return ""
      s = substr(line, RSTART, RLENGTH); sub(/ ops\/s$/, "", s); sub(/.* /, "", s); return s
    }
    function fmt(v,   s, r) {
      if (v == "") return "-"
      s = sprintf("%.0f", v); r = ""
      while (length(s) > 3) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) }
      return s r
    }
    function ratio(a, b) { return (a == "" || b == "" || b + 0 == 0) ? "-" : sprintf("%.2f", a / b) }
    # median of the space-separated numbers in s (none: "-"), and their range
    function stats(s,   n, v, i, j, t, m) {
      n = split(s, v, " ")
      if (n == 0) return "- | -"
      for (i = 1; i <= n; i++) v[i] += 0
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
      m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
      return sprintf("%.0f | %.0f-%.0f", m, v[1], v[n])
    }
    {
      split($0, parts, / \| /); tag = parts[1]; line = substr($0, length(tag) + 4)
      split(tag, t, " ")
    }
    t[1] == "failover" && line ~ /^failover db / {
      key = t[2] " " t[3]
      if (!(key in seen)) { seen[key] = 1; order[++nkeys] = key }
      k = field(line, "kill_to_first_ack_ms"); g = field(line, "longest_gap_ms")
      if (k != "none") ktf[key] = ktf[key] " " k; else failed[key]++
      if (g != "none") gap[key] = gap[key] " " g
      each[key] = each[key] (each[key] == "" ? "" : ", ") k
      errs[key] += field(line, "errors")
      runs[key]++
    }
    t[1] == "append" && t[2] == "vcorfu" && line ~ /^cold append/ { av["cold", t[3]] = field(line, "=") }
    t[1] == "append" && t[2] == "vcorfu" && line ~ /^append threads/ {
      av["warm", t[3]] = field(line, "="); alat[t[3]] = field(line, "p50") " / " field(line, "p99")
    }
    t[1] == "append" && t[2] == "etcd" && line ~ /^etcd put/ {
      ae[t[4], t[3]] = field(line, "ops/s:"); asec[t[4], t[3]] = field(line, "seconds:")
      if (t[4] == "warm") elat[t[3]] = field(line, "p50_ms:") " / " field(line, "p99_ms:")
    }
    t[1] == "append" && line ~ /^cost append warm:/ {
      sub(/^cost append warm: /, "", line); acost[t[2], t[3]] = line
    }
    t[1] == "ycsb" && line ~ /^ycsb summary:/ {
      yc[t[2], t[3]] = after(line, "run cold \\(first [0-9]+ s\\) [0-9.]+ ops/s")
      yw[t[2], t[3]] = after(line, "run warm \\(after [0-9]+ s\\) [0-9.]+ ops/s")
      yo[t[2], t[3]] = after(line, ", run [0-9]+ ops at [0-9.]+ ops/s")
      ye[t[2], t[3]] = line; sub(/.*, run [0-9]+ ops at [0-9.]+ ops\/s \(/, "", ye[t[2], t[3]]); sub(/ errors\).*/, "", ye[t[2], t[3]])
      if (!(t[3] in ywl)) nyw++
      ywl[t[3]] = 1
    }
    END {
      if (nkeys > 0) {
        print "## Failover: kill -9 of one role to the first acknowledged write after it (ms)"
        print ""
        print "| system | killed | runs | kill -> first ack, median | range | longest gap between acks, median | range | each run (kill -> first ack) | errors | not recovered |"
        print "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |"
        for (i = 1; i <= nkeys; i++) {
          key = order[i]; split(key, kk, " ")
          printf "| %s | %s | %d | %s | %s | %s | %d | %d |\n", kk[1], kk[2], runs[key], stats(ktf[key]), stats(gap[key]), each[key], errs[key], failed[key]
        }
        print ""
      }
      if (("warm", "t8") in av || ("warm", "t50") in av) {
        print "## Durable 1 KB appends/s, T clients on T connections (vcorfu: T clients of the cluster; etcd: T gRPC connections over the members)"
        print ""
        printf "| clients | vcorfu cold (first %s s) | etcd cold | ratio cold | vcorfu warm (%s s after %s s) | etcd warm | ratio warm | vcorfu warm p50 / p99 ms | etcd warm p50 / p99 ms |\n", cold, duration, warmup
        print "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
        for (i = 1; i <= 2; i++) {
          id = (i == 1) ? "t8" : "t50"
          printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", substr(id, 2),
            fmt(av["cold", id]), fmt(ae["cold", id]), ratio(av["cold", id], ae["cold", id]),
            fmt(av["warm", id]), fmt(ae["warm", id]), ratio(av["warm", id], ae["warm", id]), alat[id], elat[id]
        }
        printf "\netcd runs lasted: t8 cold %s s, warm %s s; t50 cold %s s, warm %s s.\n\n", asec["cold", "t8"], asec["warm", "t8"], asec["cold", "t50"], asec["warm", "t50"]
        print "What each warm append cost the whole machine (every process and the kernel; see `vcorfu bench cost`):"
        print ""
        for (i = 1; i <= 2; i++) {
          id = (i == 1) ? "t8" : "t50"
          printf "- %s clients, vcorfu: %s\n- %s clients, etcd: %s\n", substr(id, 2), acost["vcorfu", id], substr(id, 2), acost["etcd", id]
        }
        print ""
      }
      if (nyw > 0) {
        printf "## YCSB, 8 threads, ops/s (cold = first %s s of the run phase, warm = after %s s)\n\n", ycold, ywarm
        print "| workload | figure | vcorfu | etcd | vcorfu/etcd |"
        print "| --- | --- | ---: | ---: | ---: |"
        split("c b", wl, " ")
        for (i = 1; i <= 2; i++) {
          w = wl[i]
          if (!(w in ywl)) continue
          printf "| %s | cold | %s | %s | %s |\n", toupper(w), fmt(yc["vcorfu", w]), fmt(yc["etcd", w]), ratio(yc["vcorfu", w], yc["etcd", w])
          printf "| %s | warm | %s | %s | %s |\n", toupper(w), fmt(yw["vcorfu", w]), fmt(yw["etcd", w]), ratio(yw["vcorfu", w], yw["etcd", w])
          printf "| %s | overall | %s | %s | %s |\n", toupper(w), fmt(yo["vcorfu", w]), fmt(yo["etcd", w]), ratio(yo["vcorfu", w], yo["etcd", w])
        }
        printf "\nOperations that returned an error in the run phase: C vcorfu %s, etcd %s; B vcorfu %s, etcd %s.\n\n", ye["vcorfu", "c"], ye["etcd", "c"], ye["vcorfu", "b"], ye["etcd", "b"]
      }
    }' "$results"
  echo "Load average through the run:"
  echo
  grep -E '^(load|load-start|load-end) \|' "$results" | sed 's/^/    /'
} >"$summary"
echo
cat "$summary"
if [[ -n "$out" ]]; then
  mkdir -p "$(dirname "$out")"
  {
    cat "$summary"
    echo
    echo "## Raw result lines"
    echo
    echo '```'
    cat "$results"
    echo '```'
  } >"$out"
  peers_log "wrote $out"
fi
