#!/usr/bin/env bash
# Fetches what the checks after the build need while the build runs, since none of it depends on
# the build: Debian's chromium and libnss3-tools (the status pages), docker.io, docker-compose and
# debootstrap (the Docker check), dockerfilelint (npm), and the Docker check's base file system
# (debootstrap, Debian bookworm minbase with openjdk-17-jre-headless and curl) in
# target/ci/base-rootfs, marked complete by target/ci/base-rootfs.done. Each check still installs
# or makes what it finds missing, so a step that fails here only costs time later; this script
# therefore never fails the run. Its log: target/ci/prepare.log.
set -uo pipefail
cd "$(dirname "$0")/.."
out=target/ci
mkdir -p "$out"
log=$out/prepare.log
step() { echo "$(date -u +%H:%M:%S) $*" >>"$log"; }

step "apt: chromium libnss3-tools docker.io docker-compose debootstrap"
if ! apt-get install -y -q chromium libnss3-tools docker.io docker-compose debootstrap >>"$log" 2>&1; then
  apt-get update -q >>"$log" 2>&1 &&
    apt-get install -y -q chromium libnss3-tools docker.io docker-compose debootstrap >>"$log" 2>&1 ||
    step "apt: failed (the checks install what they need themselves)"
fi

if command -v npm >/dev/null && [ ! -x "$out/npm/node_modules/.bin/dockerfilelint" ]; then
  step "npm: dockerfilelint"
  mkdir -p "$out/npm"
  npm install --prefix "$out/npm" --no-audit --no-fund --silent dockerfilelint@1.8.0 >>"$log" 2>&1 ||
    step "npm: failed"
fi

rootfs=$out/base-rootfs
if command -v debootstrap >/dev/null && [ ! -e "$rootfs.done" ]; then
  mirror=$(grep -rhoE '^(URIs:|deb) *https?://[^ ]+' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null |
    grep -oE 'https?://[^ ]+' | grep -m1 debian || true)
  mirror=${mirror:-http://deb.debian.org/debian}
  step "debootstrap: bookworm from $mirror into $rootfs"
  rm -rf "$rootfs"
  if debootstrap --variant=minbase --include=openjdk-17-jre-headless,curl bookworm "$rootfs" "$mirror" \
    >>"$log" 2>&1; then
    touch "$rootfs.done"
  else
    step "debootstrap: failed (the Docker check makes its base itself)"
    rm -rf "$rootfs"
  fi
fi
step "done"
exit 0
