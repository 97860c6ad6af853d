package io.vcorfu.benchmarks.ycsb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vcorfu.benchmarks.BenchOutput;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class YcsbRunTest {
  static YcsbRun.Settings settings(String db, String endpoint, Map<String, String> extra) {
    return new YcsbRun.Settings(
        db, "c", 1000, 10000, 8, endpoint, 10, 100, extra, Duration.ofMinutes(5));
  }

  @Test
  void loadAndRunArgumentsCarryCountsShapeEndpointAndThreads() {
    YcsbRun run =
        new YcsbRun(settings("redis", "127.0.0.1:7000", Map.of("measurementtype", "hdrhistogram")));
    Path file = Path.of("/tmp/workloadc");
    assertThat(run.clientArguments(YcsbRun.Phase.LOAD, file))
        .containsExactly(
            "-load",
            "-db",
            RedisYcsbClient.class.getName(),
            "-P",
            "/tmp/workloadc",
            "-p",
            "recordcount=1000",
            "-p",
            "operationcount=10000",
            "-p",
            "fieldcount=10",
            "-p",
            "fieldlength=100",
            "-p",
            "redis.host=127.0.0.1",
            "-p",
            "redis.port=7000",
            "-p",
            "measurementtype=hdrhistogram",
            "-threads",
            "8");
    assertThat(run.clientArguments(YcsbRun.Phase.RUN, file)).first().isEqualTo("-t");
  }

  @Test
  void aPhaseJvmRunsG1InPlaceOfTheLaunchersParallelCollectorAndKeepsTheOtherXFlags() {
    assertThat(
            PhaseJvm.childJvmFlags(
                List.of("-XX:+UseParallelGC", "-Xmx1g", "-Dfoo=bar", "-Xlog:gc:file=x.log")))
        .containsExactly(
            "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=50", "-Xmx1g", "-Xlog:gc:file=x.log");
    assertThat(PhaseJvm.childJvmFlags(List.of())).isEqualTo(PhaseJvm.CHILD_COLLECTOR);
  }

  @Test
  void aCollectorOtherThanTheParallelOneIsKeptForThePhaseJvm() {
    assertThat(PhaseJvm.childJvmFlags(List.of("-XX:+UseParallelGC", "-XX:+UseZGC", "-Xmx2g")))
        .containsExactly("-XX:+UseZGC", "-Xmx2g");
    assertThat(PhaseJvm.childJvmFlags(List.of("-XX:+UseSerialGC")))
        .containsExactly("-XX:+UseSerialGC");
  }

  @Test
  void theRunPhasePrintsAStatusLineEverySecondForTheColdAndWarmFigures() {
    YcsbRun run = new YcsbRun(settings("redis", null, Map.of()));
    assertThat(run.clientArguments(YcsbRun.Phase.RUN, Path.of("w")))
        .contains("-s", "status.interval=1");
    assertThat(run.clientArguments(YcsbRun.Phase.LOAD, Path.of("w")))
        .doesNotContain("-s", "status.interval=1");
  }

  @Test
  void withoutEndpointTheBindingKeepsItsDefaults() {
    YcsbRun run = new YcsbRun(settings("etcd", null, Map.of()));
    assertThat(run.clientArguments(YcsbRun.Phase.LOAD, Path.of("w")))
        .noneMatch(a -> a.startsWith("etcd."));
  }

  @Test
  void vcorfuEndpointBecomesTheBindingsEndpointProperty() {
    YcsbRun run = new YcsbRun(settings("vcorfu", "127.0.0.1:9100", Map.of()));
    assertThat(run.clientArguments(YcsbRun.Phase.RUN, Path.of("w")))
        .contains("vcorfu.endpoint=127.0.0.1:9100");
  }

  @Test
  void nonPositiveCountsAreRejected() {
    assertThatThrownBy(
            () ->
                new YcsbRun.Settings(
                    "redis", "a", 0, 1, 1, null, 1, 1, Map.of(), Duration.ofSeconds(1)))
        .hasMessage("--records must be at least 1, not 0.");
    assertThatThrownBy(
            () ->
                new YcsbRun.Settings(
                    "redis", "a", 1, 1, 0, null, 1, 1, Map.of(), Duration.ofSeconds(1)))
        .hasMessage("--threads must be at least 1, not 0.");
  }

  @Test
  void theSummaryIsOneLineInTextAndOneObjectInJson() {
    YcsbRun run = new YcsbRun(settings("redis", "127.0.0.1:7000", Map.of()), 1, 2);
    YcsbReport load = new YcsbReport();
    List.of(
            "[OVERALL], RunTime(ms), 500",
            "[OVERALL], Throughput(ops/sec), 200.0",
            "[INSERT], Operations, 100",
            "[INSERT], 99thPercentileLatency(us), 120")
        .forEach(load::accept);
    YcsbReport ran = new YcsbReport();
    List.of(
            "[OVERALL], RunTime(ms), 8000",
            "[OVERALL], Throughput(ops/sec), 125.0",
            "[READ], Operations, 600",
            "[READ], AverageLatency(us), 80.5",
            "[UPDATE], Operations, 398",
            "[UPDATE-FAILED], Operations, 2",
            "[UPDATE], Return=ERROR, 2")
        .forEach(ran::accept);
    YcsbProgress progress = new YcsbProgress();
    progress.accept("2024-05-01 10:00:01:000 1 sec: 100 operations; 100 current ops/sec;");
    progress.accept("2024-05-01 10:00:02:000 2 sec: 250 operations; 150 current ops/sec;");
    Map<YcsbRun.Phase, YcsbReport> reports = new LinkedHashMap<>();
    reports.put(YcsbRun.Phase.LOAD, load);
    reports.put(YcsbRun.Phase.RUN, ran);

    assertThat(run.summary(reports, progress))
        .isEqualTo(
            "ycsb summary: db redis workload c, load 100 ops at 200.0 ops/s (0 errors), run 1000"
                + " ops at 125.0 ops/s (2 errors), run cold (first 1 s) 100.0 ops/s, run warm"
                + " (after 2 s) 125.0 ops/s");
    ObjectNode json = run.summaryJson(reports, progress);
    assertThat(json.get("mode").asText()).isEqualTo("ycsb");
    assertThat(json.get("db").asText()).isEqualTo("redis");
    assertThat(json.get("db_class").asText()).isEqualTo(RedisYcsbClient.class.getName());
    assertThat(json.get("workload").asText()).isEqualTo("c");
    assertThat(json.get("records").asLong()).isEqualTo(1000);
    assertThat(json.get("operations").asLong()).isEqualTo(10000);
    assertThat(json.get("threads").asInt()).isEqualTo(8);
    assertThat(json.get("field_count").asInt()).isEqualTo(10);
    assertThat(json.get("field_length").asInt()).isEqualTo(100);
    assertThat(json.get("endpoint").asText()).isEqualTo("127.0.0.1:7000");
    assertThat(json.get("load").toString())
        .isEqualTo(
            "{\"ops\":100,\"seconds\":0.5,\"ops_per_second\":200.0,\"errors\":0,"
                + "\"ops_by_type\":{\"INSERT\":100},"
                + "\"latency_us_by_type\":{\"INSERT\":{\"99thPercentileLatency\":120.0}}}");
    assertThat(json.get("run").toString())
        .isEqualTo(
            "{\"ops\":1000,\"seconds\":8.0,\"ops_per_second\":125.0,\"errors\":2,"
                + "\"ops_by_type\":{\"READ\":600,\"UPDATE\":398,\"UPDATE-FAILED\":2},"
                + "\"latency_us_by_type\":{\"READ\":{\"AverageLatency\":80.5}},"
                + "\"cold_seconds\":1,\"cold_ops_per_second\":100.0,"
                + "\"warm_after_seconds\":2,\"warm_ops_per_second\":125.0}");
  }

  @Test
  void aShortRunPhaseHasNoColdOrWarmRate() {
    YcsbRun run = new YcsbRun(settings("redis", null, Map.of()));
    YcsbReport report = new YcsbReport();
    List.of("[OVERALL], RunTime(ms), 1000", "[OVERALL], Throughput(ops/sec), 10.0")
        .forEach(report::accept);
    Map<YcsbRun.Phase, YcsbReport> reports = new LinkedHashMap<>();
    reports.put(YcsbRun.Phase.LOAD, report);
    reports.put(YcsbRun.Phase.RUN, report);

    ObjectNode json = run.summaryJson(reports, new YcsbProgress());
    assertThat(json.get("endpoint").isNull()).isTrue();
    assertThat(json.get("run").get("cold_ops_per_second").isNull()).isTrue();
    assertThat(json.get("run").get("warm_ops_per_second").isNull()).isTrue();
  }

  /**
   * Both phases in child JVMs against a redis-server started here (skipped if none is installed).
   */
  @Nested
  class AgainstRedis {
    @TempDir static Path dir;
    static PeerServer server;

    @BeforeAll
    static void startRedis() throws Exception {
      PeerServer.assumeInstalled(PeerServer.REDIS_SERVER);
      server = PeerServer.redis(dir);
    }

    @AfterAll
    static void stopRedis() {
      if (server != null) {
        server.close();
      }
    }

    @Test
    void printsYcsbsReportForBothPhasesAndASummary() throws Exception {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      YcsbRun run =
          new YcsbRun(
              new YcsbRun.Settings(
                  "redis",
                  "a",
                  100,
                  400,
                  2,
                  server.endpoint(),
                  4,
                  20,
                  Map.of(),
                  Duration.ofMinutes(2)));
      int status =
          run.execute(
              new BenchOutput(),
              new PrintStream(out, true, StandardCharsets.UTF_8),
              new PrintStream(err, true, StandardCharsets.UTF_8));
      String text = out.toString(StandardCharsets.UTF_8);
      assertThat(status)
          .as("stdout:%n%s%nstderr:%n%s", text, err.toString(StandardCharsets.UTF_8))
          .isZero();
      assertThat(text)
          .contains(
              "ycsb: load phase",
              "[INSERT], Return=OK, 100",
              "ycsb: run phase",
              "[OVERALL], Throughput(ops/sec)",
              "[READ], 99thPercentileLatency(us)",
              "[UPDATE], 99thPercentileLatency(us)")
          .containsPattern(
              "ycsb summary: db redis workload a, load 100 ops at [0-9.]+ ops/s \\(0 errors\\), run"
                  + " 400 ops at [0-9.]+ ops/s \\(0 errors\\), run cold \\(first 10 s\\) n/a \\(the"
                  + " run phase was shorter\\), run warm \\(after 30 s\\) n/a");
    }

    @Test
    void inJsonStandardOutputHoldsOnlyTheSummaryObject() throws Exception {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      YcsbRun run =
          new YcsbRun(
              new YcsbRun.Settings(
                  "redis",
                  "b",
                  50,
                  200,
                  2,
                  server.endpoint(),
                  2,
                  10,
                  Map.of(),
                  Duration.ofMinutes(2)));
      BenchOutput json = new BenchOutput();
      new CommandLine(json).parseArgs("--output", "json");
      int status =
          run.execute(
              json,
              new PrintStream(out, true, StandardCharsets.UTF_8),
              new PrintStream(err, true, StandardCharsets.UTF_8));

      String text = out.toString(StandardCharsets.UTF_8);
      assertThat(status).as("stdout:%n%s", text).isZero();
      assertThat(text.lines()).hasSize(1);
      JsonNode r = new ObjectMapper().readTree(text);
      assertThat(r.get("mode").asText()).isEqualTo("ycsb");
      assertThat(r.get("workload").asText()).isEqualTo("b");
      assertThat(r.get("load").get("ops").asLong()).isEqualTo(50);
      assertThat(r.get("run").get("ops").asLong()).isEqualTo(200);
      assertThat(r.get("run").get("ops_per_second").asDouble()).isPositive();
      assertThat(r.get("run").get("errors").asLong()).isZero();
      assertThat(r.get("run").get("ops_by_type").get("READ").asLong()).isPositive();
      assertThat(r.get("run").get("latency_us_by_type").get("READ").size()).isPositive();
      assertThat(err.toString(StandardCharsets.UTF_8))
          .contains("ycsb: load phase", "[OVERALL], Throughput(ops/sec)");
    }

    @Test
    void aPhaseWhoseBindingCannotConnectFailsTheRun() throws Exception {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      YcsbRun run =
          new YcsbRun(
              new YcsbRun.Settings(
                  "redis",
                  "c",
                  10,
                  10,
                  1,
                  "127.0.0.1:" + PeerServer.freePort(),
                  1,
                  10,
                  Map.of("redis.timeout.ms", "1000"),
                  Duration.ofMinutes(2)));
      int status =
          run.execute(
              new BenchOutput(),
              new PrintStream(out, true, StandardCharsets.UTF_8),
              new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
      assertThat(status).isEqualTo(1);
      assertThat(out.toString(StandardCharsets.UTF_8))
          .contains("ycsb: the load phase completed no operation")
          .doesNotContain("ycsb: run phase");
    }
  }
}
