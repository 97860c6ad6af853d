package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Every bench mode answers {@code --help} with its usage and {@code --version} with the build's,
 * and every option says what it does.
 */
class BenchHelpTest {

  @Test
  void everyModeAnswersHelpAndVersionAndExitsZero() {
    Map<String, CommandLine> modes = BenchCli.commandLine(BenchCli.class).getSubcommands();
    assertThat(modes.keySet()).contains("append", "tokens", "read", "ycsb", "failover", "plot");
    for (String mode : modes.keySet()) {
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      CommandLine cl = BenchCli.commandLine(BenchCli.class);
      cl.setOut(new PrintWriter(out));
      cl.setErr(new PrintWriter(err));
      int code = cl.execute(mode, "--help");
      assertThat(code).as("vcorfu bench %s --help: %s", mode, err).isZero();
      assertThat(out.toString())
          .as("vcorfu bench %s --help", mode)
          .startsWith("Usage: vcorfu bench " + mode)
          .contains("--help");
      StringWriter version = new StringWriter();
      CommandLine v = BenchCli.commandLine(BenchCli.class);
      v.setOut(new PrintWriter(version));
      assertThat(v.execute(mode, "--version")).as("vcorfu bench %s --version", mode).isZero();
      assertThat(version.toString()).as("vcorfu bench %s --version", mode).startsWith("vcorfu ");
    }
  }

  /** Counts of nothing are refused before any connection is made, naming the option. */
  @Test
  void appendAndReadRefuseCountsOfNothing() {
    for (String[] args :
        List.of(
            new String[] {"append", "--streams", "0"},
            new String[] {"append", "--threads", "0"},
            new String[] {"append", "--size", "0"},
            new String[] {"read", "--streams", "0"},
            new String[] {"read", "--threads", "0"})) {
      StringWriter err = new StringWriter();
      CommandLine cl = BenchCli.commandLine(BenchCli.class);
      cl.setErr(new PrintWriter(err));
      List<String> argv = new ArrayList<>(List.of(args));
      argv.addAll(List.of("--endpoint", "127.0.0.1:1"));
      int code = cl.execute(argv.toArray(String[]::new));
      assertThat(code).as(String.join(" ", args)).isEqualTo(1);
      assertThat(err.toString())
          .as(String.join(" ", args))
          .contains(args[1])
          .contains("at least 1")
          .doesNotContain("connect");
    }
  }

  @Test
  void everyOptionOfEveryModeHasADescription() {
    List<String> undescribed = new ArrayList<>();
    for (Map.Entry<String, CommandLine> mode :
        BenchCli.commandLine(BenchCli.class).getSubcommands().entrySet()) {
      for (OptionSpec option : mode.getValue().getCommandSpec().options()) {
        String text = String.join(" ", option.description()).trim();
        if (text.isEmpty()) {
          undescribed.add(mode.getKey() + " " + option.longestName());
        }
      }
    }
    assertThat(undescribed).as("options without a description").isEmpty();
  }
}
