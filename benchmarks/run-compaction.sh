#!/usr/bin/env bash
# What does background compaction cost the foreground? One durable vcorfu node, default settings:
# fills two interleaved streams, measures `bench append`, trims one stream away so that every sealed
# segment is half dead, and measures `bench append` again while the node compacts. A thin wrapper
# of `vcorfu bench suite compaction` (see its --help for every option).
#
# Usage:
#   benchmarks/run-compaction.sh [--fill N] [--seconds S] [--threads T] [--workdir DIR]
#                                [--base-port P]
#
# Prints the baseline and the during-compaction append rates, their ratio, and the node's storage
# before the trim, when the second measurement starts and when it ends.
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/../bin/vcorfu" bench suite compaction "$@"
