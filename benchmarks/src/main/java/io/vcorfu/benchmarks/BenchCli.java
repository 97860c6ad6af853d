package io.vcorfu.benchmarks;

import io.vcorfu.benchmarks.suite.SuiteCommand;
import io.vcorfu.protocol.netty.LeakSampling;
import io.vcorfu.server.cli.VcorfuCli;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;

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
      WatchBench.class,
      HistoryBench.class,
      DiffBench.class,
      PlotCommand.class,
      CostCommand.class,
      SuiteCommand.class
    })
public final class BenchCli {
  private BenchCli() {}

  public static void main(String[] args) {
    LeakSampling.configure();
    System.exit(commandLine(new BenchCli()).execute(args));
  }

  /**
   * The command line of the bench tool, or of one of its modes: {@link VcorfuCli#commandLine}'s (a
   * failure prints {@code vcorfu: WHY} on standard error and exits 1), and a mode run with {@code
   * --output json} that fails also prints {@code {"mode": MODE, "error": WHY}} on standard output,
   * so that a script reading the JSON results sees the failure as one.
   */
  static CommandLine commandLine(Object command) {
    CommandLine cl = VcorfuCli.commandLine(command);
    CommandLine.IExecutionExceptionHandler usual = cl.getExecutionExceptionHandler();
    cl.setExecutionExceptionHandler(
        (e, line, parsed) -> {
          BenchOutput output = outputOf(line.getCommandSpec());
          if (output != null && output.json()) {
            output.print(BenchOutput.error(line.getCommandName(), VcorfuCli.describe(e)));
          }
          return usual.handleExecutionException(e, line, parsed);
        });
    return cl;
  }

  /** The {@code --output} option of a mode, or null for a command without one. */
  private static BenchOutput outputOf(CommandSpec spec) {
    for (CommandSpec mixin : spec.mixins().values()) {
      if (mixin.userObject() instanceof BenchOutput output) {
        return output;
      }
    }
    return null;
  }
}
