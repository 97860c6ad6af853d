package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.layout.LayoutStore;
import io.vcorfu.layout.TestEnsembles;
import io.vcorfu.layout.ZkLayoutStore;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.Errors;
import io.vcorfu.protocol.PermissionDeniedException;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TlsOptions;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.protocol.netty.TestCertificates;
import io.vcorfu.protocol.proto.Header;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.proto.SealRequest;
import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.protocol.proto.StreamWriteRequest;
import io.vcorfu.server.Node;
import io.vcorfu.server.NodeConfig;
import io.vcorfu.server.ServerProcess;
import io.vcorfu.server.access.AccessConfig;
import io.vcorfu.server.access.AclZnode;
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
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A two-node cluster run with {@code --authorization}, its grants in ZooKeeper: the nodes, each
 * granted {@code node}, replicate to each other; a client writes what its grants allow; a process
 * holding a certificate of the cluster's CA but no {@code node} grant cannot seal a node or write a
 * copy of an entry to streams it may not write, and nothing it sent changes the cluster.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClusterAuthorizationTest {
  @TempDir Path tmp;

  private final TestCertificates.Authority ca = TestCertificates.authority("cluster CA");

  private static String subject(String name) {
    return "O=vcorfu test,CN=" + name;
  }

  @Test
  void nodesReplicateAndAProcessThatIsNoNodeCannotSealOrWriteCopies() throws Exception {
    try (TestingServer zk = TestEnsembles.server()) {
      List<Endpoint> endpoints =
          List.of(
              new Endpoint("127.0.0.1", ServerProcess.freePort()),
              new Endpoint("127.0.0.1", ServerProcess.freePort()));
      try (ZkLayoutStore store =
          ZkLayoutStore.connect(zk.getConnectString(), "acl", Duration.ofSeconds(10))) {
        store
            .compareAndSet(LayoutStore.NO_VERSION, LayoutChanges.initial("acl", endpoints, 2))
            .get(10, TimeUnit.SECONDS);
        AclZnode.update(
            store.client(),
            "acl",
            g ->
                g.grant(new Grant(subject("node-0"), "", EnumSet.of(Permission.NODE)))
                    .grant(new Grant(subject("node-1"), "", EnumSet.of(Permission.NODE)))
                    .grant(
                        new Grant(
                            subject("app"),
                            "app/",
                            EnumSet.of(Permission.READ, Permission.WRITE))));
      }
      List<AutoCloseable> open = new ArrayList<>();
      List<Node> nodes = new ArrayList<>();
      try {
        for (int i = 0; i < endpoints.size(); i++) {
          NettyTransport t = new NettyTransport(ca.identityIn(tmp, "node-" + i));
          open.add(t);
          Node n =
              Node.start(
                  NodeConfig.durable(endpoints.get(i), tmp.resolve("data-" + i))
                      .inCluster(ClusterConfig.of(zk.getConnectString(), "acl"))
                      .withAccess(new AccessConfig(null, subject("node-" + i))),
                  t);
          nodes.add(n);
          open.add(0, n);
        }
        for (Node n : nodes) {
          n.ready().get(60, TimeUnit.SECONDS);
        }
        StreamId s = StreamId.of("app/events");
        try (ClusterStreamLog log =
            ClusterStreamLog.connect(
                endpoints,
                StreamLogOptions.defaults()
                    .withFailoverTimeout(Duration.ofSeconds(30))
                    .withTls(ca.identityIn(tmp, "app")))) {
          for (int i = 0; i < 3; i++) {
            log.append(Set.of(s), ("entry " + i).getBytes(StandardCharsets.UTF_8))
                .get(30, TimeUnit.SECONDS);
          }
          List<String> got = new ArrayList<>();
          for (StreamEntry e : log.readStream(s, 0, Long.MAX_VALUE).get(10, TimeUnit.SECONDS)) {
            got.add(new String(e.payload(), StandardCharsets.UTF_8));
          }
          assertThat(got).containsExactly("entry 0", "entry 1", "entry 2");
        }
        // Both copies of every entry: each node's copies came from the other over node TLS.
        for (Node n : nodes) {
          assertThat(n.logTail()).isEqualTo(2);
        }

        TlsOptions rogue = ca.identityIn(tmp, "rogue");
        try (NettyTransport t = new NettyTransport(rogue);
            RpcClient c = t.newClient(ClientOptions.defaults())) {
          Node target = nodes.get(1);
          long epoch = target.layout().epoch();
          Response sealed =
              c.call(
                      target.endpoint(),
                      Request.newBuilder()
                          .setHeader(header(target))
                          .setSeal(SealRequest.newBuilder().setEpoch(epoch + 5))
                          .build())
                  .get(10, TimeUnit.SECONDS);
          assertThat(denial(sealed).permission()).isEqualTo("node");
          StreamId other = StreamId.of("ops/config");
          LogEntryMsg entry =
              LogEntryMsg.newBuilder()
                  .setGlobalAddress(3)
                  .setKind(io.vcorfu.protocol.proto.EntryKind.DATA)
                  .setEpoch(epoch)
                  .setPayload(com.google.protobuf.ByteString.copyFromUtf8("forged"))
                  .addSlots(StreamSlot.newBuilder().setStream(other.toMsg()).setStreamAddress(0))
                  .build();
          Response copied =
              c.call(
                      target.endpoint(),
                      Request.newBuilder()
                          .setHeader(header(target))
                          .setStreamWrite(
                              StreamWriteRequest.newBuilder()
                                  .setEntry(entry)
                                  .addAllSlots(entry.getSlotsList())
                                  .setCommit(true))
                          .build())
                  .get(10, TimeUnit.SECONDS);
          assertThat(denial(copied).permission()).isEqualTo("write");
          assertThat(target.layout().epoch()).isEqualTo(epoch);
          for (Node n : nodes) {
            assertThat(n.logTail()).isEqualTo(2);
          }
        }
      } finally {
        for (AutoCloseable c : open) {
          c.close();
        }
      }
    }
  }

  private static Header header(Node n) {
    return Header.newBuilder()
        .setEpoch(n.layout().epoch())
        .setClusterId(n.layout().clusterId())
        .build();
  }

  private static PermissionDeniedException denial(Response r) {
    assertThat(r.hasError() && r.getError().hasPermissionDenied()).as("%s", r).isTrue();
    return (PermissionDeniedException) Errors.toException(r.getError());
  }
}
