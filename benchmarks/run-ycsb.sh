#!/usr/bin/env bash
# YCSB core workloads A-F on vcorfu, Redis and etcd side by side in one run, on 127.0.0.1, then a
# markdown summary: per workload the run-phase throughput of each database (cold, warm, overall),
# the 99th percentile latency of each operation type, and the ratios vcorfu/redis and vcorfu/etcd.
# A thin wrapper of `vcorfu bench suite ycsb` (see its --help for every option). Exits 0 when every
# pair finished without errors, 1 otherwise.
#
# Usage:
#   benchmarks/run-ycsb.sh [--quick] [--out FILE] [--records N] [--operations M] [--seconds S]
#                          [--threads T] [--workloads a,b,c,d,e,f] [--buckets B] [--workdir DIR]
#                          [--base-port P] [--cold-seconds C] [--warm-after W]
#                          [--read-lease-ms L] [--vcorfu-fsync-interval-ms N] [--warmup-ops W]
#                          [--vcorfu-node-flags FLAGS]
#                          [--tls]   (every server TLS only with client certificates, openssl-made)
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/../bin/vcorfu" bench suite ycsb "$@"
