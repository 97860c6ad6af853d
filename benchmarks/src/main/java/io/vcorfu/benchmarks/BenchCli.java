package io.vcorfu.benchmarks;

import io.vcorfu.server.cli.VcorfuCli;
import picocli.CommandLine.Command;

/** {@code vcorfu bench ...}: the benchmark harness. */
@Command(
    name = "vcorfu bench",
    mixinStandardHelpOptions = true,
    description = "vcorfu benchmark harness.",
    subcommands = {
      AppendBench.class,
      TokensBench.class,
      ReadBench.class,
      ObjectsBench.class,
      CollectionsBench.class,
      YcsbBench.class,
      FailoverBench.class,
      DegradedBench.class,
      StreamTimelineBench.class,
      PlotCommand.class
    })
public final class BenchCli {
  private BenchCli() {}

  public static void main(String[] args) {
    System.exit(VcorfuCli.commandLine(new BenchCli()).execute(args));
  }
}
