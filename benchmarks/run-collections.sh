#!/usr/bin/env bash
# Runs the three `vcorfu bench collections` modes (paper Figures 16 and 17) against one durable
# vcorfu node that it starts (and stops: only that process, by its PID), then writes the raw output
# and markdown summary tables to the --out file. A thin wrapper of `vcorfu bench suite collections`.
#
#   benchmarks/run-collections.sh [--quick] [--out FILE]
#
# --quick: a smoke test of a minute or two. --out: default benchmarks/target/collections-run.md.
# Environment: PORT (default 9751), KINDS (default smr,csmr), BUCKETS (default 10,100,1000),
# DURATION (abort runs, seconds, default 10), MAX_UPDATES (default 102400), DATA_DIR (default a
# fresh temporary directory, removed at the end), VCORFU_JAVA_OPTS (default -XX:+UseParallelGC).
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/../bin/vcorfu" bench suite collections "$@"
