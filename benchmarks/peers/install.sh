#!/usr/bin/env bash
# Installs the peer systems vcorfu is compared with and builds etcd's load generator.
#
# Usage:
#   install.sh [--workdir DIR]
#
#   --workdir DIR   state directory shared with redis.sh and etcd.sh (default /tmp/vcorfu-peers);
#                   the load generator is built as DIR/bin/etcd-bench
#
# Idempotent: Debian packages are installed with apt-get only when missing (redis-server,
# redis-tools, etcd-server, and etcd-client where the distribution has it; apt-get update runs
# at most once, and only when something has to be installed), and etcd-bench is rebuilt only
# when its sources are newer than the binary. Needs root for apt-get.
#
# While packages are installed, a temporary /usr/sbin/policy-rc.d (if none exists) keeps the
# packages from starting their own system-wide redis and etcd services; redis.sh and etcd.sh
# start private instances on 127.0.0.1 instead.
#
# etcd-bench is the Go module in benchmarks/peers/etcd-bench: a main package that runs
# go.etcd.io/etcd/v3/tools/benchmark/cmd (etcd release v3.5.17; at that release the tool lives
# in the repository's root module go.etcd.io/etcd/v3, which pulls in the api, client and server
# modules at the same version). Building it needs Go (on PATH or at /usr/local/go/bin/go) and
# access to the Go module proxy, or a module cache that already holds those modules.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"

usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}

workdir=$PEERS_DEFAULT_WORKDIR
while (($#)); do
  case "$1" in
    --workdir) workdir=${2:?--workdir needs a value}; shift 2 ;;
    -h | --help) usage ;;
    *) echo "unknown argument: $1" >&2; usage ;;
  esac
done

installed() {
  [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" == "install ok installed" ]]
}

known_to_apt() {
  [[ -n "$(apt-cache show --no-all-versions "$1" 2>/dev/null | head -n 1)" ]]
}

updated=false
apt_update_once() {
  if [[ "$updated" == false ]]; then
    peers_log "apt-get update"
    apt-get update -q >/dev/null
    updated=true
  fi
}

policy_created=false
cleanup() {
  if [[ "$policy_created" == true ]]; then rm -f /usr/sbin/policy-rc.d; fi
}
trap cleanup EXIT

missing=()
for pkg in redis-server redis-tools etcd-server; do
  installed "$pkg" || missing+=("$pkg")
done
if ! installed etcd-client; then
  known_to_apt etcd-client || apt_update_once
  if known_to_apt etcd-client; then
    missing+=(etcd-client)
  else
    peers_log "etcd-client is not available from apt; etcd.sh bench-get needs etcdctl"
  fi
fi

if ((${#missing[@]})); then
  [[ "$(id -u)" == 0 ]] || peers_die "installing ${missing[*]} needs root"
  apt_update_once
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\n# Keeps packages from starting services during vcorfu peer installation.\nexit 101\n' \
      >/usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
    policy_created=true
  fi
  peers_log "apt-get install ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
else
  peers_log "redis-server, redis-tools and etcd packages are already installed"
fi

go_bin=$(command -v go || true)
if [[ -z "$go_bin" && -x /usr/local/go/bin/go ]]; then go_bin=/usr/local/go/bin/go; fi
[[ -n "$go_bin" ]] || peers_die "Go is not installed (looked on PATH and at /usr/local/go/bin/go)"

src=$here/etcd-bench
bin=$workdir/bin/etcd-bench
mkdir -p "$workdir/bin"
if [[ -x "$bin" && "$bin" -nt "$src/main.go" && "$bin" -nt "$src/go.mod" && "$bin" -nt "$src/go.sum" ]]; then
  peers_log "$bin is up to date"
else
  peers_log "building $bin with $("$go_bin" version)"
  (cd "$src" && GOFLAGS=-mod=readonly "$go_bin" build -trimpath -o "$bin" .)
fi

for cmd in redis-server redis-cli redis-benchmark etcd; do
  peers_require_cmd "$cmd" "its package did not install"
done
peers_log "peer systems ready: $(redis-server --version | cut -d' ' -f1-3), $(etcd --version | head -n 1), $bin"
