#!/usr/bin/env bash
# The paper's Figure 10 on 127.0.0.1: appends to one stream and a reader following it (as a local
# view does), per second, across the failure of the stream's only replica. The log then decides the
# stream's entries and serves its reads (degraded mode); a spare takes the stream chain up, copies
# the stream from the log, and serves its reads again.
#
# Usage:
#   benchmarks/run-degraded.sh [--threads 4] [--size 32] [--before-s 15] [--degraded-s 20]
#                              [--after-s 25] [--workdir DIR] [--base-port 19700]
#
#   --threads T      appending client threads (one more client reads)
#   --size B         bytes per value (the paper: 32)
#   --before-s S     seconds of load before the kill -9 of the stream replica
#   --degraded-s S   seconds from the kill to `cluster add-node` of the spare
#   --after-s S      seconds of load after the add-node
#
# The cluster (`cluster init --nodes n0 --stream-nodes n1 --replication 1`): n0 holds the log chain
# and the sequencer, n1 the one stream chain; n2 runs from the start outside the layout. Events are
# recorded as seen: kill (kill -9 of n1), degraded (the layout shows the stream chain empty),
# add-node (n2 added as a spare), taken-up (the layout gives n2 the chain), copied (n2's log says it
# copied the stream from the log and serves its reads). Output: WORKDIR/figure10.tsv (second,
# appends, reads, event, degraded_log_reads) and, with `bench plot`, WORKDIR/figure10.png.
#
# Every process this script starts is recorded by PID and stopped by that PID only.
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

threads=4
size=32
before_s=15
degraded_s=20
after_s=25
workdir=""
base_port=19700
while (($#)); do
  case "$1" in
    --threads) threads=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --before-s) before_s=$2; shift 2 ;;
    --degraded-s) degraded_s=$2; shift 2 ;;
    --after-s) after_s=$2; shift 2 ;;
    --workdir) workdir=$2; shift 2 ;;
    --base-port) base_port=$2; shift 2 ;;
    -h | --help) usage ;;
    *) echo "unknown option: $1" >&2; usage ;;
  esac
done
for v in threads size before_s degraded_s after_s base_port; do
  peers_require_uint "--${v//_/-}" "${!v}"
done

own_workdir=false
if [[ -z "$workdir" ]]; then
  workdir=$(mktemp -d /tmp/vcorfu-degraded.XXXXXX)
  own_workdir=true
fi
mkdir -p "$workdir"
jar=$root/benchmarks/target/vcorfu-all.jar
vcorfu_build_jar "$root" "$jar"
java_opts=(-XX:+UseParallelGC)
cli=(java "${java_opts[@]}" -cp "$jar" io.vcorfu.server.cli.VcorfuCli)
bench=(java "${java_opts[@]}" -cp "$jar" io.vcorfu.benchmarks.BenchCli)
host=127.0.0.1
zk=$host:$base_port
ports=($((base_port + 1)) $((base_port + 2)) $((base_port + 3)))
n0=$host:${ports[0]}
n1=$host:${ports[1]}
n2=$host:${ports[2]}
bench_pid=""

cleanup() {
  local i
  if [[ -n "$bench_pid" ]] && kill -0 "$bench_pid" 2>/dev/null; then
    kill -TERM "$bench_pid" 2>/dev/null || true
    wait "$bench_pid" 2>/dev/null || true
  fi
  for i in 0 1 2; do
    [[ -f "$workdir/n$i/server.pid" ]] || continue
    peers_stop "$workdir/n$i/server.pid" "vcorfu n$i" >/dev/null 2>&1 || true
  done
  peers_stop "$workdir/zk/server.pid" zookeeper >/dev/null 2>&1 || true
  if [[ "$own_workdir" == true ]]; then rm -rf "$workdir"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now() { date +%s.%N; }

vcorfu_start_zookeeper "$workdir/zk" "$base_port" "${java_opts[@]}" -cp "$jar"
for i in 0 1 2; do
  vcorfu_launch_node "$workdir/n$i" "${ports[$i]}" "${java_opts[@]}" -Xmx1g -cp "$jar" -- \
    --data-dir "$workdir/n$i/data" --zookeeper "$zk" --cluster figure10
done
for i in 0 1 2; do vcorfu_await_ready "$workdir/n$i"; done
"${cli[@]}" cluster init --zookeeper "$zk" --cluster figure10 --nodes "$n0" --stream-nodes "$n1" \
  --replication 1 >&2

# layout_has PYTHON-CONDITION: true when the newest layout (as n0 answers it) meets the condition,
# written over `l` (the layout JSON as a dict).
layout_has() {
  "${cli[@]}" cluster status --endpoint "$n0,$n2" --output json 2>/dev/null |
    python3 -c "import json,sys
l=json.load(sys.stdin)['layout']
sys.exit(0 if ($1) else 1)"
}

total=$((before_s + degraded_s + after_s))
"${bench[@]}" stream-timeline --endpoint "$n0,$n2" --threads "$threads" --size "$size" \
  --duration "$total" >"$workdir/timeline.log" 2>"$workdir/bench.err" &
bench_pid=$!
t_start=$(now)
events=()
sleep "$before_s"
IFS=" " read -r pid exe <"$workdir/n1/server.pid"
peers_log "kill -9 $n1 (pid $pid), the only stream replica"
kill -9 "$pid"
events+=("$(now) kill")
until layout_has "l['segments'][-1]['stream'][0] == []"; do sleep 0.2; done
events+=("$(now) degraded")
sleep "$(python3 -c "print(max(0, $t_start + $before_s + $degraded_s - $(now)))")"
peers_log "cluster add-node $n2"
events+=("$(now) add-node")
"${cli[@]}" cluster add-node --endpoint "$n0" "$n2" >&2
until layout_has "l['segments'][-1]['stream'][0] == ['$n2']"; do sleep 0.2; done
events+=("$(now) taken-up")
until grep -q "copied the older entries" "$workdir/n2/server.log"; do
  kill -0 "$bench_pid" 2>/dev/null || peers_die "the load ended before $n2 copied the stream"
  sleep 0.2
done
events+=("$(now) copied")
wait "$bench_pid" || peers_die "the load failed: $(tail -n 5 "$workdir/bench.err")"
bench_pid=""
printf '%s\n' "${events[@]}" >"$workdir/events.txt"
python3 - "$workdir/timeline.log" "$workdir/events.txt" "$workdir/figure10.tsv" <<'EOF'
import sys
log, events, out = sys.argv[1:]
# "second N appends A reads R degraded_log_reads D failures F at T": T ends second N.
rows = [l.split() for l in open(log) if l.startswith("second ")]
ev = [(float(t), name) for t, name in (line.split() for line in open(events))]
with open(out, "w") as f:
    f.write("second\tappends\treads\tevent\tdegraded_log_reads\n")
    for r in rows:
        end = float(r[11])
        names = [n for t, n in ev if end - 1 < t <= end]
        f.write("%s\t%s\t%s\t%s\t%s\n" % (r[1], r[3], r[5], ",".join(names), r[7]))
EOF
cat "$workdir/figure10.tsv"
"${bench[@]}" plot --input "$workdir/figure10.tsv" --output "$workdir/figure10.png" \
  --title "Appends and reads of one stream across the failure of its only replica" \
  --left-label "appends/s" --right-label "entries read/s" >&2 &&
  peers_log "plot: $workdir/figure10.png"
