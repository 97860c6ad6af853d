#!/usr/bin/env bash
# Does a busy host make the failure detector remove healthy nodes? A three-node vcorfu cluster
# (R = 3, durable) on 127.0.0.1 runs `bench append` while processor hogs compete with it, at the
# same priority, for this machine's cores; afterwards the script counts the nodes the manager
# judged down although every node ran throughout. Used to find how short a failure timeout this
# machine can take (docs/cli.md, "Several endpoints and layout changes").
#
# Usage:
#   benchmarks/run-busy.sh [--node-flags FLAGS] [--seconds S] [--hogs N] [--threads T] [--runs R]
#                          [--workdir DIR] [--base-port P]
#
#   --node-flags F  extra `vcorfu server` flags for every node, split on spaces (for instance
#                   "--probe-interval-ms 100 --failure-timeout-ms 400"; default none)
#   --seconds S     how long the load and the hogs run, per run (default 60)
#   --hogs N        busy-looping shell processes beside the nodes (default: one per core)
#   --threads T     `bench append` writer threads, 1 KB values, 8 streams (default 8)
#   --runs R        fresh clusters, one after another (default 1)
#   --workdir DIR   scratch directory, kept afterwards with every node's log (default: a fresh
#                   mktemp -d, removed at the end)
#   --base-port P   ZooKeeper on P, nodes on P+1..P+3 (default 19500)
#
# Prints one line per run: the healthy nodes judged down (each a false suspicion: the node was
# sealed out of its chains and had to be rebuilt), under load and while the cluster started (from
# the nodes' start to the load's), and the appends' throughput and latency.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
# shellcheck source=peers/lib.sh
source "$here/peers/lib.sh"
# shellcheck source=vcorfu-node.sh
source "$here/vcorfu-node.sh"

usage() {
  sed -n '/^# Usage:/,/^# Prints/p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

node_flags=""
seconds=60
hogs=$(nproc)
threads=8
runs=1
workdir=""
base_port=19500
while (($#)); do
  case "$1" in
    --node-flags) node_flags=${2?--node-flags needs a value}; shift 2 ;;
    --seconds) seconds=${2:?--seconds needs a value}; shift 2 ;;
    --hogs) hogs=${2:?--hogs needs a value}; shift 2 ;;
    --threads) threads=${2:?--threads needs a value}; shift 2 ;;
    --runs) runs=${2:?--runs needs a value}; shift 2 ;;
    --workdir) workdir=${2:?--workdir needs a value}; shift 2 ;;
    --base-port) base_port=${2:?--base-port needs a value}; shift 2 ;;
    -h | --help) usage ;;
    *) echo "unknown argument: $1 (benchmarks/run-busy.sh --help lists the options)" >&2; exit 2 ;;
  esac
done
for v in seconds hogs threads runs base_port; do
  peers_require_uint "--${v//_/-}" "${!v}"
done
((base_port + 3 <= 65535)) || peers_die "--base-port must leave room for 4 ports below 65536"
read -r -a extra_node_flags <<<"$node_flags"

own_workdir=false
if [[ -z "$workdir" ]]; then
  workdir=$(mktemp -d /tmp/vcorfu-busy.XXXXXX)
  own_workdir=true
fi
mkdir -p "$workdir"
jar=$root/benchmarks/target/vcorfu-all.jar
vcorfu_build_jar "$root" "$jar"
java_opts=(-XX:+UseParallelGC)
host=127.0.0.1
zk=$host:$base_port
ports=($((base_port + 1)) $((base_port + 2)) $((base_port + 3)))
endpoints=$host:${ports[0]},$host:${ports[1]},$host:${ports[2]}
pidfiles=()
hog_pids=()

stop_hogs() {
  local p
  for p in "${hog_pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${hog_pids[@]}"; do wait "$p" 2>/dev/null || true; done
  hog_pids=()
}

cluster_down() {
  local f
  for f in "${pidfiles[@]}"; do peers_stop "$f" "vcorfu $(basename "$(dirname "$f")")" || true; done
  pidfiles=()
}

cleanup() {
  stop_hogs
  cluster_down
  peers_stop "$workdir/zk/server.pid" zookeeper >/dev/null 2>&1 || true
  if [[ "$own_workdir" == true ]]; then rm -rf "$workdir"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

vcorfu_start_zookeeper "$workdir/zk" "$base_port" "${java_opts[@]}" -Xmx256m -cp "$jar"
echo "node-flags: ${node_flags:-(defaults)}; $hogs hogs, $threads writers, ${seconds} s per run"
for ((r = 1; r <= runs; r++)); do
  name=busy-$r
  dir=$workdir/$name
  for i in 0 1 2; do
    pidfiles+=("$dir/n$i/server.pid")
    vcorfu_launch_node "$dir/n$i" "${ports[$i]}" "${java_opts[@]}" -Xmx1g -cp "$jar" -- \
      --data-dir "$dir/n$i/data" --zookeeper "$zk" --cluster "$name" "${extra_node_flags[@]}"
  done
  for i in 0 1 2; do vcorfu_await_ready "$dir/n$i"; done
  java "${java_opts[@]}" -cp "$jar" io.vcorfu.server.cli.VcorfuCli cluster init --zookeeper "$zk" \
    --cluster "$name" --nodes "$endpoints" >"$dir/init.log" 2>&1 ||
    { cat "$dir/init.log" >&2; peers_die "cluster init of $name failed"; }
  load_from=$(date -u +%FT%T.%3N)
  for ((h = 0; h < hogs; h++)); do
    bash -c 'while :; do :; done' &
    hog_pids+=($!)
  done
  java "${java_opts[@]}" -cp "$jar" io.vcorfu.benchmarks.BenchCli append --endpoint "$endpoints" \
    --threads "$threads" --streams 8 --size 1024 --duration "$seconds" >"$dir/bench.out" 2>&1 || true
  stop_hogs
  # Log lines start with their UTC time, which sorts as text: split the verdicts at the load's start.
  verdicts=$(cat "$dir"/n*/server.log | grep 'unresponsive for over' | cut -c1-23 || true)
  at_start=$(awk -v t="$load_from" '$0 < t' <<<"$verdicts" | grep -c . || true)
  under_load=$(awk -v t="$load_from" '$0 >= t' <<<"$verdicts" | grep -c . || true)
  echo "run $r: healthy nodes judged down: $under_load under load, $at_start while the cluster started; bench: $(grep -m 1 'appends/s' "$dir/bench.out" || tail -n 1 "$dir/bench.out")"
  cluster_down
done
