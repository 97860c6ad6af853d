# shellcheck shell=bash
# Shared helpers for the peer-system benchmark scripts (redis.sh, etcd.sh, run-all.sh).
# Source it; do not execute it. Every function here assumes `set -euo pipefail`.
#
# Process tracking: a server is started in the background and its PID is written to
# <workdir>/<name>/server.pid together with the resolved path of the executable that was
# started. Stopping signals exactly that PID, and only after checking that /proc/<pid>/exe
# is still that executable, so a recycled PID is never signalled. PID files are read with an
# explicit IFS: an EXIT trap may run while a caller's `IFS= read` is in progress, with that IFS.

# shellcheck disable=SC2034 # used by the scripts that source this file
PEERS_DEFAULT_WORKDIR=/tmp/vcorfu-peers

peers_die() {
  echo "error: $*" >&2
  exit 1
}

peers_log() {
  echo "[$(date -u +%H:%M:%S)] $*" >&2
}

# peers_require_cmd NAME HINT: fail with HINT unless NAME is on PATH.
peers_require_cmd() {
  command -v "$1" >/dev/null 2>&1 || peers_die "'$1' is not installed; $2"
}

# peers_require_uint NAME VALUE: fail unless VALUE is a positive decimal integer.
peers_require_uint() {
  [[ "$2" =~ ^[1-9][0-9]*$ ]] || peers_die "$1 must be a positive integer, got '$2'"
}

# peers_running PIDFILE: succeed if the PID recorded in PIDFILE is alive and still runs the
# executable recorded next to it.
peers_running() {
  local pidfile=$1 pid exe actual
  [[ -f "$pidfile" ]] || return 1
  IFS=" " read -r pid exe <"$pidfile" || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  actual=$(readlink -f "/proc/$pid/exe" 2>/dev/null) || return 1
  [[ "$actual" == "$exe" ]]
}

# peers_start PIDFILE LOGFILE BINARY ARGS...: start BINARY in the background with its output
# in LOGFILE and record its PID. Refuses to start a second copy.
peers_start() {
  local pidfile=$1 logfile=$2 binary=$3
  shift 3
  if peers_running "$pidfile"; then
    peers_die "already running with PID $(cut -d' ' -f1 "$pidfile") (see $pidfile); stop it first"
  fi
  local exe
  exe=$(readlink -f "$(command -v "$binary")") || peers_die "cannot resolve executable '$binary'"
  "$binary" "$@" </dev/null >"$logfile" 2>&1 &
  local pid=$! i
  echo "$pid $exe" >"$pidfile"
  # Until the child has called exec, /proc/<pid>/exe still names this shell; wait for the switch
  # so that later liveness checks see the server itself.
  for ((i = 0; i < 100; i++)); do
    peers_running "$pidfile" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  peers_log "started $binary with PID $pid (log: $logfile)"
}

# peers_stop PIDFILE NAME: send SIGTERM to the recorded PID, wait up to 20 s, then SIGKILL it.
peers_stop() {
  local pidfile=$1 name=$2 pid exe i
  if [[ ! -f "$pidfile" ]]; then
    peers_log "$name is not running (no $pidfile)"
    return 0
  fi
  IFS=" " read -r pid exe <"$pidfile"
  if ! peers_running "$pidfile"; then
    peers_log "$name PID $pid is no longer running; removing $pidfile"
    rm -f "$pidfile"
    return 0
  fi
  kill -TERM "$pid"
  for ((i = 0; i < 200; i++)); do
    peers_running "$pidfile" || break
    sleep 0.1
  done
  if peers_running "$pidfile"; then
    peers_log "$name PID $pid ignored SIGTERM for 20 s; sending SIGKILL"
    kill -KILL "$pid"
    for ((i = 0; i < 50; i++)); do
      peers_running "$pidfile" || break
      sleep 0.1
    done
  fi
  peers_running "$pidfile" && peers_die "$name PID $pid is still running after SIGKILL"
  rm -f "$pidfile"
  peers_log "stopped $name (PID $pid)"
}

# peers_wait_port PIDFILE HOST PORT SECONDS LOGFILE: wait until HOST:PORT accepts TCP
# connections, failing early (and showing the log tail) if the server process exits.
peers_wait_port() {
  local pidfile=$1 host=$2 port=$3 seconds=$4 logfile=$5 i
  for ((i = 0; i < seconds * 10; i++)); do
    if ! peers_running "$pidfile"; then
      tail -n 20 "$logfile" >&2 || true
      rm -f "$pidfile"
      peers_die "server exited during start-up (log: $logfile)"
    fi
    if (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then
      return 0
    fi
    sleep 0.1
  done
  tail -n 20 "$logfile" >&2 || true
  peers_die "$host:$port did not accept connections within $seconds s (log: $logfile)"
}

# peers_port_free HOST PORT: fail if something already listens on HOST:PORT.
peers_port_free() {
  if (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; then
    peers_die "$1:$2 is already in use by another process"
  fi
}

# peers_value SIZE: print a value of SIZE bytes (the letter x repeated), without a newline.
peers_value() {
  head -c "$1" /dev/zero | tr '\0' x
}
