#!/usr/bin/env bash
# Loads a node's status page in headless Chromium against a running three-node cluster (ZooKeeper
# from `vcorfu zookeeper`, three `vcorfu server` processes, `vcorfu cluster init`), checks that it
# shows every node serving, the sequencer, the global tail and the node's streams, and saves a
# screenshot to target/ci/status-page.png.
# Installs Debian's chromium when it is missing. Ends only the processes it started.
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/ci
mkdir -p "$out"
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

if ! command -v chromium >/dev/null; then
  echo "status page: installing chromium"
  apt-get install -y -q chromium >"$out/apt-chromium.log" 2>&1 \
    || (apt-get update -q >>"$out/apt-chromium.log" 2>&1 && apt-get install -y -q chromium >>"$out/apt-chromium.log" 2>&1)
fi

# Waits until FILE has a line containing "ready" (or the process PID is gone): 60 s at most.
await_ready() {
  local file=$1 pid=$2
  for _ in $(seq 1 600); do
    grep -q ready "$file" 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || { echo "status page: process $pid exited:"; cat "$file"; return 1; }
    sleep 0.1
  done
  echo "status page: not ready after 60 s:"; cat "$file"; return 1
}

zk=19181
bin/vcorfu zookeeper --port $zk --data-dir "$work/zk" >"$work/zk.log" 2>&1 &
pids+=($!)
await_ready "$work/zk.log" $!
nodes=""
for i in 1 2 3; do
  bin/vcorfu server --port 1910$i --data-dir "$work/n$i" --zookeeper 127.0.0.1:$zk \
    --cluster ci --plaintext --metrics-port 1920$i >"$work/n$i.log" 2>&1 &
  pids+=($!)
  await_ready "$work/n$i.log" $!
  nodes="$nodes${nodes:+,}127.0.0.1:1910$i"
done
bin/vcorfu cluster init --zookeeper 127.0.0.1:$zk --cluster ci --nodes "$nodes"
bin/vcorfu log append --endpoint "$nodes" --stream ci-page "hello" >/dev/null

flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
  --disable-background-networking --disable-component-update --disable-sync
  --user-data-dir="$work/chromium" --virtual-time-budget=5000)
url=http://127.0.0.1:19201/
# The page fills itself from /status.json; wait until every node serves there and the sequencer
# has answered for the global tail (right after a layout change the page shows it as ?), then
# render it.
for _ in $(seq 1 100); do
  chromium "${flags[@]}" --dump-dom "$url" >"$out/status-page.html" 2>"$out/chromium.log" || true
  if [ "$(grep -o '>serving<' "$out/status-page.html" | wc -l)" -ge 3 ] &&
    grep -Eq "global tail [0-9]+" "$out/status-page.html"; then
    break
  fi
  sleep 0.5
done
chromium "${flags[@]}" --window-size=1280,900 --screenshot="$out/status-page.png" "$url" \
  >>"$out/chromium.log" 2>&1 || true

fail=0
for i in 1 2 3; do
  grep -q "127.0.0.1:1910$i" "$out/status-page.html" || { echo "status page: node 1910$i missing"; fail=1; }
done
[ "$(grep -o '>serving<' "$out/status-page.html" | wc -l)" -ge 3 ] || { echo "status page: not every node serving"; fail=1; }
grep -q "sequencer 127.0.0.1:1910" "$out/status-page.html" || { echo "status page: no sequencer"; fail=1; }
grep -q "first layout" "$out/status-page.html" || { echo "status page: no layout changes"; fail=1; }
grep -Eq "global tail [0-9]+" "$out/status-page.html" || { echo "status page: no global tail"; fail=1; }
grep -Eq "[1-9][0-9]* stream\(s\)" "$out/status-page.html" || { echo "status page: no streams"; fail=1; }
[ -s "$out/status-page.png" ] || { echo "status page: no screenshot"; fail=1; }
if [ $fail -ne 0 ]; then
  echo "status page: DOM was:"; cat "$out/status-page.html"; exit 1
fi
echo "status page: every node serving, screenshot in $out/status-page.png"
