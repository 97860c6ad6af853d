package io.vcorfu.server.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code vcorfu shell}: runs vcorfu commands one line after another in one JVM, each line parsed as
 * the arguments of an ordinary command and run by the same command tree, printing what the command
 * on its own prints. The lines share a {@link ShellSession}: one connection and one runtime per
 * target, kept from line to line. At a terminal it prompts, keeps a history and completes names
 * ({@link ShellTerminal}); otherwise it reads standard input as a batch: blank lines and {@code #}
 * comments skipped, no prompts, exit code that of the first line that failed (0 when none did).
 * Keeps its own options: the endpoint and timeout every line starts from, and whether a batch stops
 * at its first failure.
 */
@Command(
    name = "shell",
    mixinStandardHelpOptions = true,
    description = {
      "Run vcorfu commands one per line in one process, reusing one connection and runtime per"
          + " endpoint: `map put --map m k v`, `log tail`, ... (help lists them, exit or Ctrl-D"
          + " leaves). At a terminal: history in ~/.vcorfu_history and Tab completion. With"
          + " standard input from a file or a pipe: runs every line (blank lines and # comments"
          + " skipped), prints what each command prints, and exits with the first failing line's"
          + " exit code, or 0.",
      "--endpoint, --timeout and the --tls-* options here are the defaults of the lines that do"
          + " not give their own."
    })
final class ShellCommand implements Callable<Integer> {
  /** The exit code of a line that Ctrl-C stopped. */
  static final int INTERRUPTED = 130;

  /** Commands that run on their own, never as a line of a shell, and what to do instead. */
  static final Map<String, String> REFUSED =
      Map.of(
          "server", "a node runs on its own: start it with bin/vcorfu server",
          "zookeeper", "a ZooKeeper server runs on its own: start it with bin/vcorfu zookeeper",
          "shell", "this is already the shell: type a command",
          "bench", "benchmarks run from their own jar: run bin/vcorfu bench on its own");

  /** The words that leave the shell. */
  static final Set<String> EXIT = Set.of("exit", "quit");

  @Mixin Connection connection = new Connection();

  @Option(
      names = "--stop-on-error",
      description =
          "With lines from a file or a pipe: stop at the first line that fails (its exit code)"
              + " instead of running the rest.")
  boolean stopOnError;

  @Spec CommandSpec spec;

  /** Where the lines come from (tests give their own). */
  InputStream input = System.in;

  /** Whether a person types the lines: null asks whether the JVM has a terminal. */
  Boolean interactive;

  /** The session of the latest run (tests read how many clients it opened). */
  ShellSession session;

  /** What a line ended with: its exit code, or whether it asks to leave or was nothing at all. */
  record Outcome(int code, boolean leave, boolean blank) {}

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try (ShellSession session = new ShellSession()) {
      this.session = session;
      Lines lines = new Lines(session, out, err);
      boolean person = interactive != null ? interactive : System.console() != null;
      if (person) {
        ShellTerminal.run(lines, VcorfuCli.newCommandLine().getCommandSpec(), prompt());
        return VcorfuCli.OK;
      }
      return batch(lines);
    }
  }

  private String prompt() {
    return "vcorfu " + connection.endpoints.given() + "> ";
  }

  /** Runs every line of {@link #input}; the first failing line's exit code, or 0. */
  private int batch(Lines lines) throws IOException {
    int first = VcorfuCli.OK;
    BufferedReader in = new BufferedReader(new InputStreamReader(input, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      Outcome o = lines.run(line);
      if (o.leave()) {
        break;
      }
      if (o.code() != VcorfuCli.OK && first == VcorfuCli.OK) {
        first = o.code();
        if (stopOnError) {
          break;
        }
      }
    }
    return first;
  }

  /** Runs the lines of one shell, each as a command of its own on the shell's session. */
  final class Lines {
    private final ShellSession session;
    private final PrintWriter out;
    private final PrintWriter err;
    private CommandLine tree;

    Lines(ShellSession session, PrintWriter out, PrintWriter err) {
      this.session = session;
      this.out = out;
      this.err = err;
    }

    /** The session the lines share. */
    ShellSession session() {
      return session;
    }

    /** Runs one line: a command, help, exit, or nothing (blank or a comment). */
    Outcome run(String line) {
      List<String> words;
      try {
        words = ShellWords.split(line);
      } catch (IllegalArgumentException e) {
        err.println("vcorfu: " + e.getMessage());
        err.flush();
        return new Outcome(VcorfuCli.USAGE, false, false);
      }
      if (words.isEmpty()) {
        return new Outcome(VcorfuCli.OK, false, true);
      }
      String first = words.get(0);
      if (EXIT.contains(first) && words.size() == 1) {
        return new Outcome(VcorfuCli.OK, true, false);
      }
      if (first.equals("help") && words.size() == 1) {
        help();
        return new Outcome(VcorfuCli.OK, false, false);
      }
      if (REFUSED.containsKey(first)) {
        err.println("vcorfu: " + first + " does not run inside the shell; " + REFUSED.get(first));
        err.flush();
        return new Outcome(VcorfuCli.USAGE, false, false);
      }
      int code = execute(words);
      Thread.interrupted(); // a Ctrl-C that came as the command ended is for that command only
      if (code == VcorfuCli.FAILED || code == INTERRUPTED) {
        session.reset(); // a client left waiting on a node that went away is not reused
      }
      return new Outcome(code, false, false);
    }

    /**
     * Runs {@code words} on the shell's command tree, made once: picocli sets every option of the
     * command a line names back to its default before parsing the line (building the tree anew took
     * 25 ms a line), so nothing a line gives reaches the next.
     */
    private int execute(List<String> words) {
      if (tree == null) {
        tree = VcorfuCli.forShell(session);
        tree.setOut(out);
        tree.setErr(err);
        tree.setDefaultValueProvider(this::defaultValue);
        CommandLine.IExecutionExceptionHandler failed = tree.getExecutionExceptionHandler();
        tree.setExecutionExceptionHandler(
            (e, line, parsed) -> {
              if (Thread.currentThread().isInterrupted() || causedByInterrupt(e)) {
                line.getErr().println("vcorfu: interrupted");
                return INTERRUPTED;
              }
              return failed.handleExecutionException(e, line, parsed);
            });
      }
      int code = tree.execute(words.toArray(String[]::new));
      out.flush();
      err.flush();
      return code;
    }

    /**
     * The shell's --endpoint, --timeout and --tls-* options, for the lines that give none of their
     * own.
     */
    private String defaultValue(CommandLine.Model.ArgSpec arg) {
      if (arg instanceof OptionSpec o) {
        java.nio.file.Path tls =
            switch (o.longestName()) {
              case "--tls-ca" -> connection.tls.ca;
              case "--tls-cert" -> connection.tls.cert;
              case "--tls-key" -> connection.tls.key;
              default -> null;
            };
        if (tls != null) {
          return tls.toString();
        }
        if (o.longestName().equals("--endpoint")) {
          return connection.endpoints.given();
        }
        if (o.longestName().equals("--timeout") && o.type() == Duration.class) {
          return connection.timeout.toMillis() + "ms";
        }
      }
      return null;
    }

    private void help() {
      out.println(
          "Commands, as after `vcorfu` on the command line (`help COMMAND` or `COMMAND --help` for"
              + " their options):");
      CommandSpec root = VcorfuCli.newCommandLine().getCommandSpec();
      root.subcommands()
          .forEach(
              (name, sub) -> {
                if (name.equals("help")) {
                  out.printf("  %-20s %s%n", name, "Print a command's options: help map put.");
                } else if (!REFUSED.containsKey(name)) {
                  String[] d = sub.getCommandSpec().usageMessage().description();
                  out.printf("  %-20s %s%n", name, d.length == 0 ? "" : firstSentence(d[0]));
                }
              });
      out.println("  exit, quit (Ctrl-D)  leave the shell");
      out.println(
          "Lines are split as a shell splits them ('single', \"double\" quotes, \\ escapes; #"
              + " comments). Not here: "
              + String.join(", ", new java.util.TreeSet<>(REFUSED.keySet()))
              + " (run them on their own).");
      out.flush();
    }
  }

  private static String firstSentence(String text) {
    int end = text.indexOf(". ");
    return end < 0 ? text : text.substring(0, end + 1);
  }

  private static boolean causedByInterrupt(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof InterruptedException
          || t instanceof java.nio.channels.ClosedByInterruptException) {
        return true;
      }
    }
    return false;
  }
}
