package io.vcorfu.server.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.server.Node;
import io.vcorfu.server.NodeConfig;
import io.vcorfu.server.Scratch;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/**
 * The training run behind the class-data-sharing archive of the server jar: the build runs it once
 * with {@code -XX:DumpLoadedClassList=target/vcorfu-server.classlist} and writes a static archive
 * of the classes listed ({@code -Xshare:dump}), so that every class a node and the command line
 * load on their usual paths is in the archive, and {@code bin/vcorfu} starts the JVM with that
 * archive (classes mapped from it instead of being read, verified and linked again at every start).
 * Unpacked from the release archive, {@code bin/vcorfu} runs the training itself on its first
 * command, since a JVM maps an archive only for the jar path and the JVM it was written with. It
 * starts a durable node on 127.0.0.1 in a temporary directory, runs the common commands against it
 * in this process (appends, reads, tails, map puts and gets, ping, a few lines of {@code vcorfu
 * shell}), then the data commands again through the node's command host ({@link OneShot}), stops
 * the node and deletes the directory. What the commands print is discarded; a command that fails
 * makes the run fail, so a build never ships an archive of a broken path.
 */
public final class ClassTraining {
  private ClassTraining() {}

  /**
   * Runs the training, then exits 0 (the archive is written as the JVM exits, whatever threads the
   * node's libraries left behind); exits 1 with the failure if anything went wrong.
   */
  public static void main(String[] args) {
    try {
      train();
    } catch (Exception | Error e) {
      e.printStackTrace();
      System.exit(1);
    }
    System.exit(0);
  }

  private static void train() throws Exception {
    Logging.level("warn");
    // The release's node logs as conf/logback.xml says (above); a node run otherwise and a command
    // as CommandLogging sets up.
    for (CommandLogging.Kind kind :
        List.of(CommandLogging.Kind.NODE, CommandLogging.Kind.COMMAND)) {
      ch.qos.logback.classic.LoggerContext logging = new ch.qos.logback.classic.LoggerContext();
      CommandLogging.apply(logging, kind);
      logging.stop();
    }
    Path dir = Files.createTempDirectory("vcorfu-training");
    try {
      int port = Scratch.freeLocalPort();
      // The log keeps its copies for the whole run: with the default retention of a few seconds a
      // slow machine (bin/vcorfu also trains on the user's first command) could trim the global
      // log below the `log read --global` before it runs.
      Node node =
          Node.start(
              NodeConfig.durable(new Endpoint("127.0.0.1", port), dir.resolve("data"))
                  .withLogRetention(Duration.ofHours(1)),
              new NettyTransport());
      try {
        String ep = "127.0.0.1:" + port;
        List<String[]> commands = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
          commands.add(new String[] {"log", "append", "--endpoint", ep, "--stream", "t", "v" + i});
        }
        commands.add(new String[] {"log", "read", "--endpoint", ep, "--stream", "t"});
        commands.add(new String[] {"log", "read", "--endpoint", ep, "--global"});
        commands.add(new String[] {"log", "tail", "--endpoint", ep});
        commands.add(new String[] {"log", "tail", "--endpoint", ep, "--stream", "t"});
        for (int i = 0; i < 10; i++) {
          commands.add(new String[] {"map", "put", "--endpoint", ep, "--map", "m", "k" + i, "v"});
          commands.add(new String[] {"map", "get", "--endpoint", ep, "--map", "m", "k" + i});
        }
        commands.add(new String[] {"map", "diff", "--endpoint", ep, "--map", "m", "--from", "-1"});
        commands.add(new String[] {"log", "head", "--endpoint", ep, "--stream", "t"});
        commands.add(new String[] {"cluster", "status", "--endpoint", ep});
        commands.add(new String[] {"map", "scan", "--endpoint", ep, "--map", "m"});
        commands.add(new String[] {"ping", "--endpoint", ep});
        commands.add(new String[] {"--help"});
        for (String[] c : commands) {
          run(c, null);
        }
        run(
            new String[] {"shell", "--endpoint", ep},
            "map put --map m k1 w\nmap get --map m k1\nlog append --stream t 'v x'\nlog tail\n");
        // The quick path of one-shot commands, both its ends (the node runs them: OneShot).
        CommandHost host = CommandHost.serve(node, null, null);
        try {
          for (String[] c : commands.subList(0, commands.size() - 3)) {
            onNode(c);
          }
          onNode(new String[] {"ping", "--endpoint", ep}); // on bare sockets: QuickPing
        } finally {
          host.close();
        }
      } finally {
        node.close();
      }
    } finally {
      Scratch.deleteTree(dir);
    }
  }

  /** Runs {@code vcorfu COMMAND...}; {@code shellLines}, when given, are the shell's batch. */
  private static void run(String[] command, String shellLines) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = VcorfuCli.newCommandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    if (shellLines != null) {
      ShellCommand shell = cli.getSubcommands().get("shell").getCommand();
      shell.input = new java.io.ByteArrayInputStream(shellLines.getBytes(UTF_8));
      shell.interactive = false;
    }
    int code = cli.execute(command);
    if (code != VcorfuCli.OK) {
      throw new IllegalStateException(
          "training command `vcorfu "
              + String.join(" ", command)
              + "` exited "
              + code
              + ": "
              + err);
    }
  }

  /** Runs {@code vcorfu COMMAND...} through a node's command host ({@link OneShot}). */
  private static void onNode(String[] command) {
    java.io.PrintStream discard = new java.io.PrintStream(java.io.OutputStream.nullOutputStream());
    Integer code = OneShot.onNode(command, java.util.Map.of(), discard, discard);
    if (code == null || code != VcorfuCli.OK) {
      throw new IllegalStateException(
          "training command `vcorfu " + String.join(" ", command) + "` on the node: " + code);
    }
  }
}
