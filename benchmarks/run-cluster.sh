#!/usr/bin/env bash
# The cluster comparison: three vcorfu nodes (R = 3) against a three-member etcd cluster on
# 127.0.0.1, interleaved, then markdown tables. A thin wrapper of `vcorfu bench suite cluster`
# (see its --help for every option and what each part measures).
#
# Usage:
#   benchmarks/run-cluster.sh [--quick] [--parts failover,pause,append,ycsb,tls] [--runs N] [--out FILE]
#                             [--workdir DIR] [--base-port P] [--cold S] [--warmup S] [--duration S]
#                             [--ycsb-seconds S] [--records N] [--pause-s S] [--pause-before S]
#                             [--node-flags FLAGS] [--client-writes] [--callers threads|loop]
#   (tls: what TLS costs appends at 8 clients on both systems, --runs rounds; on request)
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/../bin/vcorfu" bench suite cluster "$@"
