#!/usr/bin/env bash
# The stream-store comparison in one run: vcorfu (single durable node and the five-process loopback
# layout), Redis and etcd, one after another on 127.0.0.1, like for like, then summary tables with
# the ratios. A thin wrapper of `vcorfu bench suite stream-store` (see its --help for every option).
# Every process it starts is stopped by its pid; result lines and the summary go to standard output.
#
# Usage:
#   benchmarks/run-stream-store.sh [--headline] [--quick] [--duration S] [--warmup S] [--cold S]
#                                  [--out FILE] [--workdir DIR] [--base-port P]
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/../bin/vcorfu" bench suite stream-store "$@"
