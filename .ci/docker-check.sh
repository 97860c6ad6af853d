#!/usr/bin/env bash
# Checks docker/ without a Docker engine (none runs on these machines): the compose file with
# docker-compose's own parser (`config -q`, Debian's docker-compose), the Dockerfile with
# dockerfilelint (npm). Installs both when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/ci
mkdir -p "$out"
if ! command -v docker-compose >/dev/null; then
  echo "docker check: installing docker-compose"
  apt-get install -y -q docker-compose >"$out/apt-docker-compose.log" 2>&1 \
    || (apt-get update -q >>"$out/apt-docker-compose.log" 2>&1 \
      && apt-get install -y -q docker-compose >>"$out/apt-docker-compose.log" 2>&1)
fi
lint="$out/npm/node_modules/.bin/dockerfilelint"
if [ ! -x "$lint" ]; then
  echo "docker check: installing dockerfilelint"
  mkdir -p "$out/npm"
  npm install --prefix "$out/npm" --no-audit --no-fund --silent dockerfilelint@1.8.0 >"$out/npm.log" 2>&1
fi
docker-compose -f docker/compose.yaml config -q
"$lint" docker/Dockerfile
echo "docker check: compose file and Dockerfile valid (the image is not built here)"
