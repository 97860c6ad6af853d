#!/usr/bin/env bash
# Summary tables for the result lines written by run-stream-store.sh ("TAG | line" per line).
#
# Usage: benchmarks/summarize-stream-store.sh RESULTS_FILE
#
# Prints markdown. For a --headline run: one table of the headline comparisons, cold and warm side
# by side (vcorfu, the peer, and vcorfu divided by the peer), the command of each row, and the
# per-second load of each vcorfu client. For a full run: tokens (with the peer ratio only where the
# comparison is like for like: one token per request, the same requests in flight, and a note
# where the connection counts differ), appends (vcorfu single node, vcorfu five processes, redis
# XADD, etcd put; a ratio only between measurements with the same clients and connections), reads.
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
function rate(line) { return num(after(line, "=")) }
{
  tag = $1; line = $2
  if (tag == "warmup") next
  if (tag ~ /^load-/) { load[tag] = line; next }
  nt = split(tag, w, " ")
  # --- headline rows: "ID desc", "ID vcorfu-cmd", "ID peer-cmd", "ID vcorfu", "ID redis|etcd cold|warm"
  if (nt >= 2 && (w[2] == "desc" || w[2] == "vcorfu-cmd" || w[2] == "peer-cmd" || (w[2] == "vcorfu" && nt == 2) ||
      ((w[2] == "redis" || w[2] == "etcd") && (w[3] == "cold" || w[3] == "warm")))) {
    id = w[1]
    if (!(id in hseen)) { hseen[id] = 1; hid[++nh] = id }
    if (w[2] == "desc") hdesc[id] = line
    else if (w[2] == "vcorfu-cmd") hvcmd[id] = line
    else if (w[2] == "peer-cmd") hpcmd[id] = line
    else if (w[2] == "vcorfu") {
      if (line ~ /^cold /) { hv["cold", id] = rate(line); hv50["cold", id] = num(after(line, "p50")); hv99["cold", id] = num(after(line, "p99")) }
      else if (line ~ /^timeline /) { sub(/^.*per second of load: */, "", line); htl[id] = line }
      else if (line ~ /^(tokens|append) /) { hv["warm", id] = rate(line); hv50["warm", id] = num(after(line, "p50")); hv99["warm", id] = num(after(line, "p99")) }
      else hnote[id] = hnote[id] " " line
    } else {
      hpeer[id] = w[2]
      hp[w[3], id] = num(after(line, "ops/s:")); hp50[w[3], id] = num(after(line, "p50_ms:")); hp99[w[3], id] = num(after(line, "p99_ms:"))
      hps[w[3], id] = num(after(line, "seconds:"))
    }
    next
  }
  # --- full run
  if (line ~ /^tokens /) {
    key = (line ~ /in-process/ ? "in-process" : "loopback") SUBSEP num(after(line, "threads")) SUBSEP num(after(line, "conns")) SUBSEP \
          num(after(line, "batch")) SUBSEP num(after(line, "pipeline"))
    if (!(key in tok)) tokkeys[++ntok] = key
    tok[key] = rate(line); tok50[key] = num(after(line, "p50")); tok99[key] = num(after(line, "p99"))
  } else if (line ~ /^append threads /) {
    t = num(after(line, "threads")); c = num(after(line, "conns")); k = num(after(line, "streams")); s = num(after(line, "size"))
    key = tag SUBSEP s SUBSEP k SUBSEP t SUBSEP c
    app[key] = rate(line); p50[key] = num(after(line, "p50")); p99[key] = num(after(line, "p99"))
    if (!((s SUBSEP k SUBSEP t SUBSEP c) in seen)) { seen[s SUBSEP k SUBSEP t SUBSEP c] = 1; rows[++nrows] = s SUBSEP k SUBSEP t SUBSEP c }
  } else if (line ~ /^read threads /) {
    reads[++nreads] = tag SUBSEP line
  } else if (line ~ /^redis incr /) {
    p = num(after(line, "pipeline:")); if (p == 0) p = 1
    incr[p] = num(after(line, "ops/s:")); incr50[p] = num(after(line, "p50_ms:")); incr99[p] = num(after(line, "p99_ms:"))
    incrc[p] = num(after(line, "clients:")); if (incrc[p] == 0) incrc[p] = 50
  } else if (line ~ /^redis xadd / || line ~ /^etcd (put|get) /) {
    s = w[3]; t = w[5]
    kind = (line ~ /^redis/) ? "redis" : (line ~ /put/ ? "etcd" : "etcdget")
    c = (kind == "redis") ? t : num(after(line, "conns:"))
    key = kind SUBSEP s SUBSEP t SUBSEP c
    peer[key] = num(after(line, "ops/s:")); p50[key] = num(after(line, "p50_ms:")); p99[key] = num(after(line, "p99_ms:"))
  } else if (line ~ /^redis xrange /) {
    xr[++nxr] = sprintf("| redis XRANGE COUNT %s, %s B, %s clients (%s connections) | %s | %s ms | %s ms |", num(after(line, "batch:")), w[3], w[5], w[5],
                        fmt(num(after(line, "entries/s:"))), ms(num(after(line, "p50_ms:"))), ms(num(after(line, "p99_ms:"))))
  }
}
END {
  print "## Summary"
  print ""
  if ("load-start" in load) print "- start: `" load["load-start"] "`"
  if ("load-end" in load) print "- end: `" load["load-end"] "`"
  print ""
  if (nh > 0) {
    print "### Headline comparisons (each row from fresh servers; cold = first seconds of load of a fresh client, warm = after the warm-up)"
    print ""
    print "| comparison | vcorfu cold | peer cold | ratio cold | vcorfu warm | peer warm | ratio warm | vcorfu warm p50/p99 ms | peer warm p50/p99 ms |"
    print "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    for (i = 1; i <= nh; i++) {
      id = hid[i]
      printf "| %s | %s | %s | %s | %s | %s | %s | %s / %s | %s / %s |\n", hdesc[id],
        fmt(hv["cold", id]), fmt(hp["cold", id]), ratio(hv["cold", id], hp["cold", id]),
        fmt(hv["warm", id]), fmt(hp["warm", id]), ratio(hv["warm", id], hp["warm", id]),
        ms(hv50["warm", id]), ms(hv99["warm", id]), ms(hp50["warm", id]), ms(hp99["warm", id])
    }
    print ""
    print "Commands and peer run lengths:"
    print ""
    for (i = 1; i <= nh; i++) {
      id = hid[i]
      printf "- %s: `%s`; `%s` (peer cold run %.1f s, warm run %.1f s)%s\n", id, hvcmd[id], hpcmd[id], hps["cold", id], hps["warm", id],
        (id in hnote ? "; vcorfu also printed:" hnote[id] : "")
    }
    print ""
    print "vcorfu load per second of each row (cold window first):"
    print ""
    for (i = 1; i <= nh; i++) printf "- %s: %s\n", hid[i], htl[hid[i]]
  }
  if (ntok == 0 && nrows == 0 && nreads == 0) exit 0
  print ""
  print "### Sequencer tokens (warm client)"
  print ""
  print "| measurement | tokens/s | p50/p99 ms per request | peer | peer ops/s | ratio | like for like? |"
  print "|---|---:|---:|---|---:|---:|---|"
  for (i = 1; i <= ntok; i++) {
    split(tokkeys[i], f, SUBSEP); key = tokkeys[i]
    desc = sprintf("vcorfu %s, %s threads, %s connection(s), batch %s, pipeline %s", f[1], f[2], f[3], f[4], f[5])
    pr = ""; r = "-"; why = ""
    if (f[1] == "in-process") why = "no peer: no network, " f[4] " tokens per request"
    else if (f[4] != 1) why = "no peer: " f[4] " tokens per request; INCR hands out one"
    else if (!(f[5] in incr)) why = "no redis run with -P " f[5]
    else {
      pr = incr[f[5]]; r = ratio(tok[key], pr)
      why = (f[2] == incrc[f[5]] && f[3] == incrc[f[5]]) ? "yes" : \
        sprintf("requests in flight equal; connections differ (vcorfu %s, redis %s)", f[3], incrc[f[5]])
    }
    printf "| %s | %s | %s / %s | %s | %s | %s | %s |\n", desc, fmt(tok[key]), ms(tok50[key]), ms(tok99[key]),
      (pr == "" ? "-" : "redis INCR -c " incrc[f[5]] " -P " f[5]), fmt(pr), r, why
  }
  print ""
  print "### Appends (ops/s, p50/p99 ms; ratios only between equal clients and connections)"
  print ""
  print "| size | streams | clients | connections | vcorfu single | p50 | p99 | vcorfu 5-proc | p50 | p99 | redis XADD | p50 | p99 | etcd put | p50 | p99 | single/redis | single/etcd | 5-proc/etcd |"
  print "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for (i = 1; i <= nrows; i++) {
    split(rows[i], f, SUBSEP); s = f[1]; k = f[2]; t = f[3]; c = f[4]
    a = "single" SUBSEP rows[i]; fv = "five" SUBSEP rows[i]
    r = "redis" SUBSEP s SUBSEP t SUBSEP c; e = "etcd" SUBSEP s SUBSEP t SUBSEP c
    printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", s, k, t, c,
      fmt(app[a]), ms(p50[a]), ms(p99[a]), fmt(app[fv]), ms(p50[fv]), ms(p99[fv]),
      fmt(peer[r]), ms(p50[r]), ms(p99[r]), fmt(peer[e]), ms(p50[e]), ms(p99[e]),
      ratio(app[a], peer[r]), ratio(app[a], peer[e]), ratio(app[fv], peer[e])
  }
  print ""
  print "### Reads"
  print ""
  print "| measurement | entries/s | p50 per call | p99 per call |"
  print "|---|---:|---:|---:|"
  for (i = 1; i <= nreads; i++) {
    split(reads[i], rr, SUBSEP); line = rr[2]
    printf "| vcorfu %s: read %s threads (%s connections), %s, batch %s | %s | %s ms | %s ms |\n", rr[1], num(after(line, "threads")),
      num(after(line, "conns")), (line ~ /streams 1 / ? "1 stream" : num(after(line, "streams")) " streams"), num(after(line, "batch")),
      fmt(rate(line)), ms(num(after(line, "p50"))), ms(num(after(line, "p99")))
  }
  for (i = 1; i <= nxr; i++) print xr[i]
  g = "etcdget" SUBSEP 1024 SUBSEP 8 SUBSEP 8
  if (g in peer) print "| etcd get 1 KB, 8 clients, 8 connections (one key, linearizable) | " fmt(peer[g]) " | " ms(p50[g]) " ms | " ms(p99[g]) " ms |"
}' "$1"
