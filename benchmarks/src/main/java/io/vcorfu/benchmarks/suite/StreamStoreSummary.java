package io.vcorfu.benchmarks.suite;

import static io.vcorfu.benchmarks.suite.StreamStoreFigures.fmtOf;
import static io.vcorfu.benchmarks.suite.StreamStoreFigures.keyOf;
import static io.vcorfu.benchmarks.suite.StreamStoreFigures.msOf;
import static io.vcorfu.benchmarks.suite.StreamStoreFigures.num;
import static io.vcorfu.benchmarks.suite.StreamStoreFigures.ratioOf;
import static io.vcorfu.benchmarks.suite.StreamStoreFigures.str;

import java.util.List;
import java.util.Locale;

/**
 * The markdown summary of {@code vcorfu bench suite stream-store} made from its result lines ("TAG
 * | line" each), as the former summarize-stream-store.sh printed it: for a --headline run one table
 * of the headline comparisons, cold and warm side by side, the command of each row and the
 * per-second load of each vcorfu client; for a full run tokens (a peer ratio only where like for
 * like), appends (vcorfu single node and five processes, redis XADD, etcd put; a ratio only between
 * equal clients and connections) and reads. Pure.
 */
final class StreamStoreSummary {
  private StreamStoreSummary() {}

  static String of(List<String> resultLines) {
    StreamStoreFigures s = StreamStoreFigures.of(resultLines);
    StringBuilder out = new StringBuilder("## Summary\n\n");
    if (s.load("load-start") != null) {
      out.append("- start: `").append(s.load("load-start")).append("`\n");
    }
    if (s.load("load-end") != null) {
      out.append("- end: `").append(s.load("load-end")).append("`\n");
    }
    out.append('\n');
    if (!s.headlineIds().isEmpty()) {
      headline(s, out);
    }
    if (s.fullRun()) {
      full(s, out);
    }
    return out.toString();
  }

  private static void headline(StreamStoreFigures s, StringBuilder out) {
    out.append(
        "### Headline comparisons (each row from fresh servers; cold = first seconds of load of a"
            + " fresh client, warm = after the warm-up)\n\n");
    out.append(
        "| comparison | vcorfu cold | peer cold | ratio cold | vcorfu warm | peer warm | ratio warm"
            + " | vcorfu warm p50/p99 ms | peer warm p50/p99 ms |\n");
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (String id : s.headlineIds()) {
      out.append(
          String.format(
              "| %s | %s | %s | %s | %s | %s | %s | %s / %s | %s / %s |\n",
              s.text("desc", id),
              fmtOf(s.figure("hv", "cold", id)),
              fmtOf(s.figure("hp", "cold", id)),
              ratioOf(s.figure("hv", "cold", id), s.figure("hp", "cold", id)),
              fmtOf(s.figure("hv", "warm", id)),
              fmtOf(s.figure("hp", "warm", id)),
              ratioOf(s.figure("hv", "warm", id), s.figure("hp", "warm", id)),
              msOf(s.figure("hv50", "warm", id)),
              msOf(s.figure("hv99", "warm", id)),
              msOf(s.figure("hp50", "warm", id)),
              msOf(s.figure("hp99", "warm", id))));
    }
    costs(s, out);
    out.append("\nCommands and peer run lengths:\n\n");
    for (String id : s.headlineIds()) {
      out.append(
          String.format(
              "- %s: `%s`%s; `%s` (peer cold run %s s, warm run %s s)%s\n",
              id,
              s.text("vcorfu-cmd", id),
              s.hasText("node-flags", id)
                  ? " against a node started with `" + s.text("node-flags", id) + "`"
                  : "",
              s.text("peer-cmd", id),
              oneDecimal(s.figure("hps", "cold", id)),
              oneDecimal(s.figure("hps", "warm", id)),
              s.hasText("note", id) ? "; vcorfu also printed:" + s.text("note", id) : ""));
    }
    out.append("\nvcorfu load per second of each row (cold window first):\n\n");
    for (String id : s.headlineIds()) {
      out.append("- ").append(id).append(": ").append(s.text("timeline", id)).append('\n');
    }
  }

  /** What each warm append cost the machine, on both sides, for the rows that measured it. */
  private static void costs(StreamStoreFigures s, StringBuilder out) {
    List<String> ids = s.headlineIds().stream().filter(id -> s.hasText("vcost", id)).toList();
    if (ids.isEmpty()) {
      return;
    }
    out.append(
        "\nWhat each warm append cost the whole machine (every process and the kernel; see `vcorfu"
            + " bench cost`):\n\n");
    for (String id : ids) {
      out.append("- ").append(id).append(", vcorfu: ").append(s.text("vcost", id)).append('\n');
      if (s.hasText("pcost", id)) {
        out.append("- ").append(id).append(", etcd: ").append(s.text("pcost", id)).append('\n');
      }
    }
  }

  private static String oneDecimal(Double v) {
    return Markdown.fixed(v == null ? 0 : v, 1);
  }

  private static void full(StreamStoreFigures s, StringBuilder out) {
    tokens(s, out);
    appends(s, out);
    reads(s, out);
  }

  private static void tokens(StreamStoreFigures s, StringBuilder out) {
    out.append("\n### Sequencer tokens (warm client)\n\n");
    out.append(
        "| measurement | tokens/s | p50/p99 ms per request | peer | peer ops/s | ratio | like for"
            + " like? |\n");
    out.append("|---|---:|---:|---|---:|---:|---|\n");
    for (String key : s.tokenKeys()) {
      String[] f = StreamStoreFigures.split(key);
      String desc =
          String.format(
              "vcorfu %s, %s threads, %s connection(s), batch %s, pipeline %s",
              f[0], f[1], f[2], f[3], f[4]);
      Double tok = s.figure("tok", key);
      Double pr = null;
      Double incrc = s.figure("incrc", f[4]);
      String r = "-";
      String why;
      if (f[0].equals("in-process")) {
        why = "no peer: no network, " + f[3] + " tokens per request";
      } else if (Double.parseDouble(f[3]) != 1) {
        why = "no peer: " + f[3] + " tokens per request; INCR hands out one";
      } else if (s.figure("incr", f[4]) == null) {
        why = "no redis run with -P " + f[4];
      } else {
        pr = s.figure("incr", f[4]);
        r = ratioOf(tok, pr);
        why =
            Double.parseDouble(f[1]) == incrc && Double.parseDouble(f[2]) == incrc
                ? "yes"
                : String.format(
                    Locale.ROOT,
                    "requests in flight equal; connections differ (vcorfu %s, redis %s)",
                    f[2],
                    str(incrc));
      }
      out.append(
          String.format(
              "| %s | %s | %s / %s | %s | %s | %s | %s |\n",
              desc,
              fmtOf(tok),
              msOf(s.figure("tok50", key)),
              msOf(s.figure("tok99", key)),
              pr == null ? "-" : "redis INCR -c " + str(incrc) + " -P " + f[4],
              fmtOf(pr),
              r,
              why));
    }
  }

  private static void appends(StreamStoreFigures s, StringBuilder out) {
    out.append(
        "\n### Appends (ops/s, p50/p99 ms; ratios only between equal clients and connections)\n\n");
    out.append(
        "| size | streams | clients | connections | vcorfu single | p50 | p99 | vcorfu 5-proc | p50"
            + " | p99 | redis XADD | p50 | p99 | etcd put | p50 | p99 | single/redis | single/etcd"
            + " | 5-proc/etcd |\n");
    out.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    out.append("---:|---:|---:|\n");
    for (String row : s.appendRows()) {
      String[] f = StreamStoreFigures.split(row);
      String a = keyOf("single", row);
      String fv = keyOf("five", row);
      String r = keyOf("redis", f[0], f[2], f[3]);
      String e = keyOf("etcd", f[0], f[2], f[3]);
      out.append(
              Markdown.row(
                  f[0],
                  f[1],
                  f[2],
                  f[3],
                  fmtOf(s.figure("app", a)),
                  msOf(s.figure("app50", a)),
                  msOf(s.figure("app99", a)),
                  fmtOf(s.figure("app", fv)),
                  msOf(s.figure("app50", fv)),
                  msOf(s.figure("app99", fv)),
                  fmtOf(s.figure("peer", r)),
                  msOf(s.figure("peer50", r)),
                  msOf(s.figure("peer99", r)),
                  fmtOf(s.figure("peer", e)),
                  msOf(s.figure("peer50", e)),
                  msOf(s.figure("peer99", e)),
                  ratioOf(s.figure("app", a), s.figure("peer", r)),
                  ratioOf(s.figure("app", a), s.figure("peer", e)),
                  ratioOf(s.figure("app", fv), s.figure("peer", e))))
          .append('\n');
    }
  }

  private static void reads(StreamStoreFigures s, StringBuilder out) {
    out.append("\n### Reads\n\n");
    out.append("| measurement | entries/s | p50 per call | p99 per call |\n");
    out.append("|---|---:|---:|---:|\n");
    for (String[] rr : s.reads()) {
      String line = rr[1];
      out.append(
          String.format(
              "| vcorfu %s: read %s threads (%s connections), %s, batch %s | %s | %s ms | %s ms"
                  + " |\n",
              rr[0],
              str(num(StreamStoreFigures.after(line, "threads"))),
              str(num(StreamStoreFigures.after(line, "conns"))),
              line.contains("streams 1 ")
                  ? "1 stream"
                  : str(num(StreamStoreFigures.after(line, "streams"))) + " streams",
              str(num(StreamStoreFigures.after(line, "batch"))),
              fmtOf(StreamStoreFigures.rateOf(line)),
              msOf(num(StreamStoreFigures.after(line, "p50"))),
              msOf(num(StreamStoreFigures.after(line, "p99")))));
    }
    s.xrange().forEach(x -> out.append(x).append('\n'));
    String g = keyOf("etcdget", "1024", "8", "8");
    if (s.figure("peer", g) != null) {
      out.append(
          "| etcd get 1 KB, 8 clients, 8 connections (one key, linearizable) | "
              + fmtOf(s.figure("peer", g))
              + " | "
              + msOf(s.figure("peer50", g))
              + " ms | "
              + msOf(s.figure("peer99", g))
              + " ms |\n");
    }
  }
}
