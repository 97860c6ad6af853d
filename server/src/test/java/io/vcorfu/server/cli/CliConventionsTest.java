package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.server.Node;
import io.vcorfu.server.NodeConfig;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The command line's conventions: {@code --version}, {@code --help} on every command and a {@code
 * help} command, exit codes (0 done, 1 failed, 2 usage, 3 not found), values from files and
 * standard input, escaped text and JSON output, {@code --timeout}, and {@code VCORFU_ENDPOINT}.
 */
class CliConventionsTest {
  private static NettyTransport transport;
  private static Node node;

  @TempDir Path tmp;

  @BeforeAll
  static void start() {
    transport = new NettyTransport();
    node = Node.start(NodeConfig.inMemory(new Endpoint("127.0.0.1", 0)), transport);
    node.ready().join();
  }

  @AfterAll
  static void stop() {
    node.close();
    transport.close();
  }

  private static CliRun log(String... args) {
    List<String> all =
        new ArrayList<>(List.of("log", args[0], "--endpoint", node.endpoint().toString()));
    all.addAll(List.of(args).subList(1, args.length));
    return CliRun.of(all);
  }

  @Test
  void versionComesFromTheBuild() {
    CliRun r = CliRun.of("--version");
    assertThat(r.code()).isZero();
    assertThat(r.out()).startsWith("vcorfu ").doesNotContain("${").doesNotContain("unknown");
  }

  /**
   * Every command, nested ones included, answers {@code --help} with its usage and {@code
   * --version} with the build's, and exits 0.
   */
  @Test
  void everyCommandHasHelp() {
    List<String> paths = new ArrayList<>();
    collect(VcorfuCli.newCommandLine(), new ArrayList<>(), paths);
    assertThat(paths).contains("server", "log append", "map put", "cluster status", "bench");
    for (String path : paths) {
      List<String> args = new ArrayList<>(List.of(path.split(" ")));
      args.add("--help");
      CliRun r = CliRun.of(args);
      assertThat(r.code()).as("vcorfu %s --help: %s", path, r.err()).isZero();
      assertThat(r.out()).as("vcorfu %s --help", path).startsWith("Usage: vcorfu " + path);
      assertThat(r.out()).as("vcorfu %s --help describes it", path).contains("\n");
      args.set(args.size() - 1, "--version");
      CliRun v = CliRun.of(args);
      assertThat(v.code()).as("vcorfu %s --version: %s", path, v.err()).isZero();
      assertThat(v.out()).as("vcorfu %s --version", path).startsWith("vcorfu ");
    }
    CliRun help = CliRun.of("help", "log");
    assertThat(help.code()).isZero();
    assertThat(help.out()).startsWith("Usage: vcorfu log").contains("append").contains("trim");
    assertThat(CliRun.of("log", "append", "--help").out()).contains("--value-file");
    CliRun top = CliRun.of("--help");
    assertThat(top.out()).contains("bench").contains("Exit codes").contains("VCORFU_ENDPOINT");
  }

  private static void collect(CommandLine cl, List<String> prefix, List<String> out) {
    for (var e : cl.getSubcommands().entrySet()) {
      if (e.getValue().getCommandSpec().usageMessage().hidden() || e.getKey().equals("help")) {
        continue;
      }
      List<String> path = new ArrayList<>(prefix);
      path.add(e.getKey());
      out.add(String.join(" ", path));
      collect(e.getValue(), path, out);
    }
  }

  /**
   * Every {@code --output} takes text or json alone; anything else is a usage error that names the
   * two, before the command reaches any node.
   */
  @Test
  void everyOutputOptionTakesTextOrJsonAndNamesThemWhenGivenSomethingElse() {
    List<List<String>> commands =
        List.of(
            List.of("cluster", "status"),
            List.of("cluster", "add-node", "127.0.0.1:1"),
            List.of("cluster", "remove-node", "127.0.0.1:1"),
            List.of("log", "tail"),
            List.of("map", "get", "--map", "m", "k"));
    for (List<String> command : commands) {
      List<String> args = new ArrayList<>(command);
      args.addAll(List.of("--output", "xml", "--endpoint", "127.0.0.1:1"));
      CliRun r = CliRun.of(args);
      assertThat(r.code()).as("vcorfu %s --output xml", command).isEqualTo(VcorfuCli.USAGE);
      assertThat(r.err())
          .as("vcorfu %s --output xml", command)
          .contains("--output")
          .contains("text")
          .contains("json")
          .contains("xml");
    }
  }

  @Test
  void exitCodesTellUsageErrorsAndMissingThingsFromFailures() throws Exception {
    assertThat(CliRun.of("log", "tail", "--no-such-option").code()).isEqualTo(VcorfuCli.USAGE);
    assertThat(log("read").code()).as("neither --stream nor --global").isEqualTo(VcorfuCli.USAGE);
    assertThat(log("append", "--stream", "s").code()).as("no value").isEqualTo(VcorfuCli.USAGE);
    CliRun missing = log("read", "--stream", "never-written");
    assertThat(missing.code()).isEqualTo(VcorfuCli.NOT_FOUND);
    assertThat(missing.err()).isEqualTo("vcorfu: stream 'never-written' has never been written");
    CliRun refused;
    try (ServerSocket closed = new ServerSocket(0)) {
      refused =
          CliRun.of(
              "log", "tail", "--endpoint", "127.0.0.1:" + closed.getLocalPort(), "--timeout", "2s");
    }
    assertThat(refused.code())
        .as("nothing listens: the operation fails")
        .isEqualTo(VcorfuCli.FAILED);
    assertThat(refused.err()).startsWith("vcorfu: ").doesNotContain("Exception");
  }

  /**
   * Option values their types let through but no command can use are usage errors, told in one line
   * that names the option, before anything is written: negative addresses and counts, empty names,
   * a --value-file that is not there, a port out of range.
   */
  @Test
  void badOptionValuesAreUsageErrorsThatNameTheOptionAndWriteNothing() throws Exception {
    String endpoint = node.endpoint().toString();
    long globalBefore = Long.parseLong(log("tail").out().trim().split(" ")[1]);
    Path missing = tmp.resolve("no-such-value");
    Path aFile = Files.writeString(tmp.resolve("a-file"), "not a directory");
    List<List<String>> bad =
        List.of(
            List.of("log", "read", "--endpoint", endpoint, "--stream", "s", "--from", "-5"),
            List.of("log", "read", "--endpoint", endpoint, "--global", "--to", "-2"),
            List.of("log", "append", "--endpoint", endpoint, "--stream", "", "v"),
            List.of(
                "log",
                "append",
                "--endpoint",
                endpoint,
                "--stream",
                "s",
                "--value-file",
                missing.toString()),
            List.of("log", "tail", "--endpoint", endpoint, "--stream", ""),
            List.of("log", "trim", "--endpoint", endpoint, "--stream", "s", "--before", "-1"),
            List.of("map", "put", "--endpoint", endpoint, "--map", "", "k", "v"),
            List.of(
                "map",
                "put",
                "--endpoint",
                endpoint,
                "--map",
                "m",
                "k",
                "--value-file",
                missing.toString()),
            List.of("map", "scan", "--endpoint", endpoint, "--map", "m", "--limit", "-1"),
            List.of("server", "--port", "70000", "--memory"),
            List.of("zookeeper", "--port", "0", "--data-dir", tmp.resolve("zk").toString()),
            List.of("server", "--data-dir", aFile.toString()),
            List.of("zookeeper", "--data-dir", aFile.toString()));
    List<String> options =
        List.of(
            "--from",
            "--to",
            "--stream",
            "--value-file",
            "--stream",
            "--before",
            "--map",
            "--value-file",
            "--limit",
            "--port",
            "--port",
            "--data-dir",
            "--data-dir");
    for (int i = 0; i < bad.size(); i++) {
      CliRun r = CliRun.of(bad.get(i));
      String command = String.join(" ", bad.get(i));
      assertThat(r.code()).as("vcorfu %s: %s", command, r.err()).isEqualTo(VcorfuCli.USAGE);
      assertThat(r.err().lines().findFirst().orElse(""))
          .as("vcorfu %s", command)
          .startsWith("vcorfu: " + options.get(i) + " ")
          .doesNotContain("Exception");
    }
    assertThat(Long.parseLong(log("tail").out().trim().split(" ")[1]))
        .as("the global tail: nothing was written")
        .isEqualTo(globalBefore);
    assertThat(tmp.resolve("zk")).as("no ZooKeeper directory made").doesNotExist();
    assertThat(Files.readString(aFile))
        .as("the file given as a directory")
        .isEqualTo("not a directory");
  }

  /** A node whose port is taken fails at once, with one line, and leaves no data directory. */
  @Test
  void aServerWhosePortIsTakenLeavesNoDataDirectory() throws Exception {
    Path dir = tmp.resolve("never-made");
    try (ServerSocket taken = new ServerSocket(0)) {
      CliRun r =
          CliRun.of(
              "server",
              "--port",
              Integer.toString(taken.getLocalPort()),
              "--data-dir",
              dir.toString());
      assertThat(r.code()).as(r.err()).isEqualTo(VcorfuCli.FAILED);
      assertThat(r.err().lines())
          .singleElement()
          .asString()
          .startsWith("vcorfu: cannot listen on 127.0.0.1:" + taken.getLocalPort() + ": ");
    }
    assertThat(dir).doesNotExist();
  }

  /** A node that accepts connections and never answers: the command gives up at --timeout. */
  @Test
  void timeoutBoundsTheWait() throws Exception {
    try (ServerSocket silent = new ServerSocket(0)) {
      Thread acceptor =
          new Thread(
              () -> {
                List<Socket> held = new ArrayList<>();
                try {
                  while (true) {
                    held.add(silent.accept());
                  }
                } catch (Exception closed) {
                  held.forEach(
                      s -> {
                        try {
                          s.close();
                        } catch (Exception ignored) {
                          // closing
                        }
                      });
                }
              });
      acceptor.setDaemon(true);
      acceptor.start();
      long started = System.nanoTime();
      CliRun r =
          CliRun.of(
              "log",
              "tail",
              "--endpoint",
              "127.0.0.1:" + silent.getLocalPort(),
              "--timeout",
              "700ms");
      long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      assertThat(r.code()).isEqualTo(VcorfuCli.FAILED);
      assertThat(r.err()).startsWith("vcorfu: ");
      assertThat(tookMillis)
          .as("gave up near --timeout, not after the 30 s default")
          .isLessThan(20_000);
    }
  }

  @Test
  void valuesComeFromArgumentsFilesOrStandardInputAndPrintOnOneLineEach() throws Exception {
    byte[] binary = {0, 1, (byte) 0xff, 'a', '\\', '\n'};
    Path file = tmp.resolve("value.bin");
    Files.write(file, binary);
    assertThat(log("append", "--stream", "conv", "--value-file", file.toString()).code()).isZero();
    assertThat(log("append", "--stream", "conv", "two\nlines\tand\\slash").code()).isZero();
    InputStream saved = Values.stdin;
    Values.stdin = new ByteArrayInputStream("from stdin".getBytes(StandardCharsets.UTF_8));
    try {
      assertThat(log("append", "--stream", "conv", "-").code()).isZero();
    } finally {
      Values.stdin = saved;
    }

    CliRun text = log("read", "--stream", "conv");
    assertThat(text.lines()).hasSize(3);
    assertThat(text.lines().get(0)).endsWith(" \\x00\\x01\\xffa\\\\\\x0a");
    assertThat(text.lines().get(1)).endsWith(" two\\nlines\\tand\\\\slash");
    assertThat(text.lines().get(2)).endsWith(" from stdin");

    CliRun json = log("read", "--stream", "conv", "--output", "json");
    assertThat(json.lines()).hasSize(3);
    ObjectMapper m = new ObjectMapper();
    JsonNode first = m.readTree(json.lines().get(0));
    assertThat(Base64.getDecoder().decode(first.get("valueBase64").asText())).isEqualTo(binary);
    assertThat(m.readTree(json.lines().get(1)).get("value").asText())
        .isEqualTo("two\nlines\tand\\slash");
    JsonNode tail = m.readTree(log("tail", "--stream", "conv", "--output", "json").out());
    assertThat(tail.get("tail").asLong()).isEqualTo(2);
    JsonNode appended =
        m.readTree(log("append", "--stream", "conv", "--output", "json", "x").out());
    assertThat(appended.get("streams").get("conv").asLong()).isEqualTo(3);
  }

  @Test
  void aValueLargerThanAnEntryIsRefusedBeforeItIsSent() throws Exception {
    Path big = tmp.resolve("big.bin");
    Files.write(big, new byte[Values.MAX_VALUE_BYTES + 10]);
    CliRun r = log("append", "--stream", "big", "--value-file", big.toString());
    assertThat(r.code()).isEqualTo(VcorfuCli.FAILED);
    assertThat(r.err()).contains("larger than an entry may be");
  }

  @Test
  void readingATrimmedStreamStartsAtItsTrimMark() {
    for (int i = 0; i < 5; i++) {
      assertThat(log("append", "--stream", "trimmed", "v" + i).code()).isZero();
    }
    assertThat(log("trim", "--stream", "trimmed", "--before", "3").code()).isZero();
    CliRun r = log("read", "--stream", "trimmed");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.lines()).hasSize(2);
    assertThat(r.lines().get(0)).startsWith("3 ").endsWith(" v3");
    assertThat(r.err()).contains("trimmed below address 3");
  }

  /**
   * {@code VCORFU_ENDPOINT} names the nodes when {@code --endpoint} is not given (a real process).
   */
  @Test
  void theEndpointComesFromTheEnvironment() throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                VcorfuCli.class.getName(),
                "log",
                "tail")
            .redirectErrorStream(true);
    pb.environment().put("VCORFU_ENDPOINT", node.endpoint().toString());
    Process p = pb.start();
    try {
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.exitValue()).as(out).isZero();
      assertThat(out.strip()).startsWith("global ");
    } finally {
      p.destroyForcibly();
    }
  }
}
