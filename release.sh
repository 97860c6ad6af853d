#!/usr/bin/env bash
# Makes a release: ./release.sh [--skip-tests] VERSION [NEXT]
#
# Sets VERSION (e.g. 0.2.0; no -SNAPSHOT) in every pom with the versions plugin, builds it from
# clean and runs every test (./mvnw -B clean verify; --skip-tests: clean package without the
# tests), commits the poms as "Release VERSION" and tags that commit vVERSION (annotated). With
# NEXT (e.g. 0.3.0-SNAPSHOT) it then sets NEXT in every pom and commits that too. Pushes nothing:
# the last line says what to push. Needs a clean work tree on a branch, no tag vVERSION yet, and
# the package registry (the versions plugin). The release archive is
# dist/target/vcorfu-VERSION.tar.gz.
set -euo pipefail
cd "$(dirname "$0")"

usage() {
  echo "usage: $0 [--skip-tests] VERSION [NEXT-SNAPSHOT]" >&2
  exit 2
}
goal="clean verify"
if [[ "${1:-}" == "--skip-tests" ]]; then
  goal="clean package -DskipTests"
  shift
fi
(($# == 1 || $# == 2)) || usage
version=$1
next=${2:-}
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[A-Za-z0-9.]+)?$ && "$version" != *SNAPSHOT ]] ||
  { echo "release: VERSION must look like 1.2.3 or 1.2.3-rc1, and not be a SNAPSHOT" >&2; exit 2; }
[[ -z "$next" || "$next" == *-SNAPSHOT ]] ||
  { echo "release: NEXT must be a -SNAPSHOT version" >&2; exit 2; }
tag="v$version"
[[ -z "$(git status --porcelain)" ]] ||
  { echo "release: the work tree has changes; commit or stash them" >&2; exit 1; }
git symbolic-ref -q HEAD >/dev/null || { echo "release: not on a branch" >&2; exit 1; }
if git rev-parse -q --verify "refs/tags/$tag" >/dev/null; then
  echo "release: tag $tag exists already" >&2
  exit 1
fi

set_version() {
  # Every pom of the reactor, the BOM (which has no parent) included; no backup files.
  ./mvnw -B -q -ntp versions:set -DnewVersion="$1" -DprocessAllModules=true \
    -DgenerateBackupPoms=false
  local pom
  for pom in pom.xml */pom.xml; do
    [[ "$(pom_version "$pom")" == "$1" ]] || { echo "release: $pom is not at $1" >&2; exit 1; }
  done
}
# The first <version> of a pom: the project's own in the root pom and the BOM, the parent's in a
# module (which inherits it).
pom_version() {
  sed -n 's|^ *<version>\(.*\)</version>$|\1|p' "$1" | head -n 1
}

old=$(pom_version pom.xml)
echo "release: $old -> $version"
set_version "$version"
# shellcheck disable=SC2086
./mvnw -B -ntp $goal
git commit -q -am "Release $version"
git tag -a "$tag" -m "vcorfu $version"
echo "release: tagged $tag; the archive is dist/target/vcorfu-$version.tar.gz"

if [[ -n "$next" ]]; then
  set_version "$next"
  git commit -q -am "Version $next for the next release"
  echo "release: the poms are now at $next"
fi
branch=$(git symbolic-ref --short HEAD)
echo "release: nothing is pushed; to publish: git push origin $branch $tag"
