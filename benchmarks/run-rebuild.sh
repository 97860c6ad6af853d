#!/usr/bin/env bash
# Healing, measured on a three-node vcorfu cluster (R = 3) on 127.0.0.1: how fast a replica is
# rebuilt from its chain peers, what foreground appends keep meanwhile, and how long full
# replication takes to come back after `kill -9` and restart of a node holding FILL_MB.
#
# Usage:
#   benchmarks/run-rebuild.sh [--parts rebuild,degraded] [--fill-mb 1024] [--value-size 65536]
#                             [--rebuild-rate-mb 128] [--rebuild-max-p99-ms 20]
#                             [--fg-threads 8] [--fg-size 1024]
#                             [--baseline-s 10] [--fg-lead-s 20] [--workdir DIR]
#                             [--base-port 19600]
#
#   --parts LIST         rebuild (below; the default), timeline (after the rebuild part, or on its
#                        own after the fill: the foreground load runs from 5 s before a kill -9 of
#                        the third node, through its removal, its restart on a wiped directory, the
#                        rebuild and the promotion, to 5 s after; per-second appends and rebuild
#                        progress to WORKDIR/timeline.tsv and, with `bench plot`, timeline.png)
#                        and/or grow (after the fill and the baseline, and after the other
#                        parts: a fourth node is started empty and added with `cluster add-node
#                        --grow` under the foreground load; reported like a rebuild, from the
#                        add-node to the node's promotion, then the foreground's rate on four
#                        nodes for --baseline-s seconds), member (after grow: kill -9 of the
#                        third node, not restarted; the manager rebuilds its chains on the other
#                        three after --member-heal-delay-ms; reported like a rebuild, from the
#                        kill to every chain at R again; three nodes are left), detect (last; the
#                        cluster is not
#                        usable after it: under the foreground load, kill -9 of the third node,
#                        kill to removed; it restarts wiped, and once its copy is under way, kill -9
#                        of the second node, kill to removed: whether failure detection keeps its
#                        pace while a rebuild runs), and/or degraded: `bench degraded` on the fresh
#                        cluster, before any fill: for hole rates 0, 1, 5 and 10%, a stream of 2000
#                        entries with 3 entries of other streams between two of its own, read from
#                        the log by its backpointers (the paper's Figure 9: entries scanned)
#   --fill-mb N          data written before the failure, in MiB (default 1024): durable appends of
#                        --value-size bytes to 32 streams from 8 threads on 8 connections
#   --rebuild-rate-mb N  every node's --rebuild-rate-mb (default 128, the server's default)
#   --member-heal-delay-ms N  every node's --member-heal-delay-ms (default 30000, the server's)
#   --rebuild-max-p99-ms N  every node's --rebuild-max-p99-ms (default 20, the server's default;
#                        0: the copy runs at --rebuild-rate-mb whatever the foreground's latency)
#   --fg-threads T       the foreground load: `bench append --threads T --conns T --size
#                        --fg-size --streams 32` (default 8 threads, 1 KiB values)
#   --baseline-s S       seconds of foreground load measured before the failure (default 10)
#   --fg-lead-s S        seconds the foreground client runs before anything is measured: before
#                        the baseline's S seconds, and before each restart (heal), add-node (grow)
#                        or kill (member), so that both sides of the fraction come from a client
#                        whose JIT has warmed up (default 20)
#
# The run: fill; foreground baseline (S seconds, after --fg-lead-s of warm-up); `kill -9` of the
# third node (not the sequencer) and wait until it is removed; then two cases, each with the
# foreground load running from --fg-lead-s before the restart until full strength is back:
#   wiped   its data directory is deleted and it restarts empty: a rebuild copies everything
#   kept    killed again, removed again, restarted on its data: it copies only what it missed
# For each: time from restart to full strength (no rebuilding replica, no chain short of R), the
# slots and bytes copied and the copy rate (from `cluster status --output json`, sampled every
# 0.5 s), and foreground appends per second meanwhile as a fraction of the baseline. A per-second
# timeline of the wiped case goes to WORKDIR/timeline.tsv.
#
# Every process this script starts is recorded by PID and stopped by that PID only.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
# shellcheck source=peers/lib.sh
source "$here/peers/lib.sh"
# shellcheck source=vcorfu-node.sh
source "$here/vcorfu-node.sh"

usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}

parts=rebuild
fill_mb=1024
value_size=65536
rebuild_rate_mb=128
rebuild_max_p99_ms=20
member_heal_delay_ms=30000
fg_threads=8
fg_size=1024
baseline_s=10
fg_lead_s=20
workdir=""
base_port=19600
while (($#)); do
  case "$1" in
    --parts) parts=$2; shift 2 ;;
    --fill-mb) fill_mb=$2; shift 2 ;;
    --value-size) value_size=$2; shift 2 ;;
    --rebuild-rate-mb) rebuild_rate_mb=$2; shift 2 ;;
    --rebuild-max-p99-ms) rebuild_max_p99_ms=$2; shift 2 ;;
    --member-heal-delay-ms) member_heal_delay_ms=$2; shift 2 ;;
    --fg-threads) fg_threads=$2; shift 2 ;;
    --fg-size) fg_size=$2; shift 2 ;;
    --baseline-s) baseline_s=$2; shift 2 ;;
    --fg-lead-s) fg_lead_s=$2; shift 2 ;;
    --workdir) workdir=$2; shift 2 ;;
    --base-port) base_port=$2; shift 2 ;;
    -h | --help) usage ;;
    *) echo "unknown option: $1" >&2; usage ;;
  esac
done
[[ "$rebuild_max_p99_ms" =~ ^[0-9]+$ ]] ||
  peers_die "--rebuild-max-p99-ms must be a whole number, got '$rebuild_max_p99_ms'"
for v in fill_mb value_size rebuild_rate_mb member_heal_delay_ms fg_threads fg_size baseline_s \
  fg_lead_s base_port; do
  peers_require_uint "--${v//_/-}" "${!v}"
done

own_workdir=false
if [[ -z "$workdir" ]]; then
  workdir=$(mktemp -d /tmp/vcorfu-rebuild.XXXXXX)
  own_workdir=true
fi
mkdir -p "$workdir"
jar=$root/benchmarks/target/vcorfu-all.jar
vcorfu_build_jar "$root" "$jar"
java_opts=(-XX:+UseParallelGC)
cli=(java "${java_opts[@]}" -cp "$jar" io.vcorfu.server.cli.VcorfuCli)
bench=(java "${java_opts[@]}" -cp "$jar" io.vcorfu.benchmarks.BenchCli)
host=127.0.0.1
zk=$host:$base_port
ports=($((base_port + 1)) $((base_port + 2)) $((base_port + 3)) $((base_port + 4)))
endpoints=$host:${ports[0]},$host:${ports[1]},$host:${ports[2]}
victim=$host:${ports[2]}
bench_pid=""

start_node() {
  local i=$1
  vcorfu_launch_node "$workdir/n$i" "${ports[$i]}" "${java_opts[@]}" -Xmx2g -cp "$jar" -- \
    --data-dir "$workdir/n$i/data" --zookeeper "$zk" --cluster rebuild \
    --rebuild-rate-mb "$rebuild_rate_mb" --rebuild-max-p99-ms "$rebuild_max_p99_ms" \
    --member-heal-delay-ms "$member_heal_delay_ms"
}

stop_bench() {
  local pid=$bench_pid
  bench_pid=""
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

cleanup() {
  local IFS=$' \t\n' i
  stop_bench
  [[ -n "$watch_pid" ]] && kill -TERM "$watch_pid" 2>/dev/null && wait "$watch_pid" 2>/dev/null || true
  for i in 0 1 2 3; do
    [[ -f "$workdir/n$i/server.pid" ]] || continue
    peers_stop "$workdir/n$i/server.pid" "vcorfu n$i" >/dev/null 2>&1 || true
  done
  peers_stop "$workdir/zk/server.pid" zookeeper >/dev/null 2>&1 || true
  if [[ "$own_workdir" == true ]]; then rm -rf "$workdir"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now() { date +%s.%N; }

# One `cluster status --watch-ms 250 --output json` process samples the cluster for the whole run
# (one JVM, not one per sample, so that sampling does not eat the foreground's CPU).
watch_pid=""
watch_start() {
  "${cli[@]}" cluster status --endpoint "$endpoints" --output json --watch-ms 250 \
    >"$workdir/status.jsonl" 2>"$workdir/status.err" &
  watch_pid=$!
}

# status_json: the cluster's latest sampled status as JSON (empty before the first sample); waits
# for a sample newer than the call.
status_json() {
  local n
  n=$(wc -l <"$workdir/status.jsonl" 2>/dev/null || echo 0)
  for ((j = 0; j < 40; j++)); do
    (($(wc -l <"$workdir/status.jsonl") > n)) && break
    sleep 0.05
  done
  tail -n 1 "$workdir/status.jsonl"
}

# healthy JSON: true when no node rebuilds, none is removed and no chain is short.
healthy() {
  python3 -c 'import json,sys
s=json.loads(sys.stdin.read() or "{}")
l=s.get("layout",{})
ok = bool(l) and not l.get("rebuilding") and not l.get("removed") and not s.get("underReplicated")
sys.exit(0 if ok else 1)'
}

# removed JSON NODE: true when NODE is listed as removed.
removed() {
  python3 -c 'import json,sys
s=json.loads(sys.stdin.read() or "{}")
sys.exit(0 if sys.argv[1] in s.get("layout",{}).get("removed",[]) else 1)' "$1"
}

# progress JSON NODE: "copied bytes" of NODE's rebuild, or nothing.
progress() {
  python3 -c 'import json,sys
s=json.loads(sys.stdin.read() or "{}")
for n in s.get("nodes",[]):
  if n["endpoint"]==sys.argv[1] and "rebuild" in n:
    r=n["rebuild"]; print(r["entriesCopied"], r["bytesCopied"], r["done"])' "$1"
}

kill_victim_and_await_removal() {
  kill_and_await_removal 2 >/dev/null
}

# kill_and_await_removal I: kill -9 node I and wait until the layout lists it removed; prints the
# milliseconds from the kill to the first status sample that shows it removed.
kill_and_await_removal() {
  local i=$1 pid exe node t_kill
  node=$host:${ports[$i]}
  IFS=" " read -r pid exe <"$workdir/n$i/server.pid"
  peers_log "kill -9 $node (pid $pid)"
  t_kill=$(now)
  kill -9 "$pid"
  for ((j = 0; j < 600; j++)); do
    if status_json | removed "$node"; then
      python3 -c "print(round(($(now) - $t_kill) * 1000))"
      return 0
    fi
    sleep 0.05
  done
  peers_die "$node was not removed within 60 s"
}

# detect: failure detection with and without a rebuild running. kill -9 of the third node on the
# loaded, filled cluster (kill to removed); then it restarts wiped and, once its copy is under way
# (at whatever rate the nodes' --rebuild-max-p99-ms allows), kill -9 of the second node (kill to
# removed). Both under the foreground load; one result line.
detect() {
  local idle busy s p
  foreground 600 "$workdir/fg-detect.log"
  sleep 2
  idle=$(kill_and_await_removal 2)
  rm -rf "$workdir/n2/data"
  start_node 2
  for ((j = 0; j < 1200; j++)); do
    s=$(status_json)
    p=$(progress "$victim" <<<"$s")
    if [[ -n "$p" ]]; then
      read -r c b d <<<"$p"
      ((c > 1000)) && [[ "$d" != True ]] && break
    fi
    sleep 0.1
  done
  [[ -n "$p" && "$d" != True ]] || peers_die "no copy under way to measure against"
  busy=$(kill_and_await_removal 1)
  stop_bench
  echo "detect kill_to_removed_ms_no_rebuild $idle kill_to_removed_ms_during_rebuild $busy" \
    "rebuild_progress_at_kill $p"
}

# foreground SECONDS LOG: start the foreground load in the background (progress lines to LOG).
foreground() {
  "${bench[@]}" append --endpoint "$endpoints" --threads "$fg_threads" --conns "$fg_threads" \
    --size "$fg_size" --streams 32 --prefix fg --duration "$1" --ack-log /dev/null >"$2" 2>&1 &
  bench_pid=$!
}

# heal CASE: restart the victim (its directory deleted first for "wiped"), foreground load on,
# sample the status until full strength; prints one result line.
heal() {
  local case=$1 t0 t_full="" t_first="" t_done="" copied=0 bytes=0 p s
  if [[ "$case" == wiped ]]; then rm -rf "$workdir/n2/data"; fi
  foreground 600 "$workdir/fg-$case.log"
  sleep "$fg_lead_s"
  t0=$(now)
  start_node 2
  : >"$workdir/samples-$case.tsv"
  for ((i = 0; i < 7200; i++)); do
    s=$(status_json)
    p=$(progress "$victim" <<<"$s")
    if [[ -n "$p" ]]; then
      read -r c b d <<<"$p"
      [[ -z "$t_first" && "$c" != 0 ]] && t_first=$(now)
      if ((c >= copied)); then copied=$c; bytes=$b; fi
      [[ "$d" == True && -z "$t_done" ]] && t_done=$(now)
      printf '%s\t%s\t%s\n' "$(now)" "$c" "$b" >>"$workdir/samples-$case.tsv"
    fi
    if healthy <<<"$s"; then t_full=$(now); break; fi
    sleep 0.5
  done
  stop_bench
  [[ -n "$t_full" ]] || peers_die "full strength did not come back within an hour ($case)"
  summarize "$case" "$t0" "$t_first" "$t_done" "$t_full" "$copied" "$bytes"
}

# summarize CASE T0 T_FIRST_COPY T_COPY_DONE T_FULL COPIED BYTES: the result line of a rebuild
# (or growth) whose foreground load started --fg-lead-s before T0 and logged to WORKDIR/fg-CASE.log.
summarize() {
  local case=$1 t0=$2 t_first=$3 t_done=$4 t_full=$5 copied=$6 bytes=$7
  [[ -n "$t_done" ]] || t_done=$t_full
  [[ -n "$t_first" ]] || t_first=$t0
  python3 - "$case" "$t0" "$t_first" "$t_done" "$t_full" "$copied" "$bytes" "$baseline" \
    "$baseline_p99" "$workdir/fg-$case.log" "$fg_lead_s" <<'EOF'
import sys
case, t0, t1, td, tf, copied, nbytes, base, base_p99, log, lead = sys.argv[1:]
lead = int(lead)
t0, t1, td, tf, copied, nbytes, base = map(float, (t0, t1, td, tf, copied, nbytes, base))
acks, p99s = [], []
for line in open(log):
    f = line.split()
    if f and f[0] == "progress":
        acks.append(float(f[3]))
        p99s.append(float(f[9]) if len(f) > 9 and f[9] != "-" else None)
# The load started LEAD s before the restart; count the seconds between restart and full strength.
n = max(1, int(round(tf - t0)))
window = acks[lead:lead + n]
fg = sum(window) / len(window) if window else 0.0
# The seconds of the copy itself (first entry copied to copy done), by the same clock.
c0 = lead + max(0, int(round(t1 - t0)))
c1 = lead + max(0, int(round(td - t0)))
copying = acks[c0:max(c0 + 1, c1)]
fg_copy = sum(copying) / len(copying) if copying else 0.0
seconds_p99 = sorted(p for p in p99s[lead:lead + n] if p is not None)
p99_median = seconds_p99[len(seconds_p99) // 2] if seconds_p99 else float("nan")
p99_worst = seconds_p99[-1] if seconds_p99 else float("nan")
copy_s = max(td - t1, 1e-3)
print("rebuild %s restart_to_full_s %.2f copied_slots %d copied_mb %.1f copy_mb_s %.1f "
      "copy_slots_s %.0f foreground_appends_s %.0f baseline_appends_s %.0f fraction %.2f "
      "foreground_during_copy_appends_s %.0f fraction_during_copy %.2f "
      "p99_ms_median_second %.1f p99_ms_worst_second %.1f baseline_p99_ms %s" % (
      case, tf - t0, copied, nbytes / 1048576, nbytes / 1048576 / copy_s, copied / copy_s,
      fg, base, fg / base if base else 0, fg_copy, fg_copy / base if base else 0,
      p99_median, p99_worst, base_p99))
EOF
}

# grow: a fourth node, empty, added with `cluster add-node --grow` under the foreground load;
# sampled until it is a full member and nothing rebuilds; one result line "rebuild grow ...",
# between the foreground's rate on three nodes just before and on four nodes just after (each
# --baseline-s seconds after 5 s of warm-up).
grow() {
  local fresh=$host:${ports[3]} t0 t_full="" t_first="" t_done="" copied=0 bytes=0 p s line
  # Three nodes again, just before, with the same settings as the four-node figure after.
  line=$("${bench[@]}" append --endpoint "$endpoints" --threads "$fg_threads" \
    --conns "$fg_threads" --size "$fg_size" --streams 32 --prefix fg --warmup "$fg_lead_s" \
    --duration "$baseline_s" | grep 'appends/s')
  echo "three nodes: $line"
  start_node 3
  vcorfu_await_ready "$workdir/n3"
  foreground 600 "$workdir/fg-grow.log"
  sleep "$fg_lead_s"
  t0=$(now)
  peers_log "cluster add-node --grow $fresh"
  "${cli[@]}" cluster add-node --endpoint "$endpoints" --grow "$fresh" >&2
  for ((i = 0; i < 7200; i++)); do
    s=$(status_json)
    p=$(progress "$fresh" <<<"$s")
    if [[ -n "$p" ]]; then
      read -r c b d <<<"$p"
      [[ -z "$t_first" && "$c" != 0 ]] && t_first=$(now)
      if ((c >= copied)); then copied=$c; bytes=$b; fi
      [[ "$d" == True && -z "$t_done" ]] && t_done=$(now)
    fi
    if member "$fresh" <<<"$s" && healthy <<<"$s"; then t_full=$(now); break; fi
    sleep 0.5
  done
  stop_bench
  [[ -n "$t_full" ]] || peers_die "$fresh was not a full member within an hour"
  summarize grow "$t0" "$t_first" "$t_done" "$t_full" "$copied" "$bytes"
  line=$("${bench[@]}" append --endpoint "$endpoints" --threads "$fg_threads" \
    --conns "$fg_threads" --size "$fg_size" --streams 32 --prefix fg --warmup "$fg_lead_s" \
    --duration "$baseline_s" | grep 'appends/s')
  echo "four nodes: $line"
}

# member_heal: kill -9 of the third node of the grown four-node cluster, under the foreground load,
# not restarted: after --member-heal-delay-ms the manager joins the other nodes, one at a time, to
# the chains it left short; sampled until every chain has R replicas and nothing rebuilds. One
# result line "rebuild member ..." (measured from the kill; copied slots and bytes summed over the
# nodes that rebuilt), then the delay and kill-to-removed for scale.
member_heal() {
  local t0 t_full="" t_first="" s removed_ms node c b
  local -A most_c=() most_b=()
  foreground 900 "$workdir/fg-member.log"
  sleep "$fg_lead_s"
  t0=$(now)
  removed_ms=$(kill_and_await_removal 2)
  for ((i = 0; i < 7200; i++)); do
    s=$(status_json)
    while read -r node c b; do
      [[ -n "$node" ]] || continue
      [[ -z "$t_first" && "$c" != 0 ]] && t_first=$(now)
      if ((c >= ${most_c[$node]:-0})); then most_c[$node]=$c; most_b[$node]=$b; fi
    done < <(rebuilds <<<"$s")
    if strong "$victim" <<<"$s"; then t_full=$(now); break; fi
    sleep 0.5
  done
  stop_bench
  [[ -n "$t_full" ]] || peers_die "the chains of $victim were not restored within an hour"
  c=0
  b=0
  for node in "${!most_c[@]}"; do
    c=$((c + most_c[$node]))
    b=$((b + most_b[$node]))
  done
  summarize member "$t0" "$t_first" "$t_full" "$t_full" "$c" "$b"
  echo "member kill_to_removed_ms $removed_ms member_heal_delay_ms $member_heal_delay_ms" \
    "rebuilt_by ${!most_c[*]}"
}

# rebuilds JSON: "node copied bytes" for every node with a rebuild under way or just done.
rebuilds() {
  python3 -c 'import json,sys
s=json.loads(sys.stdin.read() or "{}")
for n in s.get("nodes",[]):
  if "rebuild" in n:
    r=n["rebuild"]; print(n["endpoint"], r["entriesCopied"], r["bytesCopied"])'
}

# strong JSON NODE: true when NODE is removed, nothing rebuilds and no chain is short of R.
strong() {
  python3 -c 'import json,sys
s=json.loads(sys.stdin.read() or "{}")
l=s.get("layout",{})
ok = bool(l) and sys.argv[1] in l.get("removed",[]) and not l.get("rebuilding") \
  and not s.get("underReplicated")
sys.exit(0 if ok else 1)' "$1"
}

# member JSON NODE: true when NODE is in a chain of the layout and not rebuilding.
member() {
  python3 -c 'import json,sys
s=json.loads(sys.stdin.read() or "{}")
l=s.get("layout",{})
inchain=any(sys.argv[1] in c for seg in l.get("segments",[]) for c in seg.get("log",[])+seg.get("stream",[]))
sys.exit(0 if inchain and sys.argv[1] not in l.get("rebuilding",{}) else 1)' "$1"
}

peers_log "workdir $workdir"
vcorfu_start_zookeeper "$workdir/zk" "$base_port" "${java_opts[@]}" -cp "$jar"
for i in 0 1 2; do start_node "$i"; done
for i in 0 1 2; do vcorfu_await_ready "$workdir/n$i"; done
"${cli[@]}" cluster init --zookeeper "$zk" --cluster rebuild --nodes "$endpoints" >&2
watch_start

if [[ ",$parts," == *",degraded,"* ]]; then
  peers_log "degraded reads"
  "${bench[@]}" degraded --endpoint "$endpoints"
fi
[[ ",$parts," =~ ,(rebuild|timeline|grow|member|detect), ]] || exit 0

peers_log "filling ${fill_mb} MiB with ${value_size}-byte values"
"${bench[@]}" append --endpoint "$endpoints" --threads 8 --conns 8 --size "$value_size" \
  --streams 32 --prefix fill --duration 3600 --ack-log /dev/null >"$workdir/fill.log" 2>&1 &
bench_pid=$!
t_fill=$(now)
while :; do
  mb=$(du -sm "$workdir/n2/data" | cut -f1)
  ((mb >= fill_mb)) && break
  kill -0 "$bench_pid" 2>/dev/null || { cat "$workdir/fill.log" >&2; peers_die "the fill stopped"; }
  sleep 1
done
stop_bench
peers_log "filled ${mb} MiB per node in $(python3 -c "print(round($(now) - $t_fill))") s"

peers_log "foreground baseline: ${baseline_s} s after ${fg_lead_s} s of warm-up"
baseline_line=$("${bench[@]}" append --endpoint "$endpoints" --threads "$fg_threads" \
  --conns "$fg_threads" --size "$fg_size" --streams 32 --prefix fg --warmup "$fg_lead_s" \
  --duration "$baseline_s" | grep 'appends/s')
baseline=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /\/s$/) { print $(i-1); exit } }' <<<"$baseline_line")
baseline_p99=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "p99") { print $(i+1); exit } }' <<<"$baseline_line")
[[ -n "$baseline" ]] || peers_die "no baseline figure"
echo "baseline foreground appends_s $baseline p99_ms $baseline_p99 (threads $fg_threads, ${fg_size} B values)"

if [[ ",$parts," == *",rebuild,"* ]]; then
  kill_victim_and_await_removal
  heal wiped
  kill_victim_and_await_removal
  heal kept
fi
if [[ ",$parts," == *",grow,"* ]]; then
  grow
fi
if [[ ",$parts," == *",member,"* ]]; then
  [[ ",$parts," == *",grow,"* ]] || peers_die "--parts member needs grow first (four nodes)"
  member_heal
fi
if [[ ",$parts," == *",detect,"* ]]; then
  detect
  exit 0
fi
[[ ",$parts," == *",timeline,"* ]] || exit 0

# The timeline: one foreground run across failure, removal, wiped restart, rebuild, promotion.
peers_log "timeline: foreground load across kill -9, removal, wiped restart, rebuild, promotion"
foreground 3600 "$workdir/fg-timeline.log"
t_start=$(now)
sleep 5
events=()
IFS=" " read -r pid exe <"$workdir/n2/server.pid"
kill -9 "$pid"
events+=("$(now) kill")
until status_json | removed "$victim"; do sleep 0.1; done
events+=("$(now) removed")
rm -rf "$workdir/n2/data"
start_node 2
events+=("$(now) restart")
: >"$workdir/samples-timeline.tsv"
seen_copy=false
seen_done=false
for ((i = 0; i < 7200; i++)); do
  s=$(status_json)
  p=$(progress "$victim" <<<"$s")
  if [[ -n "$p" ]]; then
    read -r c b d <<<"$p"
    printf '%s\t%s\t%s\n' "$(now)" "$c" "$b" >>"$workdir/samples-timeline.tsv"
    if [[ $seen_copy == false && "$c" != 0 ]]; then events+=("$(now) copying"); seen_copy=true; fi
    if [[ $seen_done == false && "$d" == True ]]; then events+=("$(now) copied"); seen_done=true; fi
  fi
  if healthy <<<"$s"; then events+=("$(now) promoted"); break; fi
  sleep 0.5
done
sleep 5
stop_bench
printf '%s\n' "${events[@]}" >"$workdir/events.txt"
python3 - "$t_start" "$workdir/fg-timeline.log" "$workdir/samples-timeline.tsv" \
  "$workdir/events.txt" "$workdir/timeline.tsv" <<'EOF'
import sys
t_start, fg, samples, events, out = sys.argv[1:]
t_start = float(t_start)
prog = [l.split() for l in open(fg) if l.startswith("progress ")]
acks = [float(f[3]) for f in prog]
p99 = [f[9] if len(f) > 9 else "-" for f in prog]
mb = {}
for line in open(samples):
    t, c, b = line.split()
    mb[int(float(t) - t_start)] = float(b) / 1048576
ev = {}
for line in open(events):
    t, name = line.split()
    ev.setdefault(int(float(t) - t_start), []).append(name)
last = 0.0
with open(out, "w") as f:
    f.write("second\tappends\trebuild_mib\tevent\tp99_ms\n")
    for sec, a in enumerate(acks):
        last = mb.get(sec, last)
        f.write("%d\t%d\t%.1f\t%s\t%s\n" % (sec + 1, a, last, ",".join(ev.get(sec, [])), p99[sec]))
EOF
cat "$workdir/timeline.tsv"
"${bench[@]}" plot --input "$workdir/timeline.tsv" --output "$workdir/timeline.png" >&2 &&
  peers_log "plot: $workdir/timeline.png"
