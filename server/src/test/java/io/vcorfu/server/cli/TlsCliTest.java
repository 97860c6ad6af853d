package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.TlsOptions;
import io.vcorfu.protocol.netty.TestCertificates;
import io.vcorfu.server.ServerProcess;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS from the command line: {@code vcorfu server --tls-cert --tls-key --tls-ca} serves over mutual
 * TLS and says so in its ready line; client commands connect with {@code --tls-ca}, {@code
 * --tls-cert} and {@code --tls-key} or the {@code VCORFU_TLS_*} variables, and are refused without
 * a certificate; bad TLS files stop the server before it starts anything, with one line and exit 2.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TlsCliTest {
  @TempDir Path tmp;

  private final TestCertificates.Authority ca = TestCertificates.authority("cli CA");

  private TlsOptions identity(String name) throws Exception {
    return ca.identityIn(tmp, name);
  }

  private static List<String> tlsFlags(TlsOptions tls) {
    List<String> out = new ArrayList<>(List.of("--tls-ca", tls.ca().toString()));
    if (tls.hasIdentity()) {
      out.addAll(List.of("--tls-cert", tls.cert().toString(), "--tls-key", tls.key().toString()));
    }
    return out;
  }

  private static CliRun log(ServerProcess node, List<String> tls, String... args) {
    List<String> all =
        new ArrayList<>(List.of("log", args[0], "--endpoint", node.endpoint().toString()));
    all.addAll(List.of(args).subList(1, args.length));
    all.addAll(tls);
    return CliRun.of(all);
  }

  /** The node's own ready line ({@code vcorfu node H:P ready (...)}), once it printed it. */
  private static String readyLine(ServerProcess node) {
    java.util.function.Supplier<java.util.Optional<String>> line =
        () ->
            node.output().stream()
                .filter(l -> l.startsWith("vcorfu node ") && l.contains(" ready ("))
                .findFirst();
    org.awaitility.Awaitility.await("ready line of " + node.endpoint())
        .atMost(java.time.Duration.ofSeconds(60))
        .until(() -> line.get().isPresent());
    return line.get().orElseThrow();
  }

  @Test
  void aTlsNodeServesClientsGivenCertificatesByFlagOrEnvironmentAndRefusesOthers()
      throws Exception {
    TlsOptions nodeTls = identity("node");
    int port = ServerProcess.freePort();
    List<String> args = new ArrayList<>(List.of("--memory"));
    args.addAll(
        List.of(
            "--tls-cert",
            nodeTls.cert().toString(),
            "--tls-key",
            nodeTls.key().toString(),
            "--tls-ca",
            nodeTls.ca().toString()));
    try (ServerProcess node = ServerProcess.start(port, args).awaitReady()) {
      String ready = readyLine(node);
      assertThat(ready)
          .containsPattern("TLS \\((openssl|jdk) engine\\) as ")
          .contains("CN=node")
          .contains("client certificates required");

      TlsOptions app = identity("app");
      CliRun append = log(node, tlsFlags(app), "append", "--stream", "s1", "hello");
      assertThat(append.code()).as(append.err()).isZero();
      CliRun read = log(node, tlsFlags(app), "read", "--stream", "s1");
      assertThat(read.code()).as(read.err()).isZero();
      assertThat(read.out()).endsWith("hello");

      // A CA but no certificate: refused at once with a line saying what to give.
      CliRun anonymous =
          log(node, tlsFlags(TlsOptions.trusting(nodeTls.ca())), "append", "--stream", "s1", "x");
      assertThat(anonymous.code()).isEqualTo(1);
      assertThat(anonymous.err())
          .startsWith("vcorfu: TLS with " + node.endpoint() + " failed")
          .contains("--tls-cert")
          .doesNotContain("Exception");
      // No TLS at all: answered at once (well within --timeout) with what to give.
      CliRun plaintext = log(node, List.of("--timeout", "60s"), "append", "--stream", "s1", "y");
      assertThat(plaintext.code()).isEqualTo(1);
      assertThat(plaintext.err())
          .startsWith("vcorfu: TLS with " + node.endpoint() + " failed")
          .contains("serves only TLS")
          .contains("--tls-ca")
          .doesNotContain("Exception")
          .doesNotContain("no response");

      // The variables stand for the flags (a real process: the environment is the process's).
      ProcessBuilder pb =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-cp",
                  System.getProperty("java.class.path"),
                  VcorfuCli.class.getName(),
                  "log",
                  "read",
                  "--stream",
                  "s1")
              .redirectErrorStream(true);
      pb.environment().put("VCORFU_ENDPOINT", node.endpoint().toString());
      pb.environment().put(TlsOptions.CA_VARIABLE, app.ca().toString());
      pb.environment().put(TlsOptions.CERT_VARIABLE, app.cert().toString());
      pb.environment().put(TlsOptions.KEY_VARIABLE, app.key().toString());
      Process p = pb.start();
      try {
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out.strip()).endsWith("hello");
      } finally {
        p.destroyForcibly();
      }

      // A shell's --tls-* options are the defaults of its lines.
      picocli.CommandLine cli = VcorfuCli.newCommandLine();
      java.io.StringWriter shellOut = new java.io.StringWriter();
      java.io.StringWriter shellErr = new java.io.StringWriter();
      cli.setOut(new java.io.PrintWriter(shellOut));
      cli.setErr(new java.io.PrintWriter(shellErr));
      ShellCommand shell = cli.getSubcommands().get("shell").getCommand();
      shell.input =
          new java.io.ByteArrayInputStream(
              "log read --stream s1\nlog tail\n".getBytes(StandardCharsets.UTF_8));
      shell.interactive = false;
      List<String> shellArgs =
          new ArrayList<>(List.of("shell", "--endpoint", node.endpoint().toString()));
      shellArgs.addAll(tlsFlags(app));
      assertThat(cli.execute(shellArgs.toArray(String[]::new))).as(shellErr.toString()).isZero();
      assertThat(shellOut.toString()).contains("hello").contains("global ");

      // Only the good client's entry was written.
      CliRun after = log(node, tlsFlags(app), "read", "--stream", "s1");
      assertThat(after.lines()).hasSize(1);
    }
  }

  @Test
  void theTlsEngineIsChosenByAPropertyAndAnUnknownOneStopsTheNodeWithOneLine() throws Exception {
    TlsOptions node = identity("node");
    List<String> tls =
        List.of(
            "--tls-cert",
            node.cert().toString(),
            "--tls-key",
            node.key().toString(),
            "--tls-ca",
            node.ca().toString());
    int port = ServerProcess.freePort();
    Path data = tmp.resolve("engine-data");
    List<String> args =
        new ArrayList<>(
            List.of("server", "--port", Integer.toString(port), "--data-dir", data.toString()));
    args.addAll(tls);
    try (ServerProcess bad =
        ServerProcess.startCli(port, List.of("-Dvcorfu.tls.engine=gnutls"), args)) {
      assertThat(bad.awaitExit(Duration.ofSeconds(60))).isEqualTo(VcorfuCli.USAGE);
      assertThat(bad.output()).as(bad.output().toString()).hasSize(1);
      assertThat(bad.output().get(0))
          .isEqualTo(
              "vcorfu server: -Dvcorfu.tls.engine=gnutls names no TLS engine: use openssl or jdk");
      assertThat(data).doesNotExist();
    }
    try (ServerProcess jdk =
        ServerProcess.startCli(port, List.of("-Dvcorfu.tls.engine=jdk"), args).awaitReady()) {
      assertThat(readyLine(jdk)).contains("TLS (jdk engine) as O=vcorfu test,CN=node");
      CliRun append = log(jdk, tlsFlags(identity("app")), "append", "--stream", "e", "x");
      assertThat(append.code()).as(append.err()).isZero();
    }
  }

  @Test
  void aPlaintextNodeSaysSoInItsReadyLine() throws Exception {
    int port = ServerProcess.freePort();
    try (ServerProcess node = ServerProcess.start(port, List.of("--memory")).awaitReady()) {
      assertThat(readyLine(node)).contains("plaintext: no TLS");
    }
  }

  @Test
  void aClusterNodeNeedsTlsOrPlaintextSaidOutright() throws Exception {
    TlsOptions good = identity("node");
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    // Nothing listens at the ZooKeeper address: a refusal must come before any connection.
    List<String> cluster =
        List.of(
            "server", "--port", Integer.toString(port), "--zookeeper", "127.0.0.1:1", "--cluster");
    Path data = tmp.resolve("cluster-data");
    List<String> bare = new ArrayList<>(cluster);
    bare.addAll(List.of("c1", "--data-dir", data.toString()));
    CliRun neither = CliRun.of(bare);
    assertThat(neither.code()).as(neither.err()).isEqualTo(VcorfuCli.USAGE);
    assertThat(neither.err())
        .startsWith("vcorfu server: a cluster node serves TLS")
        .contains("--tls-cert, --tls-key and --tls-ca")
        .contains("--plaintext");
    assertThat(neither.err().lines()).hasSize(1);
    assertThat(data).doesNotExist();

    List<String> both = new ArrayList<>(bare);
    both.addAll(
        List.of(
            "--plaintext",
            "--tls-cert",
            good.cert().toString(),
            "--tls-key",
            good.key().toString(),
            "--tls-ca",
            good.ca().toString()));
    CliRun contradictory = CliRun.of(both);
    assertThat(contradictory.code()).isEqualTo(VcorfuCli.USAGE);
    assertThat(contradictory.err()).contains("--plaintext and the --tls-* options exclude");
    assertThat(contradictory.err().lines()).hasSize(1);
    assertThat(data).doesNotExist();
  }

  @Test
  void badTlsFilesStopTheServerBeforeItStartsWithOneLineAndExit2() throws Exception {
    TlsOptions good = identity("node");
    Path notPem = Files.writeString(tmp.resolve("notes.txt"), "hello\n");
    Path otherKey = ca.issue("other").writeKey(tmp.resolve("other.key"));
    Path missing = tmp.resolve("missing.pem");
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    record Case(List<String> flags, String says) {}
    List<Case> cases =
        List.of(
            new Case(
                List.of("--tls-cert", missing.toString(), "--tls-key", good.key().toString()),
                "missing.pem does not exist"),
            new Case(
                List.of("--tls-cert", notPem.toString(), "--tls-key", good.key().toString()),
                "notes.txt is not a PEM file"),
            new Case(
                List.of("--tls-cert", good.cert().toString(), "--tls-key", otherKey.toString()),
                "is not the key of the certificate"));
    for (Case c : cases) {
      Path data = tmp.resolve("data-" + cases.indexOf(c));
      List<String> args =
          new ArrayList<>(
              List.of("server", "--port", Integer.toString(port), "--data-dir", data.toString()));
      args.addAll(c.flags);
      args.addAll(List.of("--tls-ca", good.ca().toString()));
      CliRun run = CliRun.of(args);
      assertThat(run.code()).as(run.err()).isEqualTo(VcorfuCli.USAGE);
      assertThat(run.err()).startsWith("vcorfu server: ").contains(c.says);
      assertThat(run.err().lines()).hasSize(1);
      assertThat(run.out()).isEmpty();
      assertThat(data).doesNotExist();
    }
    CliRun partial =
        CliRun.of("server", "--port", Integer.toString(port), "--tls-cert", good.cert().toString());
    assertThat(partial.code()).isEqualTo(VcorfuCli.USAGE);
    assertThat(partial.err()).contains("--tls-cert, --tls-key and --tls-ca together");

    CliRun client =
        CliRun.of("log", "tail", "--endpoint", "127.0.0.1:" + port, "--tls-ca", missing.toString());
    assertThat(client.code()).isEqualTo(VcorfuCli.USAGE);
    assertThat(client.err()).contains("missing.pem does not exist");
  }
}
