package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.protocol.netty.TestCertificates;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.proto.RunCommandRequest;
import io.vcorfu.server.Node;
import io.vcorfu.server.NodeConfig;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One-shot data commands run by their node ({@link OneShot}, {@link CommandHost}): the same output
 * and exit code as the command run in the caller's JVM, for successes, usage errors and misses; the
 * commands and arguments the node must not run (standard input, files of the caller's machine, TLS,
 * help, other commands) are never sent or, sent anyway, declined with nothing written; a node
 * without a host, a TLS node and a closed host decline; a write whose answer is lost is reported as
 * possibly applied and not run again, a read whose answer is lost runs in the caller; a read
 * printing more than the host sends is declined; the node runs every command through itself,
 * whatever {@code --endpoint} the caller gave; a value prints as stored, in UTF-8, on both paths
 * whatever the caller's locale.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OneShotTest {
  @TempDir Path tmp;

  private LoopbackNode node;
  private CommandHost host;

  @BeforeEach
  void start() {
    node = LoopbackNode.start(tmp.resolve("data"));
    host = CommandHost.serve(node.node(), null, null);
  }

  @AfterEach
  void stop() {
    if (host != null) {
      host.close();
    }
    node.close();
  }

  private String endpoint() {
    return node.node().endpoint().toString();
  }

  /** {@code vcorfu GROUP SUB --endpoint NODE REST...} as the caller would type it. */
  private List<String> command(String group, String sub, String... rest) {
    List<String> args = new ArrayList<>(List.of(group, sub, "--endpoint", endpoint()));
    args.addAll(List.of(rest));
    return args;
  }

  /** The quick path's run of {@code args}: null when it would run the command in this JVM. */
  private static CliRun onNode(List<String> args, Map<String, String> env) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Integer code =
        OneShot.onNode(
            args.toArray(String[]::new),
            env,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return code == null
        ? null
        : new CliRun(
            code,
            out.toString(StandardCharsets.UTF_8).strip(),
            err.toString(StandardCharsets.UTF_8).strip());
  }

  private static CliRun onNode(List<String> args) {
    return onNode(args, Map.of());
  }

  @Test
  void theNodeRunsDataCommandsWithTheOutputAndExitCodeTheyHaveInTheCaller() {
    List<List<String>> commands =
        List.of(
            command("map", "put", "--map", "users", "alice", "one"),
            command("map", "put", "--map", "users", "alice", "two"),
            command("map", "get", "--map", "users", "alice"),
            command("map", "get", "--map", "users", "bob"),
            command("map", "get", "--map", "nomap", "bob"),
            command("map", "scan", "--map", "users", "--output", "json"),
            command("map", "scan", "--map", "users", "--limit", "-1"),
            command("map", "put", "--map", "users"),
            command("map", "history", "--map", "users", "--key", "alice"),
            command("map", "history", "--map", "users", "--key", "alice", "--limit", "0"),
            command("map", "remove", "--map", "users", "alice"),
            command("log", "append", "--stream", "s", "hello"),
            command("log", "append", "--stream", "s", "--stream", "t", "both"),
            command("log", "read", "--stream", "s"),
            command("log", "read", "--stream", "s", "--from", "-5"),
            command("log", "tail", "--stream", "t"),
            command("log", "tail", "--stream", "never-written"),
            command("log", "append", "--stream", "", "x"),
            command("log", "list"),
            command("map", "list", "--output", "json"),
            command("map", "put", "--map", "users", "bob", "three"),
            command("map", "fork", "--map", "users", "--name", "users2"),
            command("map", "fork", "--map", "users", "--name", "users2"),
            command("map", "put", "--map", "users2", "carol", "four"),
            command("map", "diff", "--map", "users2", "--against", "users"),
            command("map", "diff", "--map", "users", "--from", "-1", "--output", "json"),
            command("map", "diff", "--map", "users", "--from", "-5"),
            command("map", "merge", "--map", "users", "--from", "users2"),
            command("map", "merge", "--map", "users", "--from", "nomap"),
            command("log", "pin", "--stream", "s", "--name", "keep"),
            command("log", "pins", "--stream", "s", "--name", "keep"),
            command("log", "trim", "--stream", "s", "--before", "1"),
            command("log", "unpin", "--stream", "s", "--name", "keep"),
            command("log", "trim", "--stream", "s", "--before", "-1"));
    // Each runs on the node, then the same command in this JVM against the state it left; the
    // second run of a write sees the first one's effect, so the pair is compared on a replay: the
    // node's runs against a fresh node must print what this JVM's runs printed on this one.
    List<CliRun> remote = new ArrayList<>();
    for (List<String> c : commands) {
      CliRun r = onNode(c);
      assertThat(r).as("%s ran on the node", c).isNotNull();
      remote.add(r);
    }
    String first = endpoint();
    host.close();
    host = null;
    node.close();
    node = LoopbackNode.start(tmp.resolve("data-local"));
    for (int i = 0; i < commands.size(); i++) {
      List<String> c = new ArrayList<>(commands.get(i));
      c.set(3, endpoint());
      CliRun local = CliRun.of(c);
      // Lines naming a replica name the node each ran against.
      assertThat(named(remote.get(i), first))
          .as("%s on the node and here", c)
          .isEqualTo(named(local, endpoint()));
    }
    assertThat(remote.get(2).out()).isEqualTo("two");
    assertThat(remote.get(3).code()).isEqualTo(VcorfuCli.NOT_FOUND);
    assertThat(remote.get(6).code()).isEqualTo(VcorfuCli.USAGE);
    assertThat(remote.get(8).lines()).hasSize(2); // alice's two versions
    assertThat(remote.get(9).code()).isEqualTo(VcorfuCli.USAGE);
    assertThat(remote.get(13).lines()).hasSize(2);
    assertThat(remote.get(21).out()).contains("users2 forked from users");
    assertThat(remote.get(22).code()).isNotZero(); // the name is taken
    assertThat(remote.get(24).out()).contains("+ carol four");
    assertThat(remote.get(26).code()).isEqualTo(VcorfuCli.USAGE);
    assertThat(remote.get(27).out()).contains("+ carol four");
    assertThat(remote.get(27).code()).isZero();
    assertThat(remote.subList(29, 33)).allSatisfy(r -> assertThat(r.code()).isZero());
    assertThat(remote.get(33).code()).isEqualTo(VcorfuCli.USAGE);
  }

  @Test
  void clusterStatusAHeadAndPingPrintOnTheQuickPathWhatTheyPrintInTheCaller() {
    // A chain head's hash covers the entries' bytes, which differ between two nodes' runs of the
    // same appends: read on one node both ways.
    assertThat(node.log("append", "--stream", "s", "x").code()).isZero();
    for (List<String> c :
        List.of(
            command("log", "head", "--stream", "s"),
            List.of("cluster", "status", "--endpoint", endpoint()),
            List.of("cluster", "status", "--endpoint", endpoint(), "--output", "json"),
            List.of("cluster", "status", "--endpoint", endpoint(), "--history"))) {
      CliRun quick = onNode(c);
      assertThat(quick).as("%s ran on the node", c).isNotNull();
      assertThat(quick).as("%s on the node and here", c).isEqualTo(CliRun.of(c));
      assertThat(quick.code()).isZero();
      assertThat(quick.out()).containsAnyOf(endpoint(), "s@0:");
    }
    // A ping's line holds its round trip's time: compared with the time taken out.
    for (List<String> c :
        List.of(
            List.of("ping", "--endpoint", endpoint()),
            List.of("ping", "--endpoint", endpoint() + "," + endpoint(), "--timeout", "5s"),
            List.of("ping", "--endpoint=" + endpoint(), "--output", "json"))) {
      CliRun quick = onNode(c);
      assertThat(quick).as("%s on bare sockets", c).isNotNull();
      CliRun here = CliRun.of(c);
      assertThat(quick.code()).isZero();
      assertThat(withoutTimes(quick)).as("%s both ways", c).isEqualTo(withoutTimes(here));
      assertThat(quick.out()).contains("serving");
    }
  }

  private static CliRun named(CliRun r, String node) {
    return new CliRun(r.code(), r.out().replace(node, "NODE"), r.err().replace(node, "NODE"));
  }

  private static CliRun withoutTimes(CliRun r) {
    String timeless = "\\(\\d+\\.\\d+ ms\\)|\"millis\":[0-9.E-]+";
    return new CliRun(r.code(), r.out().replaceAll(timeless, "T"), r.err());
  }

  @Test
  void aPingThatAnyNodeDoesNotAnswerRunsThroughTheClientAndSaysWhy() throws Exception {
    // A port nothing listens on: one just released.
    ServerSocket released = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    String gone = "127.0.0.1:" + released.getLocalPort();
    released.close();
    {
      List<String> c = List.of("ping", "--endpoint", endpoint() + "," + gone);
      assertThat(onNode(c)).as("nothing printed, the client says it").isNull();
      CliRun here = CliRun.of(c);
      assertThat(here.code()).isEqualTo(VcorfuCli.FAILED);
      assertThat(here.lines()).hasSize(2);
      assertThat(here.lines().get(1)).startsWith(gone + " unreachable: ");
    }
    // Options it does not take (TLS, help) and values it cannot read go to the client too.
    assertThat(onNode(List.of("ping", "--endpoint", endpoint(), "--help"))).isNull();
    assertThat(onNode(List.of("ping", "--endpoint", endpoint(), "--output", "yaml"))).isNull();
    assertThat(onNode(List.of("ping", "--endpoint", endpoint(), "--timeout", "soon"))).isNull();
    assertThat(onNode(List.of("ping", "--endpoint"))).isNull();
    assertThat(onNode(List.of("ping", "--endpoint", endpoint(), "--endpoint", endpoint())))
        .isNull();
    assertThat(CliRun.of("ping", "--endpoint", endpoint(), "--endpoint", endpoint()).code())
        .isEqualTo(VcorfuCli.USAGE);
    assertThat(onNode(List.of("ping", "--endpoint", endpoint()), Map.of("VCORFU_TLS_CA", "x")))
        .isNull();
  }

  @Test
  void aPingLinesJsonIsWhatAJsonLibraryWrites() {
    StringBuilder all = new StringBuilder();
    for (char c = 0; c < 0x80; c++) {
      all.append(c);
    }
    all.append("é日本\u2028😀");
    for (String s : List.of(all.toString(), "", "plain", "a\"b\\c")) {
      StringBuilder quoted = new StringBuilder();
      PingLine.quote(quoted, s);
      assertThat(quoted.toString())
          .isEqualTo(Output.mapper().getNodeFactory().textNode(s).toString());
    }
    var p =
        io.vcorfu.protocol.proto.PingResponse.newBuilder()
            .setServing(false)
            .setEpoch(7)
            .setCluster("c\"1")
            .setNotServingReason("sealed\tat 7")
            .build();
    var jackson =
        Output.mapper()
            .createObjectNode()
            .put("endpoint", "h:1")
            .put("state", "not serving")
            .put("epoch", 7L)
            .put("millis", 12.0)
            .put("cluster", "c\"1")
            .put("reason", "sealed\tat 7");
    assertThat(PingLine.answered(new Endpoint("h", 1), p, 12.004, true))
        .isEqualTo(jackson.toString());
  }

  @Test
  void whatTheNodeMustNotRunIsNeverSentAndDeclinedWhenSentAnyway() throws Exception {
    Path value = Files.writeString(tmp.resolve("value"), "from a file");
    List<List<String>> local =
        List.of(
            command("map", "put", "--map", "m", "k", "-"),
            command("map", "put", "--map", "m", "k", "--value-file", value.toString()),
            command("map", "put", "--map", "m", "k", "--value-file=" + value),
            command("log", "append", "--stream", "s", "@" + value),
            command("log", "append", "--stream", "s", "--tls-ca", value.toString(), "x"),
            command("map", "put", "--map", "m", "k", "v", "--help"),
            command("log", "follow", "--stream", "s", "--count", "1"),
            command("map", "watch", "--map", "m", "--count", "1"),
            command("log", "verify", "--stream", "s"),
            List.of("cluster", "status", "--endpoint", endpoint(), "--watch-ms", "100"),
            List.of("cluster", "status", "--endpoint", endpoint(), "--watch-ms=0"));
    for (List<String> c : local) {
      assertThat(OneShot.refusal(c)).as("%s", c).isNotNull();
      assertThat(onNode(c)).as("%s runs in the caller", c).isNull();
      Response answer = send(c);
      assertThat(answer.getRunCommand().getDeclined()).as("%s sent anyway", c).isTrue();
    }
    // A ping runs on bare sockets in the caller (QuickPing), never on the node.
    List<String> ping = List.of("ping", "--endpoint", endpoint());
    assertThat(OneShot.refusal(ping)).isNotNull();
    assertThat(send(ping).getRunCommand().getDeclined()).isTrue();
    List<String> put = command("map", "put", "--map", "m", "k", "v");
    assertThat(onNode(put, Map.of("VCORFU_TLS_CA", value.toString()))).isNull();
    assertThat(onNode(put, Map.of(OneShot.RUN_LOCAL_VARIABLE, "1"))).isNull();
    // Flags it cannot read: the command line here says what is wrong with them.
    assertThat(onNode(command("map", "put", "--map", "m", "k", "v", "--timeout", "soon"))).isNull();
    assertThat(onNode(List.of("map", "put", "--endpoint", "nowhere", "--map", "m", "k", "v")))
        .isNull();
    List<String> many = new ArrayList<>(command("log", "append", "--stream", "s"));
    while (many.size() <= OneShot.MAX_ARGS) {
      many.add("x");
    }
    assertThat(send(many).getRunCommand().getDeclined()).isTrue();
    // Nothing of the above was written.
    assertThat(node.log("read", "--stream", "s").code()).isEqualTo(VcorfuCli.NOT_FOUND);
    assertThat(node.map("get", "--map", "m", "k").code()).isEqualTo(VcorfuCli.NOT_FOUND);
  }

  @Test
  void aNodeWithoutAHostOrAClosedHostDeclinesAndTheCallerRunsTheCommand() {
    host.close();
    host = null;
    List<String> append = command("log", "append", "--stream", "s", "x");
    assertThat(send(append).getRunCommand().getDeclined()).isTrue();
    assertThat(onNode(append)).isNull();
    assertThat(node.log("read", "--stream", "s").code()).isEqualTo(VcorfuCli.NOT_FOUND);
  }

  @Test
  void aTlsNodeIsNeverSentACommandInTheClear() throws Exception {
    var ca = TestCertificates.authority("one-shot CA");
    io.vcorfu.protocol.TlsOptions nodeTls = ca.identityIn(tmp, "node");
    NettyTransport tls = new NettyTransport(nodeTls);
    Node secure =
        Node.start(NodeConfig.durable(new Endpoint("127.0.0.1", 0), tmp.resolve("tls")), tls);
    try {
      secure.ready().join();
      CommandHost none = CommandHost.serve(secure, nodeTls, null);
      assertThat(none).isNull();
      List<String> append =
          List.of(
              "log", "append", "--endpoint", secure.endpoint().toString(), "--stream", "s", "x");
      assertThat(onNode(append)).isNull();
    } finally {
      secure.close();
      tls.close();
    }
  }

  @Test
  void aWriteWhoseAnswerIsLostIsReportedAndNotRunAgainAReadRunsInTheCaller() throws Exception {
    // A node that answers the ping, takes the command and goes away before answering it.
    try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      CompletableFuture<Integer> commands = fakeNode(silent, true, 2);
      String there = "127.0.0.1:" + silent.getLocalPort();
      CliRun write = onNode(List.of("map", "put", "--endpoint", there, "--map", "m", "k", "v"));
      assertThat(write).isNotNull();
      assertThat(write.code()).isEqualTo(VcorfuCli.FAILED);
      assertThat(write.err())
          .contains("the node at " + there + " did not answer")
          .contains("may or may not have been applied");
      assertThat(onNode(List.of("map", "get", "--endpoint", there, "--map", "m", "k"))).isNull();
      assertThat(commands.get(30, TimeUnit.SECONDS)).isEqualTo(2);
    }
  }

  @Test
  void aConnectionThatDoesNotAnswerThePingNeverCarriesTheCommand() throws Exception {
    // What a proxy in front of a node that is gone does: accepts, then closes.
    try (ServerSocket proxy = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      CompletableFuture<Integer> commands = fakeNode(proxy, false, 1);
      String there = "127.0.0.1:" + proxy.getLocalPort();
      assertThat(onNode(List.of("map", "put", "--endpoint", there, "--map", "m", "k", "v")))
          .isNull();
      assertThat(commands.get(30, TimeUnit.SECONDS)).isZero();
    }
  }

  /**
   * Serves {@code connections} connections on {@code socket}: reads the first request, answers it
   * with a ping's answer when {@code pings} and then reads a command, and closes without answering
   * that. Completes with how many commands it read.
   */
  private static CompletableFuture<Integer> fakeNode(
      ServerSocket socket, boolean pings, int connections) {
    return CompletableFuture.supplyAsync(
        () -> {
          int read = 0;
          for (int i = 0; i < connections; i++) {
            try (Socket s = socket.accept()) {
              DataInputStream in = new DataInputStream(s.getInputStream());
              in.readFully(new byte[in.readInt()]);
              if (!pings) {
                continue;
              }
              byte[] pong =
                  Response.newBuilder()
                      .setPing(io.vcorfu.protocol.proto.PingResponse.getDefaultInstance())
                      .build()
                      .toByteArray();
              java.io.DataOutputStream out = new java.io.DataOutputStream(s.getOutputStream());
              out.writeInt(pong.length);
              out.write(pong);
              out.flush();
              in.readFully(new byte[in.readInt()]);
              read++;
            } catch (java.io.IOException e) {
              break;
            }
          }
          return read;
        });
  }

  @Test
  void aReadPrintingMoreThanTheHostSendsIsDeclinedAndAWriteIsAlwaysAnswered() {
    String big = "x".repeat(CommandHost.MAX_READ_OUTPUT / 2 + 1);
    for (int i = 0; i < 2; i++) {
      assertThat(node.log("append", "--stream", "big", big).code()).isZero();
    }
    assertThat(send(command("log", "read", "--stream", "big")).getRunCommand().getDeclined())
        .isTrue();
    assertThat(onNode(command("log", "read", "--stream", "big"))).isNull();
    CliRun put = onNode(command("map", "put", "--map", "m", "k", big));
    assertThat(put).isEqualTo(new CliRun(0, "(none)", ""));
    CliRun again = onNode(command("map", "put", "--map", "m", "k", "y"));
    assertThat(again).isEqualTo(new CliRun(0, big, ""));
  }

  @Test
  void theNodeRunsEveryCommandThroughItselfWhateverEndpointTheCallerNamed() {
    // 192.0.2.1 is a documentation address: nothing answers there.
    List<String> put =
        List.of(
            "map", "put", "--endpoint", "192.0.2.1:9", "--map", "m", "k", "v", "--timeout", "5s");
    Response answer = send(put);
    assertThat(answer.getRunCommand().getDeclined()).isFalse();
    assertThat(answer.getRunCommand().getExitCode()).isZero();
    assertThat(node.map("get", "--map", "m", "k").out()).isEqualTo("v");
    Response status = send(List.of("cluster", "status", "--endpoint", "192.0.2.1:9"));
    assertThat(status.getRunCommand().getExitCode()).isZero();
    assertThat(status.getRunCommand().getOut().toStringUtf8()).contains(endpoint() + " ");
  }

  @Test
  void aValuePrintsAsStoredInUtf8WhateverTheLocaleOnBothPaths() throws Exception {
    String value = "caf\u00e9 \u20ac";
    assertThat(onNode(command("map", "put", "--map", "m", "k", value)).code()).isZero();
    byte[] expected = (value + "\n").getBytes(StandardCharsets.UTF_8);
    for (boolean runLocal : new boolean[] {false, true}) {
      // A process whose default charset is ASCII, as Java 17's is under a POSIX locale.
      List<String> cmd =
          new ArrayList<>(io.vcorfu.server.ChildJvm.command("256m", VcorfuCli.class.getName()));
      cmd.add(1, "-Dfile.encoding=ANSI_X3.4-1968");
      cmd.addAll(command("map", "get", "--map", "m", "k"));
      ProcessBuilder b = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD);
      b.environment().remove(OneShot.RUN_LOCAL_VARIABLE);
      if (runLocal) {
        b.environment().put(OneShot.RUN_LOCAL_VARIABLE, "1");
      }
      Process p = b.start();
      byte[] out = p.getInputStream().readAllBytes();
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as("run in the caller: %s", runLocal).isZero();
      assertThat(out).as("run in the caller: %s", runLocal).isEqualTo(expected);
    }
  }

  /** Sends {@code args} to the node as a {@code RUN_COMMAND} request, with no caller-side rule. */
  private Response send(List<String> args) {
    RpcClient client = node.transport().newClient(ClientOptions.defaults());
    try {
      return client
          .call(
              node.node().endpoint(),
              Request.newBuilder()
                  .setRunCommand(RunCommandRequest.newBuilder().addAllArgs(args))
                  .build())
          .join();
    } finally {
      client.close();
    }
  }
}
