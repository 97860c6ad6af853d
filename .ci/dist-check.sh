#!/usr/bin/env bash
# Checks the release archive the build wrote (dist/target/vcorfu-VERSION.tar.gz) as a user would use
# it: unpacks it into a temporary directory and, with a PATH that holds `java` and a few basic tools
# but no Maven and no sources, runs its bin/vcorfu: `--version` prints the archive's version (the
# first command also writes the class-data archive, which a JVM must then accept), a node starts
# from it and gets ready, and an append and a read go through it. Stops the node it started, by
# pid; any failure fails the check with what the node printed.
set -euo pipefail
cd "$(dirname "$0")/.."
# The version of this checkout: the root pom's own (its first <version>).
version=$(sed -n 's|^  <version>\(.*\)</version>$|\1|p' pom.xml | head -n 1)
archive=dist/target/vcorfu-$version.tar.gz
[[ -f "$archive" ]] || { echo "dist-check: no $archive (./mvnw package writes it)" >&2; exit 1; }

work=$(mktemp -d)
node=""
cleanup() {
  if [[ -n "$node" ]]; then
    kill "$node" 2>/dev/null || true
    wait "$node" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "dist-check: $*" >&2
  [[ -f "$work/node.log" ]] && { echo "--- the node's output:" >&2; cat "$work/node.log" >&2; }
  exit 1
}

tar xzf "$archive" -C "$work"
home="$work/vcorfu-$version"
for f in bin/vcorfu lib/vcorfu-server.jar conf/logback.xml LICENSE README.md; do
  [[ -e "$home/$f" ]] || fail "the archive has no vcorfu-$version/$f"
done

# The PATH of a machine with only a Java runtime: java, bash and the basic tools bin/vcorfu uses.
tools="$work/path"
mkdir "$tools"
ln -s "$(command -v java)" "$tools/java"
for t in bash cat dirname readlink tail mv rm; do
  ln -s "$(command -v "$t")" "$tools/$t"
done
vcorfu() {
  env -u JAVA_HOME PATH="$tools" "$home/bin/vcorfu" "$@"
}

out=$(vcorfu --version 2>"$work/first.err") ||
  { cat "$work/first.err" >&2; fail "--version failed"; }
[[ "$out" == *"vcorfu $version"* ]] || fail "--version printed \"$out\", not vcorfu $version"
[[ -s "$home/lib/vcorfu-server.jsa" ]] ||
  { cat "$work/first.err" >&2; fail "no class-data archive after the first command"; }
java -Xshare:on -XX:+UseParallelGC -XX:SharedArchiveFile="$home/lib/vcorfu-server.jsa" \
  -XX:+UnlockDiagnosticVMOptions -XX:ArchiveRelocationMode=1 \
  -cp "$home/lib/vcorfu-server.jar" io.vcorfu.server.cli.VcorfuCli --version >/dev/null \
  || fail "the JVM does not accept the class-data archive the first command wrote"

port=19391
ep=127.0.0.1:$port
cd "$work"
# Not through the function: $! is then the pid of the node's JVM (env and bin/vcorfu exec into it).
env -u JAVA_HOME PATH="$tools" "$home/bin/vcorfu" server --port $port --data-dir "$work/data" \
  >"$work/node.log" 2>&1 &
node=$!
ready=0
for _ in $(seq 1 200); do
  if grep -q "^vcorfu node .* ready" "$work/node.log"; then ready=1; break; fi
  kill -0 "$node" 2>/dev/null || fail "the node exited before it was ready"
  sleep 0.1
done
((ready)) || fail "the node was not ready after 20 s"

vcorfu log append --endpoint "$ep" --stream dist "hello from the archive" >"$work/append.out" \
  || fail "append failed"
# The global address follows the name directory's record of "dist" (see docs/cli.md, Names).
global=$(sed -n 's/^global \([0-9][0-9]*\)$/\1/p' "$work/append.out")
[[ -n "$global" ]] || fail "append printed: $(cat "$work/append.out")"
read_out=$(vcorfu log read --endpoint "$ep" --stream dist) || fail "read failed"
[[ "$read_out" == "0 $global hello from the archive" ]] || fail "read printed \"$read_out\""

kill "$node"
wait "$node" || true
node=""
echo "dist-check: vcorfu-$version.tar.gz runs a node, an append and a read with only java"
