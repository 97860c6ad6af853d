#!/usr/bin/env bash
# Runs every `vcorfu bench objects` mode side by side against one in-memory vcorfu node that it
# starts (and stops: only that process, by its PID), then prints a summary table. A thin wrapper
# of `vcorfu bench suite objects`.
#
#   benchmarks/run-objects.sh [--quick]
#
# --quick: 3 s per run (a smoke test). Otherwise DURATION seconds per run (default 20; the whole
# run takes about 8 minutes). PORT (default 9750) is the node's port. Raw output goes to stdout and
# to OUT (default benchmarks/target/objects-run.txt).
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/../bin/vcorfu" bench suite objects "$@"
