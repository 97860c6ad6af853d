package io.vcorfu.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.server.cli.VcorfuCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class CliSuiteTest {
  @Test
  void aShellsTimesAreReadInSeconds() {
    assertThat(CliSuite.seconds("0m0.312s")).isEqualTo(0.312);
    assertThat(CliSuite.seconds("2m1.500s")).isEqualTo(121.5);
  }

  @Test
  void aProcesssProcessorTimeGrowsAsItWorks() throws Exception {
    long pid = ProcessHandle.current().pid();
    long before = CliSuite.cpuMillis(pid);
    long deadline = System.nanoTime() + 300_000_000L;
    long spin = 0;
    while (System.nanoTime() < deadline) {
      spin += Long.numberOfTrailingZeros(System.nanoTime());
    }
    assertThat(spin).isPositive();
    assertThat(CliSuite.cpuMillis(pid)).isGreaterThan(before);
  }

  @Test
  void badSettingsAreUsageErrorsBeforeAnythingStarts() {
    for (String[] args :
        new String[][] {{"--calls", "2"}, {"--vcorfu", "/nonexistent/vcorfu", "--calls", "3"}}) {
      StringWriter err = new StringWriter();
      var cl = VcorfuCli.commandLine(new CliSuite());
      cl.setErr(new PrintWriter(err));
      assertThat(cl.execute(args)).isEqualTo(VcorfuCli.USAGE);
      assertThat(err.toString()).startsWith("vcorfu: --");
    }
  }
}
