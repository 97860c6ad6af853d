#!/usr/bin/env bash
# Summary tables for the result lines written by run-stream-store.sh ("TAG | line" per line).
#
# Usage: benchmarks/summarize-stream-store.sh RESULTS_FILE
#
# Prints markdown tables: tokens, appends (vcorfu single node, vcorfu five processes, redis XADD,
# etcd put, with ratios), reads, and the two targets with MET / MISSED.
set -euo pipefail
[[ $# -eq 1 && -f "$1" ]] || { echo "usage: $0 RESULTS_FILE" >&2; exit 2; }

awk -F' [|] ' '
function num(s) { gsub(/[^0-9.]/, "", s); return s + 0 }
# after(line, word): the field that follows the first occurrence of word (space separated).
function after(line, word,   n, a, i) {
  n = split(line, a, " ")
  for (i = 1; i < n; i++) if (a[i] == word) return a[i + 1]
  return ""
}
function fmt(v) { return v == "" ? "-" : sprintf("%.0f", v) }
function ms(v) { return v == "" ? "-" : sprintf("%.2f", v) }
function ratio(a, b) { return (a == "" || b == "" || b == 0) ? "-" : sprintf("%.2f", a / b) }
{
  tag = $1; line = $2
  if (tag == "warmup") next
  if (line ~ /^tokens /) {
    rate = num(after(line, "=")); b = num(after(line, "batch")); th = num(after(line, "threads"))
    where = (line ~ /in-process/) ? "in-process" : "loopback"
    tok[where ", " th " thread(s), batch " b] = rate
  } else if (line ~ /^append threads /) {
    t = num(after(line, "threads")); k = num(after(line, "streams")); s = num(after(line, "size"))
    key = tag SUBSEP s SUBSEP k SUBSEP t
    app[key] = num(after(line, "=")); p50[key] = num(after(line, "p50")); p99[key] = num(after(line, "p99"))
    if (tag == "single") { seen[s SUBSEP k SUBSEP t] = 1 }
  } else if (line ~ /^read threads /) {
    reads[++nreads] = tag SUBSEP line
  } else if (line ~ /^redis incr /) {
    incr = num(after(line, "ops/s:")); incr50 = num(after(line, "p50_ms:")); incr99 = num(after(line, "p99_ms:"))
  } else if (line ~ /^redis xadd / || line ~ /^etcd (put|get) /) {
    split(tag, w, " "); s = w[3]; t = w[5]
    kind = (line ~ /^redis/) ? "redis" : (line ~ /put/ ? "etcd" : "etcdget")
    key = kind SUBSEP s SUBSEP t
    peer[key] = num(after(line, "ops/s:")); p50[key] = num(after(line, "p50_ms:")); p99[key] = num(after(line, "p99_ms:"))
  } else if (line ~ /^redis xrange /) {
    split(tag, w, " ")
    xr[++nxr] = sprintf("| redis XRANGE COUNT %s, %s B, %s clients | %s | %s ms | %s ms |", num(after(line, "batch:")), w[3], w[5],
                        fmt(num(after(line, "entries/s:"))), ms(num(after(line, "p50_ms:"))), ms(num(after(line, "p99_ms:"))))
  } else if (tag ~ /^load-/) {
    load[tag] = line
  }
}
END {
  print "## Summary"
  print ""
  if ("load-start" in load) print "- load at start: `" load["load-start"] "`"
  if ("load-end" in load) print "- load at end: `" load["load-end"] "`"
  print ""
  print "### Sequencer tokens"
  print ""
  print "| measurement (pipeline 32 requests per thread) | tokens/s | vs redis INCR -c 50 |"
  print "|---|---:|---:|"
  for (k in tok) print "| vcorfu " k " | " fmt(tok[k]) " | " ratio(tok[k], incr) " |"
  print "| redis INCR -c 50 (ops/s; p50 " ms(incr50) " ms, p99 " ms(incr99) " ms) | " fmt(incr) " | 1.00 |"
  print ""
  print "### Appends (ops/s, p50/p99 ms)"
  print ""
  print "| size | streams | clients | vcorfu single | p50 | p99 | vcorfu 5-proc | p50 | p99 | redis XADD | p50 | p99 | etcd put | p50 | p99 | single/redis | single/etcd | 5-proc/etcd |"
  print "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  nsizes = split("32 1024 4096", S, " "); nks = split("1 32 1000", K, " "); nts = split("1 8 50", T, " ")
  for (i = 1; i <= nsizes; i++) for (j = 1; j <= nks; j++) for (l = 1; l <= nts; l++) {
    s = S[i]; k = K[j]; t = T[l]
    if (!((s SUBSEP k SUBSEP t) in seen)) continue
    a = "single" SUBSEP s SUBSEP k SUBSEP t; f = "five" SUBSEP s SUBSEP k SUBSEP t
    r = "redis" SUBSEP s SUBSEP t; e = "etcd" SUBSEP s SUBSEP t
    printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", s, k, t,
      fmt(app[a]), ms(p50[a]), ms(p99[a]), fmt(app[f]), ms(p50[f]), ms(p99[f]),
      fmt(peer[r]), ms(p50[r]), ms(p99[r]), fmt(peer[e]), ms(p50[e]), ms(p99[e]),
      ratio(app[a], peer[r]), ratio(app[a], peer[e]), ratio(app[f], peer[e])
  }
  print ""
  print "### Reads"
  print ""
  print "| measurement | entries/s | p50 per call | p99 per call |"
  print "|---|---:|---:|---:|"
  for (i = 1; i <= nreads; i++) {
    split(reads[i], rr, SUBSEP); line = rr[2]
    printf "| vcorfu %s: read %s threads, %s, batch %s | %s | %s ms | %s ms |\n", rr[1], num(after(line, "threads")),
      (line ~ /streams 1 / ? "1 stream" : num(after(line, "streams")) " streams"), num(after(line, "batch")),
      fmt(num(after(line, "="))), ms(num(after(line, "p50"))), ms(num(after(line, "p99")))
  }
  for (i = 1; i <= nxr; i++) print xr[i]
  g = "etcdget" SUBSEP 1024 SUBSEP 8
  if (g in peer) print "| etcd get 1 KB, 8 clients (one key, linearizable) | " fmt(peer[g]) " | " ms(p50[g]) " ms | " ms(p99[g]) " ms |"
  print ""
  print "### Targets"
  print ""
  best = ""; bestk = ""
  for (k in tok) if (k ~ /^loopback/ && (best == "" || tok[k] > best)) { best = tok[k]; bestk = k }
  rt = ratio(best, incr)
  printf "- sequencer tokens/s (vcorfu %s) / redis INCR -c 50 = %s / %s = %s (target >= 2): %s\n", bestk, fmt(best), fmt(incr), rt,
    (rt == "-" ? "NOT MEASURED" : (rt + 0 >= 2 ? "MET" : "MISSED"))
  for (l = 2; l <= 3; l++) {
    t = T[l]; a = "single" SUBSEP 1024 SUBSEP 32 SUBSEP t; e = "etcd" SUBSEP 1024 SUBSEP t
    re = ratio(app[a], peer[e])
    printf "- durable 1 KB appends, %s clients: vcorfu single node / etcd put = %s / %s = %s (target >= 2): %s\n", t, fmt(app[a]), fmt(peer[e]), re,
      (re == "-" ? "NOT MEASURED" : (re + 0 >= 2 ? "MET" : "MISSED"))
  }
}' "$1"
