package io.vcorfu.server.cli;

import io.vcorfu.protocol.VCorfuException;
import java.util.concurrent.CompletionException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code vcorfu} command. */
@Command(
    name = "vcorfu",
    mixinStandardHelpOptions = true,
    description = "vcorfu: a strongly consistent object store on a materialized shared log.",
    subcommands = {ServerCommand.class, LogCommands.class, MapCommands.class})
public final class VcorfuCli {
  private VcorfuCli() {}

  public static void main(String[] args) {
    System.exit(newCommandLine().execute(args));
  }

  /** The {@code vcorfu} command line, ready to execute. */
  public static CommandLine newCommandLine() {
    return commandLine(new VcorfuCli());
  }

  /**
   * A command line whose failures print one clear line ({@code vcorfu: <message>}) and exit 1,
   * instead of a stack trace. Shared by the {@code bench} tool.
   */
  public static CommandLine commandLine(Object command) {
    CommandLine cl = new CommandLine(command);
    cl.setExecutionExceptionHandler(
        (e, line, parsed) -> {
          Throwable cause = e;
          while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
          }
          String what = cause instanceof VCorfuException || cause instanceof IllegalArgumentException
              ? cause.getMessage()
              : cause.getClass().getSimpleName() + ": " + cause.getMessage();
          line.getErr().println("vcorfu: " + what);
          return 1;
        });
    return cl;
  }
}
