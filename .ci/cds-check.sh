#!/usr/bin/env bash
# Checks that the class-data-sharing archive the build wrote beside the server jar
# (server/target/vcorfu-server.jsa, see ClassTraining) is one the JVM accepts for that jar: with
# -Xshare:on a JVM that cannot map the archive refuses to start, so a stale or broken archive fails
# here instead of silently costing every command its start-up time. Then runs a command through
# bin/vcorfu, which starts the JVM with the archive, also with another collector.
set -euo pipefail
cd "$(dirname "$0")/.."
jar=server/target/vcorfu-server.jar
archive=server/target/vcorfu-server.jsa
[[ -f "$archive" ]] || { echo "cds-check: $archive is missing" >&2; exit 1; }
java -Xshare:on -XX:+UseParallelGC -XX:SharedArchiveFile="$archive" -cp "$jar" \
  io.vcorfu.server.cli.VcorfuCli --version
# A node runs G1 (bin/vcorfu server): the archive must map there too.
java -Xshare:on -XX:+UseG1GC -XX:MaxGCPauseMillis=50 -XX:SharedArchiveFile="$archive" -cp "$jar" \
  io.vcorfu.server.cli.VcorfuCli --version >/dev/null
bin/vcorfu --version
# A collector named in VCORFU_JAVA_OPTS replaces the default one (two would stop the JVM).
VCORFU_JAVA_OPTS="-Xmx256m -XX:+UseSerialGC" bin/vcorfu --version >/dev/null
VCORFU_JAVA_OPTS="-XX:+UseSerialGC" bin/vcorfu server --help >/dev/null
echo "cds-check: the server jar starts with its archive"
