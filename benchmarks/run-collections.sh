#!/usr/bin/env bash
# Runs the three `vcorfu bench collections` modes (paper Figures 16 and 17) against one durable
# vcorfu node that this script starts (and stops: only that process, by its PID), then writes the
# raw output and markdown summary tables to the --out file.
#
#   benchmarks/run-collections.sh [--quick] [--out FILE]
#
# --quick: a smoke test of a minute or two (2,000 updates, 1 s abort runs, 200-key clears).
# Otherwise the full run: 100 MB of 1 KB updates per open configuration (8 configurations: SMRMap
# and CSMRMap with 10, 100, 1000 buckets, uniform and Zipf keys), 10 s per abort run (32 runs),
# 5 clears of 10,000 keys per configuration and view; it takes from tens of minutes to a few hours
# depending on the disk, and wants a quiet machine.
# Environment: PORT (default 9751), KINDS (default smr,csmr), BUCKETS (default 10,100,1000),
# DURATION (abort runs, seconds, default 10), MAX_UPDATES (default 102400), DATA_DIR (default a
# fresh temporary directory, removed at the end), VCORFU_JAVA_OPTS (default -XX:+UseParallelGC).
# The node runs with --classpath set to the shaded jar, so it can host remote views of the
# collections (SMRMap, CSMRMap) for the clear mode.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="$root/benchmarks/target/vcorfu-all.jar"
quick=0
out="$root/benchmarks/target/collections-run.md"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1; shift ;;
    --out) out="$2"; shift 2 ;;
    *) echo "usage: $0 [--quick] [--out FILE]" >&2; exit 2 ;;
  esac
done
port=${PORT:-9751}
kinds=${KINDS:-smr,csmr}
buckets=${BUCKETS:-10,100,1000}
java_opts=${VCORFU_JAVA_OPTS:-"-XX:+UseParallelGC"}
if [ "$quick" = 1 ]; then
  open_args=(--max-updates "${MAX_UPDATES:-2000}" --steps 3 --reps 2 --keys 1000)
  abort_args=(--duration "${DURATION:-1}" --writers-list 2,16 --keys 1000)
  clear_args=(--clear-keys 200 --reps 2)
else
  open_args=(--max-updates "${MAX_UPDATES:-102400}" --steps 4 --reps 5 --keys 100000)
  abort_args=(--duration "${DURATION:-10}" --writers-list 2,4,8,16 --keys 100000)
  clear_args=(--clear-keys 10000 --reps 5)
fi

# (Re)build the shaded jar when it is missing or older than any main source or pom.
if [ ! -f "$jar" ] || [ -n "$(find "$root" -path "$root/*/src/main/*" -newer "$jar" -type f -print -quit)" ] \
    || [ -n "$(find "$root" -maxdepth 2 -name pom.xml -newer "$jar" -print -quit)" ]; then
  (cd "$root" && ./mvnw -q -B -o -DskipTests package -pl benchmarks -am)
fi
mkdir -p "$(dirname "$out")"
raw="$(mktemp)"
server_log="$(mktemp)"
data_dir=${DATA_DIR:-}
own_data_dir=0
if [ -z "$data_dir" ]; then
  data_dir="$(mktemp -d)"
  own_data_dir=1
fi
server_pid=""
stop_server() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid"
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -f "$server_log" "$raw"
  if [ "$own_data_dir" = 1 ]; then
    rm -rf "$data_dir"
  fi
}
trap stop_server EXIT

java $java_opts -cp "$jar" io.vcorfu.server.cli.VcorfuCli server --data-dir "$data_dir" --port "$port" \
  --classpath "$jar" > "$server_log" 2>&1 &
server_pid=$!
for _ in $(seq 1 120); do
  grep -q ready "$server_log" && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$server_log"; echo "run-collections: the node exited" >&2; exit 1; }
  sleep 0.5
done
grep -q ready "$server_log" || { cat "$server_log"; echo "run-collections: the node did not become ready" >&2; exit 1; }

log() { echo "$@" | tee -a "$raw"; }
log "# $(date -u +%FT%TZ) nproc $(nproc) load: $(cut -d' ' -f1-3 /proc/loadavg) node pid $server_pid port $port (durable, data in $data_dir)"

bench() {
  local cmd=(java $java_opts -cp "$jar" io.vcorfu.benchmarks.BenchCli collections "$@"
    --endpoint "127.0.0.1:$port" --kinds "$kinds" --buckets "$buckets")
  log "\$ vcorfu bench collections $* --endpoint 127.0.0.1:$port --kinds $kinds --buckets $buckets"
  "${cmd[@]}" 2>&1 | grep -E '^(collections|stopped|vcorfu:)' | tee -a "$raw" || true
}

bench --mode open "${open_args[@]}"
bench --mode aborts "${abort_args[@]}"
bench --mode clear "${clear_args[@]}"
log "# $(date -u +%FT%TZ) load at end: $(cut -d' ' -f1-3 /proc/loadavg)"

{
  echo "# vcorfu bench collections$([ "$quick" = 1 ] && echo " (--quick smoke run)")"
  echo
  java -cp "$jar" io.vcorfu.benchmarks.CollectionsSummary "$raw"
  echo "## Raw output"
  echo
  echo '```'
  cat "$raw"
  echo '```'
} > "$out"
echo
echo "run-collections: summary and raw output written to $out"
java -cp "$jar" io.vcorfu.benchmarks.CollectionsSummary "$raw"
