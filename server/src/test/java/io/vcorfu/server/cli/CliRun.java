package io.vcorfu.server.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

/**
 * One run of the {@code vcorfu} command line in this JVM: its exit code and what it printed on
 * standard output and standard error (each stripped of surrounding white space).
 */
public record CliRun(int code, String out, String err) {
  /**
   * Runs {@code vcorfu ARGS...} and captures what it printed, on the command line {@code
   * VcorfuCli.main} builds for these arguments (only the command they name; {@code
   * LazyCommandLineTest} checks that it parses and answers as the whole tree).
   */
  public static CliRun of(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var cli = VcorfuCli.forRun(args);
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    int code = cli.execute(args);
    return new CliRun(code, out.toString().strip(), err.toString().strip());
  }

  /** Runs {@code vcorfu ARGS...}, the arguments given as a list. */
  public static CliRun of(List<String> args) {
    return of(args.toArray(String[]::new));
  }

  /**
   * Runs {@code vcorfu cluster init --zookeeper ZK --cluster c1 --nodes NODES MORE...}: cluster c1
   * of the tests that set up a cluster from the command line.
   */
  public static CliRun clusterInit(String zookeeper, String nodes, String... more) {
    List<String> args =
        new java.util.ArrayList<>(
            List.of(
                "cluster", "init", "--zookeeper", zookeeper, "--cluster", "c1", "--nodes", nodes));
    args.addAll(List.of(more));
    return of(args);
  }

  /** Standard output, line by line (none when it printed nothing). */
  public List<String> lines() {
    return out.isBlank() ? List.of() : List.of(out.split("\n"));
  }
}
