package io.vcorfu.benchmarks.ycsb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
              new PrintStream(out, true, StandardCharsets.UTF_8),
              new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
      assertThat(status).isEqualTo(1);
      assertThat(out.toString(StandardCharsets.UTF_8))
          .contains("ycsb: the load phase completed no operation")
          .doesNotContain("ycsb: run phase");
    }
  }
}
