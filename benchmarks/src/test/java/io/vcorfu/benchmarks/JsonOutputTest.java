package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vcorfu.server.cli.VcorfuCli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * {@code --output json} of every bench mode that runs against one node: standard output holds only
 * JSON objects, one per line, with the mode's named fields, and standard error the progress lines,
 * none of them after the last result.
 */
class JsonOutputTest {
  @RegisterExtension static final BenchNode NODE = new BenchNode();

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  @Test
  void appendIsOneObjectWithWarmFiguresColdFiguresAndTimeline() throws Exception {
    BenchNode.Printed p =
        NODE.runPrinting(
            new AppendBench(),
            "--threads 2 --conns 2 --streams 3 --size 64 --cold 1 --duration 2.5 --prefix ja"
                + " --output json");

    JsonNode r = single(p, "append");
    assertThat(r.get("threads").asInt()).isEqualTo(2);
    assertThat(r.get("conns").asInt()).isEqualTo(2);
    assertThat(r.get("streams").asInt()).isEqualTo(3);
    assertThat(r.get("size").asInt()).isEqualTo(64);
    assertThroughput(r);
    assertThat(r.get("mb_per_second").asDouble()).isPositive();
    JsonNode cold = r.get("cold");
    assertThat(cold.get("seconds").asDouble()).isEqualTo(1.0);
    assertThat(cold.get("ops").asLong()).isPositive();
    assertThat(cold.get("ops_per_second").asDouble()).isPositive();
    assertThat(cold.get("after_jvm_start_seconds").asDouble()).isPositive();
    assertLatency(cold.get("latency"));
    JsonNode timeline = r.get("timeline");
    assertThat(timeline.isArray()).isTrue();
    assertThat(timeline.size()).isGreaterThanOrEqualTo(2);
    assertThat(timeline).allSatisfy(n -> assertThat(n.isIntegralNumber()).isTrue());
    assertThat(timeline.get(0).asLong()).isEqualTo(cold.get("ops").asLong());
    assertThat(r.get("errors").asLong()).isZero();
    assertThat(r.get("first_error").isNull()).isTrue();
    assertThat(r.get("stopped_early").isNull()).isTrue();
    assertProgress(p, "append");
  }

  @Test
  void tokensWithoutColdWindowHasNullColdAndTimeline() throws Exception {
    BenchNode.Printed p =
        NODE.runPrinting(
            new TokensBench(), "--threads 2 --pipeline 4 --batch 3 --duration 2.5 --output json");

    JsonNode r = single(p, "tokens");
    assertThat(r.get("where").asText()).isEqualTo("loopback");
    assertThat(r.get("threads").asInt()).isEqualTo(2);
    assertThat(r.get("conns").asInt()).isEqualTo(1);
    assertThat(r.get("streams").asInt()).isEqualTo(1);
    assertThat(r.get("batch").asInt()).isEqualTo(3);
    assertThat(r.get("pipeline").asInt()).isEqualTo(4);
    assertThroughput(r);
    // ops counts tokens, latency requests of 3 tokens each.
    assertThat(r.get("ops").asLong()).isEqualTo(3 * r.get("latency").get("count").asLong());
    // Token messages on the wire and the requests they carried, over the whole run.
    assertThat(r.get("requests").asLong())
        .isGreaterThanOrEqualTo(r.get("latency").get("count").asLong());
    assertThat(r.get("messages").asLong())
        .isPositive()
        .isLessThanOrEqualTo(r.get("requests").asLong());
    assertThat(r.get("cold").isNull()).isTrue();
    assertThat(r.get("timeline").isNull()).isTrue();
    assertProgress(p, "tokens");
  }

  @Test
  void readCountsEntriesHolesAndCallsAndEmptyStreamsAreAnError() throws Exception {
    NODE.run(new AppendBench(), "--duration 0.5 --prefix jr");

    BenchNode.Printed p =
        NODE.runPrinting(
            new ReadBench(), "--streams 1 --prefix jr --batch 50 --duration 2.5 --output json");

    JsonNode r = single(p, "read");
    assertThat(r.get("threads").asInt()).isEqualTo(1);
    assertThat(r.get("conns").asInt()).isEqualTo(1);
    assertThat(r.get("streams").asInt()).isEqualTo(1);
    assertThat(r.get("batch").asInt()).isEqualTo(50);
    long addresses = r.get("stream_addresses").asLong();
    assertThat(addresses).isPositive();
    assertThroughput(r);
    assertThat(r.get("ops").asLong()).isGreaterThanOrEqualTo(addresses);
    assertThat(r.get("mb_per_second").asDouble()).isPositive();
    assertThat(r.get("holes").asLong()).isZero();
    assertThat(r.get("calls").asLong()).isEqualTo(r.get("latency").get("count").asLong());
    assertThat(r.get("stopped_early").isNull()).isTrue();
    assertProgress(p, "read");

    List<JsonNode> empty =
        parse(
            NODE.runPrinting(new ReadBench(), "--prefix jr-never --output json", VcorfuCli.FAILED));
    assertThat(empty).hasSize(1);
    assertThat(empty.get(0).get("mode").asText()).isEqualTo("read");
    assertThat(empty.get(0).get("error").asText())
        .isEqualTo("nothing to read: the 1 stream(s) are empty");
  }

  @Test
  void objectsTransactionsReportCommitsAbortsChecksAndLatency() throws Exception {
    BenchNode.Printed p =
        NODE.runPrinting(
            new ObjectsBench(), "tx --threads 2 --objects 4 --duration 2.5 --output json");

    JsonNode r = single(p, "objects");
    assertThat(r.get("workload").asText()).isEqualTo("tx");
    assertThat(r.get("threads").asInt()).isEqualTo(2);
    assertThat(r.get("objects").asInt()).isEqualTo(4);
    assertThat(r.get("behind").asInt()).isZero();
    assertThat(r.get("reads").asInt()).isEqualTo(2);
    assertThroughput(r);
    assertThat(r.get("aborts").asLong()).isNotNegative();
    assertThat(r.get("abort_rate_percent").asDouble()).isBetween(0.0, 100.0);
    assertThat(r.get("checks"))
        .isNotEmpty()
        .allSatisfy(c -> assertThat(c.asText()).doesNotContain("FAILED"))
        .anySatisfy(c -> assertThat(c.asText()).startsWith("ok: sum of balances"));
    assertThat(r.get("stopped_early").isNull()).isTrue();
    assertProgress(p, "tx");
  }

  @Test
  void collectionsAbortsOpenAndClearAreOneObjectPerMeasurement() throws Exception {
    BenchNode.Printed p =
        NODE.runPrinting(
            new CollectionsBench(),
            "--mode aborts --writers-list 2 --duration 2.5 --keys 16 --dists uniform --value-size"
                + " 64 --kinds smr --output json");
    JsonNode aborts = single(p, "collections");
    assertThat(aborts.get("workload").asText()).isEqualTo("aborts");
    assertThat(aborts.get("kind").asText()).isEqualTo("smr");
    assertThat(aborts.get("buckets").asInt()).isEqualTo(1);
    assertThat(aborts.get("dist").asText()).isEqualTo("uniform");
    assertThat(aborts.get("writers").asInt()).isEqualTo(2);
    assertThat(aborts.get("keys").asLong()).isEqualTo(16);
    assertThroughput(aborts);
    assertThat(aborts.get("aborted").asLong()).isNotNegative();
    assertThat(aborts.get("abort_rate_percent").asDouble()).isBetween(0.0, 100.0);
    assertThat(aborts.get("keys_check").asText()).isEqualTo("ok");
    assertThat(aborts.get("stopped_early").isNull()).isTrue();
    assertProgress(p, "tx");

    JsonNode open =
        single(
            NODE.runPrinting(
                new CollectionsBench(),
                "--mode open --max-updates 20 --steps 1 --reps 2 --keys 10 --fill-threads 2"
                    + " --value-size 64 --kinds csmr --buckets 2 --dists zipf --output json"),
            "collections");
    assertThat(open.get("workload").asText()).isEqualTo("open");
    assertThat(open.get("kind").asText()).isEqualTo("csmr");
    assertThat(open.get("buckets").asInt()).isEqualTo(2);
    assertThat(open.get("dist").asText()).isEqualTo("zipf");
    assertThat(open.get("updates").asLong()).isEqualTo(20);
    assertThat(open.get("mb").isNumber()).isTrue();
    assertThat(open.get("reps").asInt()).isEqualTo(2);
    assertP50Max(open.get("open_read"));
    assertThat(open.get("wrong").asInt()).isZero();

    List<JsonNode> clear =
        results(
            NODE.runPrinting(
                new CollectionsBench(),
                "--mode clear --clear-keys 10 --reps 2 --value-size 64 --kinds smr --output json"));
    assertThat(clear).extracting(c -> c.get("view").asText()).containsExactly("local", "remote");
    assertThat(clear)
        .allSatisfy(
            c -> {
              assertThat(c.get("mode").asText()).isEqualTo("collections");
              assertThat(c.get("workload").asText()).isEqualTo("clear");
              assertThat(c.get("keys").asInt()).isEqualTo(10);
              assertThat(c.get("reps").asInt()).isEqualTo(2);
              for (String timed : List.of("open", "clear", "size", "total")) {
                assertP50Max(c.get(timed));
              }
              assertThat(c.get("wrong").asInt()).isZero();
            });
  }

  @Test
  void degradedIsOneObjectPerHoleRate() throws Exception {
    List<JsonNode> rates =
        results(
            NODE.runPrinting(
                new DegradedBench(), "--entries 60 --others 1 --hole-rates 0,0.25 --output json"));

    assertThat(rates).extracting(r -> r.get("hole_rate").asDouble()).containsExactly(0.0, 0.25);
    assertThat(rates)
        .allSatisfy(
            r -> {
              assertThat(r.get("mode").asText()).isEqualTo("degraded");
              assertThat(r.get("entries").asLong()).isEqualTo(60);
              assertThat(r.get("others_per_entry").asInt()).isEqualTo(1);
              assertThat(r.get("scanned").asLong()).isPositive();
              assertThat(r.get("scanned_per_entry").asDouble()).isPositive();
              assertThat(r.get("degraded_ms").asDouble()).isNotNegative();
              assertThat(r.get("replica_ms").asDouble()).isNotNegative();
              assertThat(r.get("decide_ms").asLong()).isNotNegative();
              assertThat(r.get("last_global").asLong())
                  .isGreaterThanOrEqualTo(r.get("first_global").asLong());
              assertThat(r.get("same").asBoolean()).isTrue();
            });
    assertThat(rates.get(0).get("holes").asInt()).isZero();
  }

  @Test
  void streamTimelineIsOneObjectPerSecond() throws Exception {
    BenchNode.Printed p =
        NODE.runPrinting(
            new StreamTimelineBench(), "--threads 2 --duration 2 --stream jst --output json");

    List<JsonNode> seconds = results(p);
    assertThat(seconds).extracting(s -> s.get("second").asInt()).containsExactly(1, 2);
    assertThat(seconds)
        .allSatisfy(
            s -> {
              assertThat(s.get("mode").asText()).isEqualTo("stream-timeline");
              assertThat(s.get("threads").asInt()).isEqualTo(2);
              assertThat(s.get("size").asInt()).isEqualTo(32);
              assertThat(s.get("stream").asText()).isEqualTo("jst");
              for (String count : List.of("appends", "reads", "degraded_log_reads", "failures")) {
                assertThat(s.get(count).isIntegralNumber()).as(count).isTrue();
              }
              assertThat(s.get("at").asDouble()).isPositive();
            });
    assertThat(seconds.stream().mapToLong(s -> s.get("appends").asLong()).sum()).isPositive();
    assertProgress(p, "stream-timeline");
  }

  @Test
  void appendWithAckLogPrintsItsProgressOnStandardErrorAndOnlyTheResultOnStandardOutput()
      throws Exception {
    Path acks = tmp.resolve("acks");
    BenchNode.Printed p =
        NODE.runPrinting(
            new AppendBench(), "--duration 2 --prefix jack --output json --ack-log " + acks);

    JsonNode r = single(p, "append");
    assertThroughput(r);
    Pattern ackProgress =
        Pattern.compile("^progress (\\d+) acked (\\d+) total (\\d+) errors 0 p99_ms \\S+$");
    assertThat(p.err()).anyMatch(l -> ackProgress.matcher(l).matches());
    assertThat(p.err()).noneMatch(l -> l.startsWith("progress append "));
    assertThat(Files.readAllLines(acks)).hasSizeGreaterThanOrEqualTo((int) r.get("ops").asLong());
  }

  /**
   * A mode that fails (here: nothing listens at its endpoint) prints {@code {"mode", "error"}} on
   * standard output in JSON, besides the usual line on standard error and exit code 1.
   */
  @ParameterizedTest
  @ValueSource(strings = {"append", "read", "tokens", "degraded", "stream-timeline"})
  void aModeThatFailsPrintsItsErrorAsJson(String mode) throws Exception {
    int closed;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    java.io.PrintStream oldOut = System.out;
    java.io.PrintStream oldErr = System.err;
    int code;
    System.setOut(new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8));
    System.setErr(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      code =
          BenchCli.commandLine(BenchCli.class)
              .execute(
                  mode,
                  "--endpoint",
                  "127.0.0.1:" + closed,
                  "--duration",
                  "1",
                  "--failover-timeout",
                  "0",
                  "--output",
                  "json");
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
    String printed = out.toString(java.nio.charset.StandardCharsets.UTF_8);
    String errors = err.toString(java.nio.charset.StandardCharsets.UTF_8);
    assertThat(code).as(printed + errors).isEqualTo(VcorfuCli.FAILED);
    assertThat(printed.lines()).as(errors).hasSize(1);
    JsonNode r = JSON.readTree(printed);
    assertThat(r.get("mode").asText()).isEqualTo(mode);
    assertThat(r.get("error").asText()).contains("127.0.0.1:" + closed);
    assertThat(errors).contains("vcorfu: ");
  }

  @Test
  void everyModeTakesOutputAndRefusesAnUnknownFormat() {
    CommandLine bench = new CommandLine(BenchCli.class);
    List<String> modes = new ArrayList<>(bench.getSubcommands().keySet());
    // Tools for scripts, not load modes: a picture, a line of counters, and whole runs (suites)
    // that write markdown tables of what the modes print.
    modes.remove("plot");
    modes.remove("cost");
    modes.remove("suite");
    assertThat(modes)
        .containsExactlyInAnyOrder(
            "append",
            "tokens",
            "read",
            "objects",
            "collections",
            "ycsb",
            "failover",
            "degraded",
            "stream-timeline",
            "watch",
            "history",
            "diff");
    for (String mode : modes) {
      CommandLine.Model.OptionSpec output =
          bench.getSubcommands().get(mode).getCommandSpec().findOption("--output");
      assertThat(output).as(mode).isNotNull();
      assertThat(output.type()).as(mode).isEqualTo(io.vcorfu.server.cli.OutputFormat.class);
      assertThat(output.defaultValue()).as(mode).isEqualTo("text");
    }
    assertThat(
            VcorfuCli.commandLine(new AppendBench())
                .execute("--output", "xml", "--endpoint", NODE.endpoint()))
        .isEqualTo(VcorfuCli.USAGE);
  }

  /**
   * Parses every line of standard output, each a JSON object with a mode, none of them a run that
   * could not run.
   */
  private static List<JsonNode> results(BenchNode.Printed p) throws Exception {
    List<JsonNode> out = parse(p);
    assertThat(out).allSatisfy(n -> assertThat(n.has("error")).as(n.toString()).isFalse());
    return out;
  }

  private static List<JsonNode> parse(BenchNode.Printed p) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    for (String line : p.out()) {
      JsonNode n = JSON.readTree(line);
      assertThat(n.isObject()).as(line).isTrue();
      assertThat(n.get("mode").isTextual()).as(line).isTrue();
      out.add(n);
    }
    return out;
  }

  /** The only result, of {@code mode}. */
  private static JsonNode single(BenchNode.Printed p, String mode) throws Exception {
    List<JsonNode> all = results(p);
    assertThat(all).hasSize(1);
    assertThat(all.get(0).get("mode").asText()).isEqualTo(mode);
    return all.get(0);
  }

  private static void assertThroughput(JsonNode r) {
    assertThat(r.get("ops").asLong()).as(r.toString()).isPositive();
    assertThat(r.get("seconds").asDouble()).as(r.toString()).isPositive();
    assertThat(r.get("ops_per_second").asDouble()).as(r.toString()).isPositive();
    assertLatency(r.get("latency"));
  }

  private static void assertLatency(JsonNode latency) {
    assertThat(latency.get("count").asLong()).as(latency.toString()).isPositive();
    double p50 = latency.get("p50_ms").asDouble();
    double p99 = latency.get("p99_ms").asDouble();
    double p999 = latency.get("p999_ms").asDouble();
    double max = latency.get("max_ms").asDouble();
    assertThat(p50).as(latency.toString()).isPositive().isLessThanOrEqualTo(p99);
    assertThat(p99).as(latency.toString()).isLessThanOrEqualTo(p999);
    assertThat(p999).as(latency.toString()).isLessThanOrEqualTo(max);
  }

  private static void assertP50Max(JsonNode timed) {
    assertThat(timed.get("p50_ms").asDouble()).as(timed.toString()).isPositive();
    assertThat(timed.get("max_ms").asDouble())
        .as(timed.toString())
        .isGreaterThanOrEqualTo(timed.get("p50_ms").asDouble());
  }

  /**
   * Standard error has {@code progress NAME S ops N total M} lines for S = 1, 2, ..., whose N add
   * up to M, at least one N positive; none of them comes after the last result.
   */
  /**
   * The loads above run at least 2.5 s, so the line of second 1 has 1.5 s to come however slowly
   * the machine schedules the ticker.
   */
  private static void assertProgress(BenchNode.Printed p, String name) {
    Pattern line =
        Pattern.compile("^progress " + Pattern.quote(name) + " (\\d+) ops (\\d+) total (\\d+)$");
    List<Matcher> progress = new ArrayList<>();
    for (String l : p.err()) {
      Matcher m = line.matcher(l);
      if (m.matches()) {
        progress.add(m);
      }
    }
    assertThat(progress).as(String.join("\n", p.err())).isNotEmpty();
    long total = 0;
    for (int i = 0; i < progress.size(); i++) {
      Matcher m = progress.get(i);
      assertThat(Long.parseLong(m.group(1))).isEqualTo(i + 1);
      total += Long.parseLong(m.group(2));
      assertThat(Long.parseLong(m.group(3))).isEqualTo(total);
    }
    assertThat(progress).anyMatch(m -> Long.parseLong(m.group(2)) > 0);
    int lastResult = -1;
    int lastProgress = -1;
    for (int i = 0; i < p.both().size(); i++) {
      String l = p.both().get(i);
      if (l.startsWith("out: ")) {
        lastResult = i;
      } else if (line.matcher(l.substring("err: ".length())).matches()) {
        lastProgress = i;
      }
    }
    assertThat(lastProgress)
        .as("the last progress line precedes the last result")
        .isLessThan(lastResult);
  }
}
