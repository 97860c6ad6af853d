#!/usr/bin/env bash
# What does background compaction cost the foreground? One durable vcorfu node, default settings:
# fills two interleaved streams (X and Y, 1 KB values), measures `bench append` (the baseline),
# trims X away so that every sealed segment is half dead, and measures `bench append` again while
# the node compacts (paced at its default 16 MiB/s); then reports both, the ratio, and what
# compaction did meanwhile (from /status.json).
#
# Usage:
#   benchmarks/run-compaction.sh [--fill N] [--seconds S] [--threads T] [--workdir DIR]
#                                [--base-port P]
#
#   --fill N      entries written to each of X and Y first (default 120000: about 250 MB in all)
#   --seconds S   length of each measured `bench append` (default 15)
#   --threads T   writer threads of the measured appends, 1 KB values (default 4)
#   --workdir DIR scratch directory, kept afterwards (default: a fresh mktemp -d, removed)
#   --base-port P the node's port (metrics on P + 100; default 19900)
#
# Prints the baseline and the during-compaction append rates, their ratio, and the node's storage
# before the trim, when the second measurement starts and when it ends.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
# shellcheck source=peers/lib.sh
source "$here/peers/lib.sh"
# shellcheck source=vcorfu-node.sh
source "$here/vcorfu-node.sh"

usage() {
  sed -n '/^# Usage:/,/^# Prints/p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

fill=120000
seconds=15
threads=4
workdir=""
port=19900
while (($#)); do
  case "$1" in
    --fill) fill=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --workdir) workdir=$2; shift 2 ;;
    --base-port) port=$2; shift 2 ;;
    *) usage ;;
  esac
done

jar="$root/benchmarks/target/vcorfu-all.jar"
vcorfu_build_jar "$root" "$jar"
keep=1
if [[ -z "$workdir" ]]; then
  workdir=$(mktemp -d)
  keep=0
fi
cleanup() {
  peers_stop "$workdir/n1/server.pid" node || true
  if ((keep == 0)); then
    rm -rf "$workdir"
  fi
}
trap cleanup EXIT

vcorfu_start_node "$workdir/n1" "$port" -cp "$jar" -- \
  --data-dir "$workdir/n1/data" --metrics-port $((port + 100))
endpoint="127.0.0.1:$port"
cli() { java -cp "$jar" io.vcorfu.server.cli.VcorfuCli "$@"; }
bench() { java -cp "$jar" io.vcorfu.benchmarks.BenchCli "$@"; }
storage() {
  curl -s "http://127.0.0.1:$((port + 100))/status.json" |
    python3 -c 'import json,sys; s=json.load(sys.stdin)["storage"]; print("files", s["fileBytes"], "live", s["liveBytes"], "segments", s["segments"], "compacted", s["segmentsCompacted"], "copied", s["compactionCopiedBytes"], "reclaimed", s["compactionReclaimedBytes"], "compacting", s["compacting"])'
}
rate() {
  python3 -c 'import json,sys; print(round(json.loads(sys.argv[1])["ops_per_second"]))' "$1"
}

peers_log "filling X and Y with $fill entries each"
# One writer per stream at once: their entries interleave in every segment.
python3 - "$jar" "$endpoint" "$fill" <<'EOF' >&2
import subprocess, sys
jar, endpoint, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
seconds = max(5, n // 2500)
procs = [subprocess.Popen(["java", "-cp", jar, "io.vcorfu.benchmarks.BenchCli", "append",
                           "--endpoint", endpoint, "--threads", "4", "--size", "1024",
                           "--duration", str(seconds), "--prefix", name, "--streams", "1"],
                          stdout=subprocess.DEVNULL) for name in ("x", "y")]
for p in procs:
    p.wait()
EOF
echo "after the fill:        $(storage)"
base=$(bench append --endpoint "$endpoint" --threads "$threads" --size 1024 \
  --duration "$seconds" --prefix base --streams 8 --output json 2>/dev/null | tail -1)
echo "baseline:              $(rate "$base") appends/s"

tail_x=$(cli log tail --endpoint "$endpoint" --stream x-0 2>/dev/null | awk '{print $2}')
cli log trim --endpoint "$endpoint" --stream x-0 --before "$((tail_x + 1))" >&2
# The log's copies go a few seconds later; then every sealed segment is about half dead.
sleep 5
echo "before the measurement: $(storage)"
during=$(bench append --endpoint "$endpoint" --threads "$threads" --size 1024 \
  --duration "$seconds" --prefix during --streams 8 --output json 2>/dev/null | tail -1)
echo "during compaction:     $(rate "$during") appends/s"
echo "after the measurement: $(storage)"
python3 -c "print('ratio %.2f' % ($(rate "$during") / $(rate "$base")))"
