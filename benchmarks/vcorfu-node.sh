# shellcheck shell=bash
# Helpers for benchmark scripts that build the shaded jar and start vcorfu nodes. Source it after
# benchmarks/peers/lib.sh (it uses peers_start, peers_running, peers_port_free, peers_die and
# peers_log); do not execute it. Every function here assumes `set -euo pipefail`.

# vcorfu_build_jar ROOT JAR: build JAR (the benchmarks module's shaded jar) with the Maven wrapper
# of ROOT when it is missing or older than any pom.xml or main source file of ROOT. Tries offline
# first, then online.
vcorfu_build_jar() {
  local root=$1 jar=$2 stale
  stale=$(find "$root" -path "$root/.git" -prune -o -path '*/target' -prune -o \
    \( -name pom.xml -o -path '*/src/main/*' \) -newer "$jar" -type f -print -quit 2>/dev/null || true)
  if [[ ! -f "$jar" || -n "$stale" ]]; then
    peers_log "building $jar"
    (cd "$root" && ./mvnw -q -B -o -pl benchmarks -am package -DskipTests) >&2 ||
      (cd "$root" && ./mvnw -q -B -pl benchmarks -am package -DskipTests) >&2
  fi
}

# vcorfu_start_node DIR PORT JAVA_ARGS... -- SERVER_ARGS...: start `VcorfuCli server --host
# 127.0.0.1 --port PORT SERVER_ARGS...` with `java JAVA_ARGS...` in the background (PID file
# DIR/server.pid, log DIR/server.log, through peers_start) and wait up to 60 s for its "ready"
# line. JAVA_ARGS must include the class path (-cp JAR). Fails, showing the log tail, if the node
# exits or does not become ready; the caller stops it with peers_stop DIR/server.pid NAME.
vcorfu_start_node() {
  vcorfu_launch_node "$@"
  vcorfu_await_ready "$1"
}

# vcorfu_launch_node DIR PORT JAVA_ARGS... -- SERVER_ARGS...: vcorfu_start_node without the wait,
# so that several nodes start at once; wait for each with vcorfu_await_ready DIR.
vcorfu_launch_node() {
  local dir=$1 port=$2
  shift 2
  local java_args=()
  while (($#)) && [[ "$1" != -- ]]; do
    java_args+=("$1")
    shift
  done
  (($#)) || peers_die "vcorfu_launch_node: missing -- before the server arguments"
  shift
  mkdir -p "$dir"
  peers_port_free 127.0.0.1 "$port"
  peers_start "$dir/server.pid" "$dir/server.log" java "${java_args[@]}" \
    io.vcorfu.server.cli.VcorfuCli server --host 127.0.0.1 --port "$port" "$@"
}

# vcorfu_start_zookeeper DIR PORT JAVA_ARGS...: start `VcorfuCli zookeeper` (a single-server
# ZooKeeper for a cluster on this machine) on 127.0.0.1:PORT with its data in DIR/data, PID file
# DIR/server.pid and log DIR/server.log, and wait for its "ready" line.
vcorfu_start_zookeeper() {
  local dir=$1 port=$2
  shift 2
  mkdir -p "$dir"
  peers_port_free 127.0.0.1 "$port"
  peers_start "$dir/server.pid" "$dir/server.log" java "$@" \
    io.vcorfu.server.cli.VcorfuCli zookeeper --host 127.0.0.1 --port "$port" --data-dir "$dir/data"
  vcorfu_await_ready "$dir"
}

# vcorfu_await_ready DIR: wait up to 60 s for the "ready" line of the process started in DIR.
vcorfu_await_ready() {
  local dir=$1 i
  for ((i = 0; i < 600; i++)); do
    grep -q ' ready ' "$dir/server.log" 2>/dev/null && return 0
    peers_running "$dir/server.pid" || { tail -n 20 "$dir/server.log" >&2; peers_die "vcorfu process $dir exited during start-up"; }
    sleep 0.1
  done
  tail -n 20 "$dir/server.log" >&2
  peers_die "vcorfu process $dir did not print ready within 60 s"
}
