package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

class ServerCommandOptionsTest {
  private static ServerCommand parse(String... args) {
    CommandLine.ParseResult result = VcorfuCli.newCommandLine().parseArgs(args);
    return (ServerCommand) result.subcommand().commandSpec().userObject();
  }

  @Test
  void classPathIsSplitOnThePlatformsPathSeparator() {
    ServerCommand cmd =
        parse(
            "server",
            "--classpath",
            "objects.jar" + File.pathSeparator + "more/classes",
            "--checkpoint-every",
            "500",
            "--checkpoint-interval-ms",
            "2000");
    assertThat(cmd.classpath).containsExactly(Path.of("objects.jar"), Path.of("more/classes"));
    assertThat(cmd.checkpointEvery).isEqualTo(500);
    assertThat(cmd.checkpointIntervalMs).isEqualTo(2000);
  }

  @Test
  void withoutOptionsTheHostUsesTheServersClassPathAndDefaultCheckpoints() {
    ServerCommand cmd = parse("server");
    assertThat(cmd.classpath).isNull();
    assertThat(cmd.checkpointEvery).isEqualTo(10_000);
    assertThat(cmd.checkpointIntervalMs).isEqualTo(60_000);
  }

  @Test
  void aCheckpointCountBelowOneIsRefusedWithOneLine() {
    java.io.StringWriter err = new java.io.StringWriter();
    picocli.CommandLine cl = io.vcorfu.server.cli.VcorfuCli.newCommandLine();
    cl.setErr(new java.io.PrintWriter(err));
    int code = cl.execute("server", "--memory", "--checkpoint-every", "0");
    assertThat(code).isEqualTo(2);
    assertThat(err.toString().strip())
        .isEqualTo(
            "vcorfu server: --checkpoint-every and --checkpoint-interval-ms must be at least 1");
  }

  @ParameterizedTest
  @CsvSource({
    "--compaction-rate-mb, 0, --compaction-rate-mb must be between 1 and 10240",
    "--compaction-rate-mb, 10241, --compaction-rate-mb must be between 1 and 10240",
    "--segment-size-mb, 0, --segment-size-mb must be between 1 and 1024",
    "--warm-up-s, -1, '--warm-up-s must be 0 to 600 seconds, not -1'",
    "--warm-up-s, 601, '--warm-up-s must be 0 to 600 seconds, not 601'"
  })
  void aSizeRateOrTimeOutOfRangeIsRefusedWithOneLineAndNothingWritten(
      String flag, String value, String message, @TempDir Path tmp) {
    java.io.StringWriter err = new java.io.StringWriter();
    picocli.CommandLine cl = VcorfuCli.newCommandLine();
    cl.setErr(new java.io.PrintWriter(err));
    Path dir = tmp.resolve("data");
    int code = cl.execute("server", "--data-dir", dir.toString(), flag, value);
    assertThat(code).isEqualTo(2);
    assertThat(err.toString().strip()).isEqualTo("vcorfu server: " + message);
    assertThat(dir).doesNotExist();
  }

  @Test
  void theCompactionRateIsSixteenMibPerSecondUnlessGiven() {
    assertThat(parse("server").compactionRateMb).isEqualTo(16);
    assertThat(parse("server", "--compaction-rate-mb", "4").compactionRateMb).isEqualTo(4);
  }

  @Test
  void aNodeTakesNoClassesFromClientsUnlessTold() {
    io.vcorfu.server.RemoteClasses none = parse("server").remoteClasses.config();
    assertThat(none).isEqualTo(io.vcorfu.server.RemoteClasses.REFUSED);
    io.vcorfu.server.RemoteClasses some =
        parse(
                "server",
                "--accept-remote-classes",
                "--remote-classes-idle-ms",
                "1500",
                "--remote-classes-max",
                "3",
                "--remote-classes-max-mb",
                "2")
            .remoteClasses
            .config();
    assertThat(some)
        .isEqualTo(
            new io.vcorfu.server.RemoteClasses(
                true, java.time.Duration.ofMillis(1500), 3, 2 << 20));
  }

  @Test
  void aRemoteClassLimitBelowOneIsRefused() {
    java.io.StringWriter err = new java.io.StringWriter();
    picocli.CommandLine cl = VcorfuCli.newCommandLine();
    cl.setErr(new java.io.PrintWriter(err));
    int code = cl.execute("server", "--memory", "--remote-classes-max", "0");
    assertThat(code).isEqualTo(2);
    assertThat(err.toString()).contains("--remote-classes-max").contains("between 1 and");
  }
}
