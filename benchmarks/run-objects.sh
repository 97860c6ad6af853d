#!/usr/bin/env bash
# Runs every `vcorfu bench objects` mode side by side against one in-memory vcorfu node that this
# script starts (and stops: only that process, by its PID), then prints a summary table.
#
#   benchmarks/run-objects.sh [--quick]
#
# --quick: 3 s per run (a smoke test). Otherwise DURATION seconds per run (default 20; the whole
# run takes about 8 minutes). PORT (default 9750) is the node's port. Raw output goes to stdout and
# to OUT (default benchmarks/target/objects-run.txt).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="$root/benchmarks/target/vcorfu-all.jar"
duration=${DURATION:-20}
if [ "${1:-}" = "--quick" ]; then
  duration=3
fi
port=${PORT:-9750}
out=${OUT:-$root/benchmarks/target/objects-run.txt}
java_opts=${VCORFU_JAVA_OPTS:-"-XX:+UseParallelGC"}

if [ ! -f "$jar" ]; then
  (cd "$root" && ./mvnw -q -B -DskipTests package -pl benchmarks -am)
fi
mkdir -p "$(dirname "$out")"
: > "$out"
server_log="$(mktemp)"
server_pid=""
stop_server() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid"
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -f "$server_log"
}
trap stop_server EXIT

java $java_opts -cp "$jar" io.vcorfu.server.cli.VcorfuCli server --memory --port "$port" > "$server_log" 2>&1 &
server_pid=$!
for _ in $(seq 1 120); do
  grep -q ready "$server_log" && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$server_log"; echo "run-objects: the node exited" >&2; exit 1; }
  sleep 0.5
done
grep -q ready "$server_log" || { cat "$server_log"; echo "run-objects: the node did not become ready" >&2; exit 1; }

log() { echo "$@" | tee -a "$out"; }
log "# $(date -u +%FT%TZ) nproc $(nproc) load: $(cut -d' ' -f1-3 /proc/loadavg) node pid $server_pid port $port duration ${duration}s"

bench() {
  local cmd=(java $java_opts -cp "$jar" io.vcorfu.benchmarks.BenchCli objects "$@" --endpoint "127.0.0.1:$port" --duration "$duration")
  log "\$ vcorfu bench objects $* --endpoint 127.0.0.1:$port --duration $duration"
  # A mode that could not run says so (and exits 1); the table lists it and the run goes on.
  "${cmd[@]}" 2>&1 | grep -E '^(objects|check|stopped|vcorfu:)' | tee -a "$out" || true
}

bench accessor-local --threads 1
bench accessor-remote --threads 1
bench accessor-behind --behind 10
bench accessor-behind --behind 100
bench mutator --threads 1
bench mutator --threads 4
for t in 2 4 8 16; do
  bench tx --threads "$t" --objects 16
done
bench ro-tx-local --threads 1
bench ro-tx-local --threads 4
bench ro-tx-remote --threads 1
bench ro-tx-remote --threads 4
bench ro-tx-local --threads 4 --random-snapshot
bench ro-tx-remote --threads 4 --random-snapshot
log "# $(date -u +%FT%TZ) load at end: $(cut -d' ' -f1-3 /proc/loadavg)"

echo
echo "| mode | threads | objects | behind | ops/s | p50 ms | p99 ms | aborts | abort rate | checks |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
awk '
  function flush() { if (row != "") print row " " status " |"; row = "" }
  /^objects mode=.*could not run/ { flush(); print "| " $2 " | could not run |"; next }
  /^objects mode=/ {
    flush()
    delete kv
    for (i = 2; i <= NF; i++) {
      if (split($i, p, "=") == 2) kv[p[1]] = p[2]
      if ($i == "p50") p50 = $(i + 1)
      if ($i == "p99") p99 = $(i + 1)
    }
    row = sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %s |", kv["mode"], kv["threads"], kv["objects"],
        kv["behind"], kv["ops_per_s"], p50, p99, kv["aborts"], kv["abort_rate"])
    status = "ok"
    next
  }
  /^check .*FAILED/ || /^stopped early/ { status = "FAILED" }
  /^vcorfu:/ { flush(); print "| (error) " $0 " |" }
  END { flush() }
' "$out"
