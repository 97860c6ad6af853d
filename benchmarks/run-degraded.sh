#!/usr/bin/env bash
# The paper's Figure 10 on 127.0.0.1: appends to one stream and a reader following it, per second,
# across the kill -9 of the stream's only replica, degraded mode, and a spare that takes the stream
# chain up. Writes WORKDIR/figure10.tsv and WORKDIR/figure10.png. A thin wrapper of
# `vcorfu bench suite degraded` (see its --help); every process is stopped by its PID.
#
# Usage:
#   benchmarks/run-degraded.sh [--threads 4] [--size 32] [--before-s 15] [--degraded-s 20]
#                              [--after-s 25] [--workdir DIR] [--base-port 19700]
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/../bin/vcorfu" bench suite degraded "$@"
