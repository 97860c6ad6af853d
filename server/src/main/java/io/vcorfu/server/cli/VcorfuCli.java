package io.vcorfu.server.cli;

import io.vcorfu.protocol.VCorfuException;
import io.vcorfu.protocol.netty.LeakSampling;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code vcorfu} command. Exit codes: {@value #OK} done, {@value #FAILED} the operation failed,
 * {@value #USAGE} a usage error (unknown option, malformed value), {@value #NOT_FOUND} what was
 * asked about does not exist.
 */
@Command(
    name = "vcorfu",
    mixinStandardHelpOptions = true,
    versionProvider = VcorfuCli.Version.class,
    description = "vcorfu: a strongly consistent object store on a materialized shared log.",
    footer = {
      "",
      "Exit codes: 0 done, 1 the operation failed, 2 usage error, 3 not found.",
      "Environment: VCORFU_ENDPOINT, the nodes to ask when --endpoint is not given."
    })
// Subcommands: SUBCOMMANDS, added when the command line is made (all of them, or for a run of one
// command only that one: building the model of every command costs a one-shot call most of its
// start-up).
public final class VcorfuCli {
  /** The commands under {@code vcorfu}, in the order {@code vcorfu --help} lists them. */
  static final List<Class<?>> SUBCOMMANDS =
      List.of(
          ServerCommand.class,
          LogCommands.class,
          MapCommands.class,
          ClusterCommands.class,
          AclCommands.class,
          TokenCommands.class,
          ZooKeeperCommand.class,
          PingCommand.class,
          ShellCommand.class,
          VcorfuCli.Bench.class,
          CommandLine.HelpCommand.class,
          picocli.AutoComplete.GenerateCompletion.class);

  /**
   * The commands under those of {@link #SUBCOMMANDS} that list theirs here rather than in their
   * annotation, so that a one-shot run of one of them builds only that one.
   */
  static final Map<Class<?>, List<Class<?>>> GROUPS =
      Map.of(
          LogCommands.class, LogCommands.SUBCOMMANDS, MapCommands.class, MapCommands.SUBCOMMANDS);

  /** The operation succeeded. */
  public static final int OK = 0;

  /** The operation failed (the cluster refused it, a node could not be reached, ...). */
  public static final int FAILED = 1;

  /** A usage error: unknown command or option, a missing or malformed value. */
  public static final int USAGE = 2;

  /** What the command was asked about does not exist (a map, a key, a stream). */
  public static final int NOT_FOUND = 3;

  /** The shell whose lines this command line runs, or null for a command run on its own. */
  final ShellSession session;

  private VcorfuCli() {
    this(null);
  }

  /** The command line of the lines of the shell {@code session}. */
  VcorfuCli(ShellSession session) {
    this.session = session;
  }

  /** The version of the build, from {@code vcorfu-version.properties}. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() throws java.io.IOException {
      java.util.Properties p = new java.util.Properties();
      try (java.io.InputStream in =
          VcorfuCli.class.getResourceAsStream("/vcorfu-version.properties")) {
        if (in != null) {
          p.load(in);
        }
      }
      return new String[] {
        "vcorfu " + p.getProperty("version", "(unknown version)"),
        "Java "
            + System.getProperty("java.version")
            + " ("
            + System.getProperty("java.vm.name")
            + ")"
      };
    }
  }

  /**
   * {@code vcorfu bench}: listed here so that {@code vcorfu --help} shows it; {@code bin/vcorfu}
   * runs it from the benchmarks jar, which this jar does not contain.
   */
  @Command(
      name = "bench",
      description =
          "Benchmarks and side-by-side comparisons (run through bin/vcorfu bench; see bin/vcorfu"
              + " bench --help).",
      mixinStandardHelpOptions = true)
  static final class Bench implements java.util.concurrent.Callable<Integer> {
    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

    @picocli.CommandLine.Unmatched List<String> args = new java.util.ArrayList<>();

    @Override
    public Integer call() {
      spec.commandLine()
          .getErr()
          .println(
              "vcorfu: bench runs from the benchmarks jar: use bin/vcorfu bench "
                  + String.join(" ", args));
      return USAGE;
    }
  }

  public static void main(String[] args) {
    // picocli looks for Groovy's closure class, absent here, on every start: a search of the whole
    // class path and an exception, about a twentieth of a node's start.
    System.setProperty("picocli.disable.closures", "true");
    // Before any buffer is allocated (see LeakSampling).
    LeakSampling.configure();
    // A one-shot data command first asks its node to run it (OneShot): a JVM start and one round
    // trip instead of a whole client started here. Null: the node did not, so it runs here.
    Integer ranOnNode = OneShot.onNode(args, System.getenv(), System.out, System.err);
    if (ranOnNode != null) {
      System.exit(ranOnNode);
    }
    // Logging is set up in code (CommandLogging), read from no XML and only once something logs.
    // A node and a ZooKeeper server log as logback.xml says; any other command has the ZooKeeper
    // client's logs off, since a command that reaches ZooKeeper as a client says in one line what
    // went wrong and the client's own retries (a stack trace each) would bury it.
    String first = args.length > 0 ? args[0] : "";
    if (first.equals("server") || first.equals("zookeeper")) {
      CommandLogging.forNode();
    } else {
      CommandLogging.forCommand();
    }
    CommandLine cl = forRun(args);
    // UTF-8 whatever the locale: a value is printed as stored (with a POSIX locale Java 17's
    // default charset turned every non-ASCII character into '?'), as a node that runs the command
    // (OneShot) sends it.
    cl.setOut(utf8(System.out));
    cl.setErr(utf8(System.err));
    System.exit(cl.execute(args));
  }

  /** A writer of UTF-8 text onto {@code stream}, flushed at every line (as picocli's own). */
  static java.io.PrintWriter utf8(java.io.OutputStream stream) {
    return new java.io.PrintWriter(
        new java.io.OutputStreamWriter(stream, java.nio.charset.StandardCharsets.UTF_8), true);
  }

  /** The {@code vcorfu} command line, ready to execute. */
  public static CommandLine newCommandLine() {
    return withSubcommands(new VcorfuCli(), SUBCOMMANDS, null);
  }

  /** The command line of the lines of {@code session}'s shell: every command. */
  static CommandLine forShell(ShellSession session) {
    return withSubcommands(new VcorfuCli(session), SUBCOMMANDS, null);
  }

  /**
   * The commands that read the whole tree they are run in, so a run of one gets every command:
   * {@code help} lists them, {@code generate-completion} writes a script that completes them.
   */
  private static final List<Class<?>> READ_THE_WHOLE_TREE =
      List.of(CommandLine.HelpCommand.class, picocli.AutoComplete.GenerateCompletion.class);

  /** The command line for a run of {@code vcorfu ARGS...}: as {@link #forRunOf(String, String)}. */
  static CommandLine forRun(String... args) {
    return args.length > 1
        ? forRunOf(args[0], args[1])
        : args.length > 0 ? forRunOf(args[0]) : newCommandLine();
  }

  /**
   * The command line for a run whose first argument is {@code first}: only that command under
   * {@code vcorfu} when {@code first} names one (other than those of {@link #READ_THE_WHOLE_TREE}),
   * none for {@code --version}, else every command. The command runs, parses, fails and explains
   * itself exactly as in the whole tree.
   */
  static CommandLine forRunOf(String first) {
    return forRunOf(first, null);
  }

  /**
   * The command line for a run whose first two arguments are {@code first} and {@code second}: as
   * {@link #forRunOf(String)}, and under a command of {@link #GROUPS} only the one {@code second}
   * names, if it names one (else all of them, for its help and its suggestions).
   */
  static CommandLine forRunOf(String first, String second) {
    return forRunOf(first, second, null);
  }

  /** {@link #forRunOf(String, String)} for a command of {@code session} (null: on its own). */
  static CommandLine forRunOf(String first, String second, ShellSession session) {
    if (first.equals("--version") || first.equals("-V")) {
      return withSubcommands(new VcorfuCli(session), List.of(), null);
    }
    for (Class<?> c : SUBCOMMANDS) {
      if (!READ_THE_WHOLE_TREE.contains(c) && names(c, first)) {
        return withSubcommands(new VcorfuCli(session), List.of(c), second);
      }
    }
    return newCommandLine();
  }

  /** Whether {@code word} is the name or an alias of command class {@code c}. */
  private static boolean names(Class<?> c, String word) {
    Command command = c.getAnnotation(Command.class);
    return command != null
        && (command.name().equals(word) || List.of(command.aliases()).contains(word));
  }

  /**
   * {@code top} with {@code subcommands}, and under each of them its {@link #GROUPS} commands: only
   * the one {@code only} names when it names one, else all.
   */
  private static CommandLine withSubcommands(
      VcorfuCli top, List<Class<?>> subcommands, String only) {
    CommandLine cl = new CommandLine(top);
    for (Class<?> c : subcommands) {
      List<Class<?>> group = GROUPS.get(c);
      if (group == null) {
        cl.addSubcommand(c);
        continue;
      }
      List<Class<?>> named =
          only == null ? List.of() : group.stream().filter(g -> names(g, only)).toList();
      CommandLine g = new CommandLine(c);
      for (Class<?> sub : named.isEmpty() ? group : named) {
        g.addSubcommand(sub);
      }
      cl.addSubcommand(g);
    }
    return commandLine(cl);
  }

  /**
   * A command line whose failures print one clear line ({@code vcorfu: <message>}, see {@link
   * #describe}) and exit 1, instead of a stack trace. Shared by the {@code bench} tool.
   */
  public static CommandLine commandLine(Object command) {
    return commandLine(new CommandLine(command));
  }

  private static CommandLine commandLine(CommandLine cl) {
    giveVersion(cl);
    cl.setExecutionExceptionHandler(
        (e, line, parsed) -> {
          line.getErr().println("vcorfu: " + describe(e));
          return e instanceof NotFoundException ? NOT_FOUND : FAILED;
        });
    cl.setParameterExceptionHandler(
        (e, args) -> {
          CommandLine line = e.getCommandLine();
          line.getErr().println("vcorfu: " + e.getMessage());
          line.getErr()
              .println(
                  "Try '"
                      + line.getCommandSpec().qualifiedName()
                      + " --help' for the options it takes.");
          return USAGE;
        });
    return cl;
  }

  /**
   * Has {@code cl} and every command under it answer {@code --version} with the build's (also
   * picocli's own {@code generate-completion}, which would name picocli's version).
   */
  private static void giveVersion(CommandLine cl) {
    CommandLine.Model.CommandSpec spec = cl.getCommandSpec();
    if (spec.versionProvider() == null) {
      spec.versionProvider(new Version());
    }
    cl.getSubcommands().values().forEach(VcorfuCli::giveVersion);
  }

  /**
   * What went wrong, for a person: the messages of {@code error} and of every cause under it, outer
   * first, joined by ": " (so a wrapper's context is followed by the root cause's reason, such as
   * the file and offset of a corrupt segment). Wrappers that add no words of their own, and
   * messages already said, are left out; a typed error ({@link VCorfuException}, or an
   * IllegalArgumentException for bad input) ends the chain, its message being complete. A class
   * name appears only for an error that carries no message at all.
   */
  public static String describe(Throwable error) {
    StringBuilder out = new StringBuilder();
    java.util.Set<Throwable> seen =
        java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    for (Throwable t = error; t != null && seen.add(t); t = t.getCause()) {
      String m = ownMessage(t, out);
      if (m == null || out.indexOf(m) >= 0) {
        continue;
      }
      if (out.length() > 0) {
        out.append(": ");
      }
      out.append(m);
      if (t instanceof VCorfuException || t instanceof IllegalArgumentException) {
        break; // a typed error's message is whole; what it wraps is detail for the log
      }
    }
    if (out.length() == 0) {
      Throwable root = error;
      while (root.getCause() != null && root.getCause() != root) {
        root = root.getCause();
      }
      return "unexpected "
          + root.getClass().getSimpleName()
          + " (no details; the server log may say more)";
    }
    return out.toString();
  }

  /** {@code t}'s own words, or null when it only wraps its cause or says nothing. */
  private static String ownMessage(Throwable t, CharSequence saidSoFar) {
    if (t instanceof FileSystemException f && f.getReason() == null) {
      String what =
          t instanceof NoSuchFileException
              ? "no such file"
              : t instanceof AccessDeniedException
                  ? "permission denied"
                  : t instanceof FileAlreadyExistsException
                      ? "file already exists"
                      : t instanceof NotDirectoryException
                          ? "not a directory"
                          : t instanceof DirectoryNotEmptyException ? "directory not empty" : null;
      if (what != null) {
        String file = f.getFile();
        return file == null || saidSoFar.toString().contains(file) ? what : what + ": " + file;
      }
    }
    String m = t.getMessage();
    if (m == null || m.isBlank()) {
      return null;
    }
    Throwable cause = t.getCause();
    if (cause != null && m.equals(cause.toString())) {
      return null; // a wrapper such as CompletionException(cause) adds nothing
    }
    return m;
  }
}
