#!/usr/bin/env bash
# Healing, measured on a three-node vcorfu cluster (R = 3) on 127.0.0.1: how fast a replica is
# rebuilt from its chain peers, what foreground appends keep meanwhile, and how long full
# replication takes to come back after `kill -9` and restart of a node holding FILL_MB. A thin
# wrapper of `vcorfu bench suite rebuild` (see its --help for every option and part).
#
# Usage:
#   benchmarks/run-rebuild.sh [--parts pause,rebuild,timeline,grow,member,detect,degraded]
#                             [--fill-mb 1024] [--value-size 65536] [--rebuild-rate-mb 128]
#                             [--rebuild-max-p99-ms 20] [--member-heal-delay-ms 30000] [--pre-join-copy-max-s 60]
#                             [--fg-threads 8] [--fg-size 1024] [--baseline-s 10] [--fg-lead-s 20]
#                             [--workdir DIR] [--base-port 19600]
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/../bin/vcorfu" bench suite rebuild "$@"
