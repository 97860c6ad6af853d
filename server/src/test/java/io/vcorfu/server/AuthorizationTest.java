package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ChainChecks;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.collections.SMRMap;
import io.vcorfu.protocol.ChainHead;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.Errors;
import io.vcorfu.protocol.PermissionDeniedException;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TlsOptions;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.protocol.netty.TestCertificates;
import io.vcorfu.protocol.proto.AddNodeRequest;
import io.vcorfu.protocol.proto.ChainStep;
import io.vcorfu.protocol.proto.ChainWriteRequest;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.Header;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.LogReadRequest;
import io.vcorfu.protocol.proto.LogTrimRequest;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.proto.SealRequest;
import io.vcorfu.protocol.proto.StreamReadRequest;
import io.vcorfu.protocol.proto.StreamTrimRequest;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.server.access.AccessConfig;
import io.vcorfu.server.access.AccessList;
import io.vcorfu.server.access.AclFile;
import io.vcorfu.server.access.Grant;
import io.vcorfu.server.access.Permission;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A single node run with a grants file ({@code --acl}), over TLS on real sockets: each principal
 * may do what its grants allow and nothing else; a refused request answers {@link
 * PermissionDeniedException} naming the permission and the stream, writes nothing, and leaves the
 * node serving; a transaction over a stream the caller may write and one it may not is refused
 * whole; a principal that is not a node cannot seal, reconfigure, trim the log or write holes; a
 * changed grants file is followed without a restart.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AuthorizationTest {
  @TempDir Path tmp;

  private final TestCertificates.Authority ca = TestCertificates.authority("node CA");
  private final List<AutoCloseable> open = new ArrayList<>();
  private Path aclFile;
  private Node node;

  private TlsOptions identity(String name) throws Exception {
    return ca.identityIn(tmp, name);
  }

  private static String subject(String name) {
    return "O=vcorfu test,CN=" + name;
  }

  private static Grant grant(String who, String prefix, Permission... ps) {
    return new Grant(subject(who), prefix, EnumSet.of(ps[0], ps));
  }

  @BeforeEach
  void start() throws Exception {
    aclFile = tmp.resolve("acl.json");
    AclFile.write(
        aclFile,
        AccessList.EMPTY
            .grant(grant("alice", "a/", Permission.READ, Permission.WRITE, Permission.TRIM))
            .grant(grant("bob", "a/", Permission.READ)));
    NettyTransport transport = new NettyTransport(identity("node"));
    open.add(transport);
    node =
        Node.start(
            NodeConfig.durable(new Endpoint("127.0.0.1", 0), tmp.resolve("data"))
                .withAccess(new AccessConfig(aclFile, subject("node"))),
            transport);
    open.add(0, node);
    node.ready().get(30, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  private ClusterStreamLog client(String name) throws Exception {
    ClusterStreamLog log =
        ClusterStreamLog.connect(
            node.endpoint(),
            StreamLogOptions.defaults()
                .withFailoverTimeout(Duration.ofSeconds(10))
                .withTls(identity(name)));
    open.add(0, log);
    return log;
  }

  private static List<String> read(ClusterStreamLog log, StreamId s) throws Exception {
    List<String> out = new ArrayList<>();
    for (StreamEntry e : log.readStream(s, 0, Long.MAX_VALUE).get(10, TimeUnit.SECONDS)) {
      out.add(new String(e.payload(), StandardCharsets.UTF_8));
    }
    return out;
  }

  private static void append(ClusterStreamLog log, StreamId s, String v) throws Exception {
    log.append(Set.of(s), v.getBytes(StandardCharsets.UTF_8)).get(10, TimeUnit.SECONDS);
  }

  private static PermissionDeniedException denied(ThrowingRunnable r) {
    Throwable t = null;
    try {
      r.run();
    } catch (Throwable e) {
      t = e;
    }
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof PermissionDeniedException p) {
        return p;
      }
    }
    throw new AssertionError("expected a PermissionDeniedException, got " + t, t);
  }

  interface ThrowingRunnable {
    void run() throws Exception;
  }

  private RpcClient raw(String name) throws Exception {
    NettyTransport t = new NettyTransport(identity(name));
    open.add(0, t);
    RpcClient c = t.newClient(ClientOptions.defaults());
    open.add(0, c);
    return c;
  }

  private Response call(RpcClient c, Request.Builder r) throws Exception {
    long epoch = node.layout().epoch();
    return c.call(
            node.endpoint(),
            r.setHeader(Header.newBuilder().setEpoch(epoch).setClusterId(node.layout().clusterId()))
                .build())
        .get(10, TimeUnit.SECONDS);
  }

  private static PermissionDeniedException refusal(Response r) {
    assertThat(r.hasError()).as("refused: %s", r).isTrue();
    assertThat(r.getError().hasPermissionDenied()).as("permission denied: %s", r).isTrue();
    return (PermissionDeniedException) Errors.toException(r.getError());
  }

  @Test
  void eachPrincipalDoesWhatItsGrantsAllowAndNothingElse() throws Exception {
    StreamId a = StreamId.of("a/orders");
    StreamId b = StreamId.of("b/secrets");
    ClusterStreamLog alice = client("alice");
    append(alice, a, "first");
    assertThat(read(alice, a)).containsExactly("first");
    long tail = node.logTail();

    PermissionDeniedException e = denied(() -> append(alice, b, "nope"));
    assertThat(e.permission()).isEqualTo("write");
    assertThat(e.principal()).isEqualTo(subject("alice"));
    assertThat(e.getMessage()).contains("'b/secrets'").contains("vcorfu acl grant");
    // One entry to a stream it may write and one it may not: refused whole, before any token.
    denied(
        () ->
            alice
                .append(Set.of(a, b), "both".getBytes(StandardCharsets.UTF_8))
                .get(10, TimeUnit.SECONDS));
    assertThat(node.logTail()).isEqualTo(tail);

    ClusterStreamLog bob = client("bob");
    assertThat(read(bob, a)).containsExactly("first");
    assertThat(denied(() -> append(bob, a, "bob writes")).permission()).isEqualTo("write");
    assertThat(denied(() -> bob.trimStream(a, 1).get(10, TimeUnit.SECONDS)).permission())
        .isEqualTo("trim");
    StreamId hold = StreamId.of("bob's hold");
    assertThat(denied(() -> bob.pinStream(a, hold).get(10, TimeUnit.SECONDS)).permission())
        .as("a hold keeps history from trims: it needs the trim permission")
        .isEqualTo("trim");
    assertThat(denied(() -> bob.unpinStream(a, hold).get(10, TimeUnit.SECONDS)).permission())
        .isEqualTo("trim");
    assertThat(node.logTail()).isEqualTo(tail);

    ClusterStreamLog carol = client("carol");
    assertThat(denied(() -> read(carol, a)).permission()).isEqualTo("read");
    assertThat(denied(() -> append(carol, a, "carol writes")).permission()).isEqualTo("write");

    // The node serves on: alice's grants still work, trim included.
    append(alice, a, "second");
    assertThat(read(bob, a)).containsExactly("first", "second");
    alice.trimStream(a, 1).get(10, TimeUnit.SECONDS);
    assertThat(alice.pinStream(a, hold).get(10, TimeUnit.SECONDS)).isEqualTo(1);
    alice.unpinStream(a, hold).get(10, TimeUnit.SECONDS);
    assertThat(node.logTail()).isEqualTo(tail + 1);
  }

  @Test
  void aStreamsChainHeadAndCheckNeedReadAndAWholeNodeCheckNeedsAdmin() throws Exception {
    StreamId a = StreamId.of("a/ledger");
    ClusterStreamLog alice = client("alice");
    append(alice, a, "first");
    ClusterStreamLog bob = client("bob");
    ChainHead head = ChainChecks.head(bob, a, -1).get(10, TimeUnit.SECONDS);
    assertThat(head.position()).isZero();
    List<ChainChecks.NodeReport> checked =
        ChainChecks.verify(bob, a, head).get(30, TimeUnit.SECONDS);
    assertThat(checked.get(0).reports().get(0).getPin()).isEqualTo("MATCH");

    ClusterStreamLog carol = client("carol");
    assertThat(denied(() -> ChainChecks.head(carol, a, -1).get(10, TimeUnit.SECONDS)).permission())
        .isEqualTo("read");
    List<ChainChecks.NodeReport> all = ChainChecks.verifyAll(bob).get(30, TimeUnit.SECONDS);
    assertThat(
            denied(
                    () -> {
                      throw (Exception) all.get(0).failure();
                    })
                .permission())
        .isEqualTo("admin");
  }

  @Test
  void aTransactionOverAStreamTheCallerMayNotWriteIsRefusedWhole() throws Exception {
    AclFile.write(aclFile, AclFile.read(aclFile).grant(grant("alice", "b/", Permission.READ)));
    ClusterStreamLog log = client("alice");
    awaitAllowed(
        () -> {
          try {
            read(log, StreamId.of("b/m"));
          } catch (java.util.concurrent.ExecutionException e) {
            if (!(e.getCause() instanceof io.vcorfu.protocol.UnknownStreamException)) {
              throw e;
            }
          }
        });
    try (VCorfuRuntime rt = VCorfuRuntime.using(log, RuntimeOptions.defaults())) {
      open.remove(log);
      SMRMap<String, String> mine = SMRMap.open(rt, "a/m");
      SMRMap<String, String> theirs = SMRMap.open(rt, "b/m");
      mine.put("k", "before");
      long tail = node.logTail();
      rt.TXBegin();
      mine.put("k", "in the transaction");
      assertThat(theirs.get("k")).isNull();
      theirs.put("k", "in the transaction");
      PermissionDeniedException e = denied(rt::TXEnd);
      assertThat(e.permission()).isEqualTo("write");
      assertThat(e.getMessage()).contains("'b/m'");
      assertThat(node.logTail()).isEqualTo(tail);
      assertThat(mine.get("k")).isEqualTo("before");
      assertThat(theirs.get("k")).isNull();

      // Checkpoint streams are the object's: a/m's checkpoint is alice's to write and read.
      assertThat(rt.checkpoint(mine)).isPresent();
    }
    try (VCorfuRuntime fresh = VCorfuRuntime.using(client("alice"), RuntimeOptions.defaults())) {
      assertThat(SMRMap.<String, String>open(fresh, "a/m").get("k")).isEqualTo("before");
    }
  }

  @Test
  void onlyNodesSealAndWriteHolesOnlyAdminsReconfigureAndNamesMustMatchTheirIds() throws Exception {
    AclFile.write(aclFile, AclFile.read(aclFile).grant(grant("dora", "b/", Permission.WRITE)));
    ClusterStreamLog dora = client("dora");
    awaitAllowed(() -> append(dora, StreamId.of("b/secrets"), "dora's"));
    long doras = node.logTail();
    append(client("alice"), StreamId.of("a/orders"), "alice's");
    long alices = node.logTail();

    RpcClient alice = raw("alice");
    long epoch = node.layout().epoch();
    assertThat(
            refusal(
                    call(
                        alice,
                        Request.newBuilder().setSeal(SealRequest.newBuilder().setEpoch(epoch + 1))))
                .permission())
        .isEqualTo("node");
    assertThat(node.layout().epoch()).isEqualTo(epoch);
    assertThat(
            refusal(
                    call(
                        alice,
                        Request.newBuilder()
                            .setAddNode(AddNodeRequest.newBuilder().setNode("127.0.0.1:1"))))
                .permission())
        .isEqualTo("admin");
    assertThat(
            refusal(
                    call(
                        alice,
                        Request.newBuilder()
                            .setLogTrim(LogTrimRequest.newBuilder().setBefore(alices))))
                .permission())
        .isEqualTo("trim");
    StreamId a = StreamId.of("a/orders");
    LogEntryMsg hole =
        LogEntryMsg.newBuilder()
            .setGlobalAddress(alices + 1)
            .setKind(EntryKind.HOLE)
            .setEpoch(epoch)
            .build();
    assertThat(
            refusal(
                    call(
                        alice,
                        Request.newBuilder()
                            .setChainWrite(
                                ChainWriteRequest.newBuilder()
                                    .setEntry(hole)
                                    .addSteps(
                                        ChainStep.newBuilder().setLog(true).setCommit(true)))))
                .permission())
        .isEqualTo("node");
    // Alice reads her own entry by its global address, not dora's.
    Response mine =
        call(
            alice,
            Request.newBuilder()
                .setLogRead(LogReadRequest.newBuilder().setFrom(alices).setTo(alices)));
    assertThat(mine.hasLogRead()).as("%s", mine).isTrue();
    assertThat(
            refusal(
                    call(
                        alice,
                        Request.newBuilder()
                            .setLogRead(LogReadRequest.newBuilder().setFrom(doras).setTo(doras))))
                .permission())
        .isEqualTo("read");
    // A name that is not the id's is not believed: b/'s id under a/'s name is still b/.
    StreamId b = StreamId.of("b/secrets");
    Request.Builder lying =
        Request.newBuilder()
            .setStreamRead(
                StreamReadRequest.newBuilder()
                    .setStream(b.toMsg().toBuilder().setName("a/orders"))
                    .setFrom(0)
                    .setTo(10));
    assertThat(refusal(call(raw("bob"), lying)).permission()).isEqualTo("read");
    assertThat(
            refusal(
                    call(
                        alice,
                        Request.newBuilder()
                            .setStreamTrim(
                                StreamTrimRequest.newBuilder().setStream(b.toMsg()).setBefore(1))))
                .permission())
        .isEqualTo("trim");
    assertThat(node.logTail()).isEqualTo(alices);
    assertThat(read(dora, b)).containsExactly("dora's");
  }

  @Test
  void aChangedGrantsFileIsFollowedWithoutARestart() throws Exception {
    StreamId c = StreamId.of("c/log");
    ClusterStreamLog carol = client("carol");
    denied(() -> append(carol, c, "early"));
    AclFile.write(
        aclFile,
        AclFile.read(aclFile).grant(grant("carol", "c/", Permission.WRITE, Permission.READ)));
    awaitAllowed(() -> append(carol, c, "granted"));
    assertThat(read(carol, c)).containsExactly("granted");
    AclFile.write(
        aclFile,
        AclFile.read(aclFile).revoke(subject("carol"), "c/", EnumSet.of(Permission.WRITE)));
    org.awaitility.Awaitility.await("the revoke takes effect")
        .atMost(java.time.Duration.ofSeconds(10))
        .pollInterval(java.time.Duration.ofMillis(50))
        .until(
            () -> {
              try {
                append(carol, c, "after the revoke");
                return false;
              } catch (Exception e) {
                assertThat(
                        denied(
                                () -> {
                                  throw e;
                                })
                            .permission())
                    .isEqualTo("write");
                return true;
              }
            });
    assertThat(read(carol, c)).startsWith("granted");
  }

  /** Runs {@code r} until the node's grants allow it (they are re-read within a second). */
  private static void awaitAllowed(ThrowingRunnable r) {
    org.awaitility.Awaitility.await("the new grant takes effect")
        .atMost(java.time.Duration.ofSeconds(10))
        .pollInterval(java.time.Duration.ofMillis(50))
        .until(
            () -> {
              try {
                r.run();
                return true;
              } catch (Exception e) {
                denied(
                    () -> {
                      throw e;
                    });
                return false;
              }
            });
  }
}
