#!/usr/bin/env bash
# Runs every peer benchmark once: installs what is missing, starts redis and etcd on 127.0.0.1,
# runs their benchmarks, and stops both servers again (also on failure or interrupt).
#
# Usage:
#   run-all.sh [--workdir DIR] [--quick] [--size B] [--clients C] [--requests N] [--total N]
#
#   --workdir DIR   state directory (default /tmp/vcorfu-peers)
#   --quick         small runs for a smoke test (requests 20000, total 2000)
#   --size B        value size in bytes for stream entries and etcd values (default 256)
#   --clients C     concurrent clients for every benchmark (default 50)
#   --requests N    requests per redis measurement (default 200000)
#   --total N       requests per etcd measurement (default 20000)
#
# Ports are the defaults of redis.sh (6390) and etcd.sh (2389, 2390). Output: the result lines of
# redis.sh and etcd.sh on standard output, in this order:
#   redis incr ops/s: X p50_ms: Y p99_ms: Z clients: C pipeline: 1 requests: N seconds: S
#   redis xadd ops/s: X p50_ms: Y p99_ms: Z clients: C
#   redis xrange entries/s: X calls/s: R p50_ms: Y p99_ms: Z batch: K
#   etcd put ops/s: X p50_ms: Y p99_ms: Z clients: C conns: C total: N seconds: S
#   etcd get ops/s: X p50_ms: Y p99_ms: Z clients: C conns: C total: N seconds: S
# Progress messages go to standard error.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"

usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}

workdir=$PEERS_DEFAULT_WORKDIR
size=256
clients=50
requests=200000
total=20000
while (($#)); do
  case "$1" in
    --workdir) workdir=${2:?--workdir needs a value}; shift 2 ;;
    --quick) requests=20000; total=2000; shift ;;
    --size) size=${2:?--size needs a value}; shift 2 ;;
    --clients) clients=${2:?--clients needs a value}; shift 2 ;;
    --requests) requests=${2:?--requests needs a value}; shift 2 ;;
    --total) total=${2:?--total needs a value}; shift 2 ;;
    -h | --help) usage ;;
    *) echo "unknown argument: $1" >&2; usage ;;
  esac
done

redis=("$here/redis.sh" --workdir "$workdir")
etcd=("$here/etcd.sh" --workdir "$workdir")

"$here/install.sh" --workdir "$workdir"

stop_all() {
  "${redis[@]}" stop || true
  "${etcd[@]}" stop || true
}
trap stop_all EXIT
trap 'exit 130' INT TERM

"${redis[@]}" start
"${redis[@]}" bench-incr --clients "$clients" --requests "$requests"
"${redis[@]}" bench-stream --size "$size" --clients "$clients" --requests "$requests"
"${redis[@]}" stop

"${etcd[@]}" start
"${etcd[@]}" bench-put --size "$size" --clients "$clients" --conns "$clients" --total "$total"
"${etcd[@]}" bench-get --size "$size" --clients "$clients" --conns "$clients" --total "$total"
"${etcd[@]}" stop
