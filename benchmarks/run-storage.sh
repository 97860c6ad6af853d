#!/usr/bin/env bash
# Does storage stay bounded on a steady update load? `bench ycsb` workload A round after round
# against one durable vcorfu node (or a three-node R = 3 cluster), printing after each round the
# data on disk and the run phase's throughput, each beside round 1's, then each node's storage from
# /status.json. A thin wrapper of `vcorfu bench suite storage` (see its --help).
#
# Usage:
#   benchmarks/run-storage.sh [--rounds N] [--records R] [--operations O] [--threads T]
#                             [--cluster] [--workdir DIR] [--base-port P] [--settle S]
#
# Environment: NODE_ARGS, more `vcorfu server` arguments for every node (e.g. --segment-size-mb 4).
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/../bin/vcorfu" bench suite storage "$@"
