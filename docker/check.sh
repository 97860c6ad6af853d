#!/usr/bin/env bash
# Builds the node image and runs docker/compose.yaml for real: ZooKeeper, three nodes and init come
# up; a client on the host appends and reads; the sequencer's container is killed and the cluster
# keeps serving; a second `up` on the same volumes finds the cluster (init exits 0) and every
# acknowledged entry. Removes its containers and volumes at the end, also on failure.
#
# Usage: docker/check.sh   (from anywhere; needs a running Docker engine, docker-compose and the
#                           server jar of `./mvnw -B -DskipTests package`)
#
# The image's base: $VCORFU_BASE_IMAGE:$VCORFU_BASE_TAG if set; else the local image
# vcorfu-base:bookworm, made here when missing with debootstrap (Debian bookworm, minbase,
# openjdk-17-jre-headless and curl, from the first Debian mirror this machine's apt uses), since no
# image registry may be reachable; or from the finished debootstrap file system in
# $VCORFU_BASE_ROOTFS when that is set (CI makes it while the build runs).
# The compose file uses the host's network: ports 2181, 9001-9003 and 9101-9103 must be free.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
compose=(docker-compose -f "$root/docker/compose.yaml" -p "vcorfucheck$$")
jar=$root/server/target/vcorfu-server.jar
endpoints=127.0.0.1:9001,127.0.0.1:9002,127.0.0.1:9003
stream=docker-check

say() { echo "docker check: $*"; }
die() { echo "docker check: FAILED: $*" >&2; exit 1; }

docker info >/dev/null 2>&1 || die "no Docker engine answers (start dockerd)"
command -v docker-compose >/dev/null || die "docker-compose is not installed"
[[ -f "$jar" ]] || die "$jar is missing: run ./mvnw -B -DskipTests package first"
for port in 2181 9001 9002 9003 9101 9102 9103; do
  if [[ -n "$(ss -ltnH "sport = :$port")" ]]; then
    die "port $port is in use on this host; the compose file needs it"
  fi
done

base_name=${VCORFU_BASE_IMAGE:-vcorfu-base}
base_tag=${VCORFU_BASE_TAG:-bookworm}
base=$base_name:$base_tag
if ! docker image inspect "$base" >/dev/null 2>&1 && [[ -n "${VCORFU_BASE_ROOTFS:-}" ]]; then
  [[ -z "${VCORFU_BASE_IMAGE:-}" ]] || die "base image $base not found"
  say "making the base image $base from $VCORFU_BASE_ROOTFS"
  tar -C "$VCORFU_BASE_ROOTFS" -c . | docker import - "$base" >/dev/null
fi
if ! docker image inspect "$base" >/dev/null 2>&1; then
  [[ -z "${VCORFU_BASE_IMAGE:-}" ]] || die "base image $base not found"
  command -v debootstrap >/dev/null || die "no image $base and no debootstrap to make it"
  mirror=$(grep -rhoE '^(URIs:|deb) *https?://[^ ]+' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null |
    grep -oE 'https?://[^ ]+' | grep -m1 debian || true)
  mirror=${mirror:-http://deb.debian.org/debian}
  rootfs=$(mktemp -d /tmp/vcorfu-rootfs.XXXXXX)
  say "making the base image $base with debootstrap from $mirror"
  debootstrap --variant=minbase --include=openjdk-17-jre-headless,curl bookworm "$rootfs" "$mirror" \
    >"$rootfs.log" 2>&1 || die "debootstrap failed; see $rootfs.log"
  tar -C "$rootfs" -c . | docker import - "$base" >/dev/null
  rm -rf "$rootfs" "$rootfs.log"
fi

cleanup() {
  "${compose[@]}" down -v >/dev/null 2>&1 || true
}
trap cleanup EXIT

cli() { "$root/bin/vcorfu" "$@"; }

# await_init WHAT: waits (at most 120 s) until the init container has exited 0.
await_init() {
  local id state i
  for i in $(seq 240); do
    id=$("${compose[@]}" ps -q init 2>/dev/null || true)
    if [[ -n "$id" ]]; then
      state=$(docker inspect -f '{{.State.Status}} {{.State.ExitCode}}' "$id")
      [[ "$state" == "exited 0" ]] && return 0
    fi
    sleep 0.5
  done
  docker logs "$id" 2>&1 | tail -n 5 >&2 || true
  die "$1: init did not exit 0 within 120 s (last state: ${state:-none})"
}

# append_all FROM TO: appends values FROM..TO to the stream from the host, each retried for at
# most 30 s (a failover in progress), in order.
append_all() {
  local v deadline
  for v in $(seq "$1" "$2"); do
    deadline=$((SECONDS + 30))
    until cli log append --endpoint "$endpoints" --stream "$stream" "value-$v" >/dev/null 2>&1; do
      ((SECONDS < deadline)) || die "append of value-$v failed for 30 s"
      sleep 0.5
    done
  done
}

# expect_values N: the stream reads back value-1 .. value-N, each once, in order.
expect_values() {
  local got want
  got=$(cli log read --endpoint "$endpoints" --stream "$stream" | awk '{ print $3 }')
  want=$(seq -f 'value-%g' 1 "$1")
  [[ "$got" == "$want" ]] || die "the stream reads back $(echo "$got" | wc -l) values, not value-1..value-$1 in order"
}

say "building the image (base $base)"
VCORFU_BASE_IMAGE=$base_name VCORFU_BASE_TAG=$base_tag "${compose[@]}" build -q >/dev/null
say "docker-compose up"
"${compose[@]}" up -d >/dev/null 2>&1
await_init "first up"
append_all 1 5
expect_values 5
say "a client on the host appended and read 5 entries"

sequencer=$("${compose[@]}" ps -q node1)
docker kill "$sequencer" >/dev/null
append_all 6 10
expect_values 10
say "the sequencer's container killed: the cluster kept serving (10 entries, in order, once each)"

"${compose[@]}" down >/dev/null 2>&1
"${compose[@]}" up -d >/dev/null 2>&1
await_init "second up"
init_log=$("${compose[@]}" logs --no-color init 2>/dev/null || true)
[[ "$init_log" == *"exists already with these nodes"* ]] ||
  die "the second up's init did not find the cluster: $(echo "$init_log" | tail -n 2)"
expect_values 10
say "a second up on the same volumes: init exited 0, the 10 entries read back"
say "passed"
