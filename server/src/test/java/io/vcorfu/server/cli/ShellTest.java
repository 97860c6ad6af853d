package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.server.Node;
import io.vcorfu.server.NodeConfig;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code vcorfu shell} reading its lines from standard input (a batch), against a node on loopback:
 * each line prints what the command on its own prints, over one kept runtime; a failing line prints
 * its error and the next lines run, the exit code being the first failure's; {@code
 * --stop-on-error}; commands that run on their own are refused; quoting as in a shell.
 */
class ShellTest {
  private static NettyTransport transport;
  private static Node node;
  private static String endpoint;

  @BeforeAll
  static void start() {
    transport = new NettyTransport();
    node = Node.start(NodeConfig.inMemory(new Endpoint("127.0.0.1", 0)), transport);
    node.ready().join();
    endpoint = node.endpoint().toString();
  }

  @AfterAll
  static void stop() {
    node.close();
    transport.close();
  }

  /** A shell's run: its exit code, what it printed, and how many clients it opened. */
  record ShellRun(CliRun run, int opened) {}

  /** Runs {@code vcorfu shell --endpoint NODE ARGS...} with {@code lines} on standard input. */
  private static ShellRun shell(String lines, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = VcorfuCli.newCommandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    ShellCommand shell = cli.getSubcommands().get("shell").getCommand();
    shell.input = new ByteArrayInputStream(lines.getBytes(StandardCharsets.UTF_8));
    shell.interactive = false;
    List<String> all = new ArrayList<>(List.of("shell", "--endpoint", endpoint));
    all.addAll(List.of(args));
    int code = cli.execute(all.toArray(String[]::new));
    return new ShellRun(
        new CliRun(code, out.toString().strip(), err.toString().strip()), shell.session.opened());
  }

  /** Runs {@code vcorfu WORDS... --endpoint NODE} on its own. */
  private static CliRun alone(String... words) {
    List<String> all = new ArrayList<>(List.of(words));
    all.add("--endpoint");
    all.add(endpoint);
    return CliRun.of(all);
  }

  @Test
  void aBatchOfPutsAndGetsPrintsWhatTheCommandsOnTheirOwnPrintOverOneRuntime() {
    int n = 25;
    List<String[]> commands = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      commands.add(new String[] {"map", "put", "--map", "batch-" + "M", "k" + (i % 10), "v" + i});
      commands.add(new String[] {"map", "get", "--map", "batch-" + "M", "k" + (i % 10)});
    }
    commands.add(new String[] {"map", "scan", "--map", "batch-" + "M"});
    StringBuilder file = new StringBuilder("# puts and gets\n\n");
    for (String[] c : commands) {
      file.append(String.join(" ", c).replace("batch-M", "batch-shell")).append('\n');
    }
    ShellRun shell = shell(file.toString());

    StringBuilder expected = new StringBuilder();
    for (String[] c : commands) {
      String[] words = String.join(" ", c).replace("batch-M", "batch-alone").split(" ");
      CliRun one = alone(words);
      assertThat(one.code()).as(one.err()).isZero();
      expected.append(one.out()).append('\n');
    }
    assertThat(shell.run().code()).as(shell.run().err()).isZero();
    assertThat(shell.run().err()).isEmpty();
    assertThat(shell.run().out()).isEqualTo(expected.toString().strip());
    assertThat(shell.run().lines()).hasSize(2 * n + 10);
    assertThat(shell.opened()).as("runtimes opened for %d lines", 2 * n + 1).isEqualTo(1);
  }

  @Test
  void aFailingLinePrintsItsErrorTheNextLinesRunAndTheFirstFailureIsTheExitCode() {
    ShellRun shell =
        shell(
            """
            map put --map mid k1 v1
            map put --map mid
            map get --map mid absent
            map put --map mid k2 v2
            """);
    assertThat(shell.run().code()).isEqualTo(VcorfuCli.USAGE);
    CliRun usage = alone("map", "put", "--map", "mid-alone");
    CliRun missing = alone("map", "get", "--map", "mid", "absent");
    assertThat(usage.code()).isEqualTo(VcorfuCli.USAGE);
    assertThat(missing.code()).isEqualTo(VcorfuCli.NOT_FOUND);
    assertThat(shell.run().err()).isEqualTo(usage.err() + "\n" + missing.err());
    assertThat(shell.run().lines()).containsExactly("(none)", "(none)");
    assertThat(alone("map", "get", "--map", "mid", "k2").out()).isEqualTo("v2");
  }

  @Test
  void stopOnErrorStopsAtTheFirstFailingLineWithItsExitCode() {
    ShellRun shell =
        shell(
            """
            map put --map stop k1 v1
            map get --map stop absent
            map put --map stop k2 v2
            """,
            "--stop-on-error");
    assertThat(shell.run().code()).isEqualTo(VcorfuCli.NOT_FOUND);
    assertThat(shell.run().err()).isEqualTo("vcorfu: map 'stop' has no key 'absent'");
    assertThat(alone("map", "get", "--map", "stop", "k1").out()).isEqualTo("v1");
    assertThat(alone("map", "get", "--map", "stop", "k2").code()).isEqualTo(VcorfuCli.NOT_FOUND);
  }

  @Test
  void commandsThatRunOnTheirOwnAreRefusedWithOneLineAndTheShellGoesOn() {
    ShellRun shell =
        shell(
            """
            server --memory --port 0
            zookeeper --port 0
            shell
            map put --map refused k v
            """);
    assertThat(shell.run().code()).isEqualTo(VcorfuCli.USAGE);
    assertThat(shell.run().err().lines().toList())
        .containsExactly(
            "vcorfu: server does not run inside the shell; a node runs on its own: start it with"
                + " bin/vcorfu server",
            "vcorfu: zookeeper does not run inside the shell; a ZooKeeper server runs on its own:"
                + " start it with bin/vcorfu zookeeper",
            "vcorfu: shell does not run inside the shell; this is already the shell: type a"
                + " command");
    assertThat(shell.run().lines()).containsExactly("(none)");
  }

  @Test
  void wordsAreQuotedAsInAShell() {
    ShellRun shell =
        shell(
            """
            map put --map quoted "a key" 'say "hi"'   # a comment
            map get --map quoted "a key"
            map put --map quoted back\\ slash "x \\"y\\" \\\\z"
            map get --map quoted 'back slash'
            map put --map quoted empty ''
            map get --map quoted empty --output json
            map get --map quoted "unclosed
            map get --map quoted "a key"
            """);
    assertThat(shell.run().code()).isEqualTo(VcorfuCli.USAGE);
    assertThat(shell.run().lines())
        .containsExactly(
            "(none)",
            "say \"hi\"",
            "(none)",
            "x \"y\" \\\\z",
            "(none)",
            "{\"key\":\"empty\",\"value\":\"\"}",
            "say \"hi\"");
    assertThat(shell.run().err())
        .isEqualTo("vcorfu: unclosed \" quote: close it, or write \\\" for a \"");
  }

  @Test
  void eachLineStartsFromTheDefaultsNotFromThePreviousLinesOptions() {
    ShellRun shell =
        shell(
            """
            log append --stream one --stream two first
            log append --stream three second --output json
            log tail --stream three
            map put --map reset k a --fast
            map put --map reset k b
            """);
    assertThat(shell.run().code()).as(shell.run().err()).isZero();
    List<String> lines = shell.run().lines();
    assertThat(lines).hasSize(6);
    assertThat(lines.get(5))
        .as("the put after a --fast one prints the previous value")
        .isEqualTo("a");
    assertThat(lines.get(1)).isEqualTo("one 0");
    assertThat(lines.get(2)).isEqualTo("two 0");
    assertThat(lines.get(3)).startsWith("{").contains("\"three\":0").doesNotContain("one");
    assertThat(lines.get(4)).startsWith("three 0 global ");
  }

  @Test
  void standardInputIsTheShellsAndExitEndsTheLines() {
    ShellRun shell =
        shell(
            """
            map put --map stdin k -
            map put --map stdin k v
            exit
            map put --map stdin k w
            """);
    assertThat(shell.run().code()).isEqualTo(VcorfuCli.USAGE);
    assertThat(shell.run().err())
        .startsWith("vcorfu: inside vcorfu shell standard input carries the commands");
    assertThat(shell.run().lines()).containsExactly("(none)");
    assertThat(alone("map", "get", "--map", "stdin", "k").out()).isEqualTo("v");
  }

  @Test
  void aLineThatGivesItsOwnEndpointIsAskedThere() {
    ShellRun shell =
        shell("ping --endpoint " + endpoint + "\nmap put --map own k v --endpoint " + endpoint);
    assertThat(shell.run().code()).as(shell.run().err()).isZero();
    assertThat(shell.run().lines().get(0)).startsWith(endpoint + " serving epoch");
  }
}
