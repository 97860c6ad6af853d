#!/usr/bin/env bash
# Prints the test classes that took longest in the last build (from the surefire reports under every
# module's target/), slowest first, and the total: where to look when the suite grows slow. Then,
# where a module records it (target/test-cpu/, the server's ClassCpuListener), the classes that cost
# the most processor time, their own and their child processes': on two processors shared by several
# test forks, that is what the suite's length follows; a class that mostly waits costs the others
# little. Those records accumulate over runs until the module's target/ is cleaned (CI's clone is
# fresh).
# Usage: .ci/slowest.sh [N]   (N classes, default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10}
[[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "usage: .ci/slowest.sh [N], N a positive number of classes" >&2; exit 2; }
shopt -s nullglob
reports=(*/target/surefire-reports/TEST-*.xml)
if ((${#reports[@]} == 0)); then
  echo "no surefire reports under */target/surefire-reports: run the tests first" >&2
  exit 1
fi
# The testsuite element's name and time attributes, one "seconds class" line per report.
for f in "${reports[@]}"; do
  grep -m1 -o '<testsuite [^>]*' "$f" |
    sed -E 's/.* name="([^"]*)".* time="([^"]*)".*/\2 \1/'
done | sort -rn | awk -v n="$n" '
  { total += $1; if (NR <= n) lines[NR] = sprintf("%8.1f s  %s", $1, $2) }
  END {
    printf "The %d slowest test classes (of %d, %.0f s in all, summed over forks):\n", (NR < n ? NR : n), NR, total
    for (i = 1; i <= n && i <= NR; i++) print lines[i]
  }'

cpu=(*/target/test-cpu/*.tsv)
if ((${#cpu[@]} > 0)); then
  cat "${cpu[@]}" | sort -rn | awk -v n="$n" '
    { total += $1; wall += $2; if (NR <= n) lines[NR] = sprintf("%8.1f s  (%5.1f s wall)  %s", $1, $2, $3) }
    END {
      printf "The %d test classes that cost the most processor time (of %d, %.0f processor-seconds in all, %.0f s of wall time summed over forks):\n", (NR < n ? NR : n), NR, total, wall
      for (i = 1; i <= n && i <= NR; i++) print lines[i]
    }'
fi
