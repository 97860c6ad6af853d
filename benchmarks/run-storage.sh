#!/usr/bin/env bash
# Does storage stay bounded on a steady update load? Runs `bench ycsb` (workload A: the same
# records overwritten, read half the time) round after round against one durable vcorfu node, or a
# three-node R = 3 cluster, all with default settings, and prints after each round the data on
# disk (segment and index files of every node) and the round's run-phase throughput.
#
# Usage:
#   benchmarks/run-storage.sh [--rounds N] [--records R] [--operations O] [--threads T]
#                             [--cluster] [--workdir DIR] [--base-port P] [--settle S]
#
#   --rounds N      rounds of load + run against the same nodes (default 10)
#   --records R     YCSB records, 10 fields of 100 bytes (default 1000)
#   --operations O  run-phase operations per round (default 100000)
#   --threads T     YCSB client threads (default 8)
#   --cluster       a three-node cluster (R = 3, one ZooKeeper) instead of one node
#   --workdir DIR   scratch directory, kept afterwards (default: a fresh mktemp -d, removed)
#   --base-port P   the node on P (cluster: ZooKeeper on P, nodes on P+1..P+3; default 19700)
#   --settle S      also measure the disk after S seconds without load (default 0: not measured)
#
# Environment: NODE_ARGS, more `vcorfu server` arguments for every node (e.g. --segment-size-mb 4).
#
# Prints one line per round: round, bytes on disk (all nodes), its ratio to round 1, run-phase
# operations per second and its ratio to round 1; then each node's storage as /status.json shows
# it (segment files, live bytes, the log's trim mark, compaction).
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

rounds=10
records=1000
operations=100000
threads=8
cluster=0
workdir=""
base=19700
settle=0
while (($#)); do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --records) records=$2; shift 2 ;;
    --operations) operations=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --cluster) cluster=1; shift ;;
    --workdir) workdir=$2; shift 2 ;;
    --base-port) base=$2; shift 2 ;;
    --settle) settle=$2; shift 2 ;;
    *) usage ;;
  esac
done

jar="$root/benchmarks/target/vcorfu-all.jar"
vcorfu_build_jar "$root" "$jar"
keep=1
if [[ -z "$workdir" ]]; then
  workdir=$(mktemp -d)
  keep=0
fi
pids=()
cleanup() {
  for p in "${pids[@]}"; do
    peers_stop "$p" node || true
  done
  if ((keep == 0)); then
    rm -rf "$workdir"
  fi
}
trap cleanup EXIT

nodes=()
if ((cluster)); then
  vcorfu_start_zookeeper "$workdir/zk" "$base" -cp "$jar"
  pids+=("$workdir/zk/server.pid")
  for i in 1 2 3; do
    port=$((base + i))
    vcorfu_launch_node "$workdir/n$i" "$port" -cp "$jar" -- \
      --data-dir "$workdir/n$i/data" --metrics-port $((port + 100)) \
      --zookeeper "127.0.0.1:$base" --cluster storage ${NODE_ARGS:-}
    pids+=("$workdir/n$i/server.pid")
    nodes+=("$port")
  done
  for i in 1 2 3; do
    vcorfu_await_ready "$workdir/n$i"
  done
  java -cp "$jar" io.vcorfu.server.cli.VcorfuCli cluster init --zookeeper "127.0.0.1:$base" \
    --cluster storage --replication 3 \
    --nodes "127.0.0.1:$((base + 1)),127.0.0.1:$((base + 2)),127.0.0.1:$((base + 3))" >&2
  endpoint="127.0.0.1:$((base + 1)),127.0.0.1:$((base + 2)),127.0.0.1:$((base + 3))"
else
  vcorfu_start_node "$workdir/n1" "$base" -cp "$jar" -- \
    --data-dir "$workdir/n1/data" --metrics-port $((base + 100)) ${NODE_ARGS:-}
  pids+=("$workdir/n1/server.pid")
  nodes+=("$base")
  endpoint="127.0.0.1:$base"
fi

disk() {
  local total=0 d
  for d in "$workdir"/n*/data/replicas; do
    total=$((total + $(du -sb "$d" | cut -f1)))
  done
  echo "$total"
}

first_disk=""
first_ops=""
settled_first=""
printf '%-6s %14s %8s %12s %8s %14s %8s\n' round disk_bytes x_round1 run_ops_s x_round1 \
  settled_bytes x_round1
for ((r = 1; r <= rounds; r++)); do
  out=$(java -cp "$jar" io.vcorfu.benchmarks.BenchCli ycsb --db vcorfu --workload a \
    --records "$records" --operations "$operations" --threads "$threads" \
    --endpoint "$endpoint" --output json 2>"$workdir/ycsb-$r.err" | tail -1)
  ops=$(python3 -c 'import json,sys; print(round(json.loads(sys.argv[1])["run"]["ops_per_second"]))' "$out")
  bytes=$(disk)
  if [[ -z "$first_disk" ]]; then
    first_disk=$bytes
    first_ops=$ops
  fi
  settled="-" settled_x="-"
  if ((settle > 0)); then
    sleep "$settle"
    settled=$(disk)
    settled_first=${settled_first:-$settled}
    settled_x=$(python3 -c "print(round($settled / $settled_first, 2))")
  fi
  printf '%-6s %14s %8.2f %12s %8.2f %14s %8s\n' "$r" "$bytes" \
    "$(python3 -c "print($bytes / $first_disk)")" "$ops" "$(python3 -c "print($ops / $first_ops)")" \
    "$settled" "$settled_x"
done
for p in "${nodes[@]}"; do
  echo "node 127.0.0.1:$p storage: $(curl -s "http://127.0.0.1:$((p + 100))/status.json" |
    python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["storage"]))')"
done
