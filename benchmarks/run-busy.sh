#!/usr/bin/env bash
# Does a busy host make the failure detector remove healthy nodes? A three-node vcorfu cluster
# (R = 3, durable) on 127.0.0.1 runs `bench append` while processor hogs compete with it for this
# machine's cores; afterwards the nodes judged down although every node ran throughout are counted.
# A thin wrapper of `vcorfu bench suite busy` (see its --help for every option).
#
# Usage:
#   benchmarks/run-busy.sh [--node-flags FLAGS] [--seconds S] [--hogs N] [--threads T] [--runs R]
#                          [--workdir DIR] [--base-port P]
#
# Prints one line per run: the healthy nodes judged down, under load and while the cluster
# started, and the appends' throughput and latency.
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/../bin/vcorfu" bench suite busy "$@"
