#!/usr/bin/env bash
# Checks docker/: the compose file with docker-compose's own parser (`config -q`, Debian's
# docker-compose) and the Dockerfile with dockerfilelint (npm), both installed when missing; then
# builds the image and runs the compose cluster for real with docker/check.sh. A Docker engine that
# is installed but not running is started here (and stopped again, by its PID); one that is not
# installed is installed from Debian (docker.io, debootstrap for the base image). When no engine
# can be had (no package source, no privileges), the run says so and only the static checks count.
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/ci
mkdir -p "$out"
apt_install() {
  apt-get install -y -q "$@" >>"$out/apt.log" 2>&1 \
    || (apt-get update -q >>"$out/apt.log" 2>&1 && apt-get install -y -q "$@" >>"$out/apt.log" 2>&1)
}
if ! command -v docker-compose >/dev/null; then
  echo "docker check: installing docker-compose"
  apt_install docker-compose
fi
lint="$out/npm/node_modules/.bin/dockerfilelint"
if [ ! -x "$lint" ]; then
  echo "docker check: installing dockerfilelint"
  mkdir -p "$out/npm"
  npm install --prefix "$out/npm" --no-audit --no-fund --silent dockerfilelint@1.8.0 >"$out/npm.log" 2>&1
fi
docker-compose -f docker/compose.yaml config -q
"$lint" docker/Dockerfile
echo "docker check: compose file and Dockerfile valid"

dockerd_pid=""
stop_dockerd() {
  if [[ -n "$dockerd_pid" ]]; then
    kill "$dockerd_pid" 2>/dev/null || true
    wait "$dockerd_pid" 2>/dev/null || true
  fi
}
trap stop_dockerd EXIT
if ! docker info >/dev/null 2>&1; then
  if ! command -v dockerd >/dev/null || ! command -v debootstrap >/dev/null; then
    echo "docker check: installing docker.io and debootstrap"
    apt_install docker.io debootstrap || true
  fi
  if ! command -v dockerd >/dev/null; then
    echo "docker check: SKIPPED the image build and cluster run: no Docker engine could be installed (see $out/apt.log)"
    exit 0
  fi
  dockerd >"$out/dockerd.log" 2>&1 &
  dockerd_pid=$!
  for _ in $(seq 60); do
    docker info >/dev/null 2>&1 && break
    kill -0 "$dockerd_pid" 2>/dev/null || break
    sleep 0.5
  done
  if ! docker info >/dev/null 2>&1; then
    echo "docker check: SKIPPED the image build and cluster run: dockerd did not start (see $out/dockerd.log)"
    exit 0
  fi
fi
# The base file system .ci/prepare.sh made while the build ran, when it finished.
if [ -e "$out/base-rootfs.done" ]; then
  export VCORFU_BASE_ROOTFS=$PWD/$out/base-rootfs
fi
bash docker/check.sh
