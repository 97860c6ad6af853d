package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.logunit.CorruptSegmentException;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.Errors;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TooLargeException;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.UnknownStreamException;
import io.vcorfu.protocol.WrongEpochException;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.protocol.proto.Header;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.StreamReadRequest;
import io.vcorfu.protocol.proto.TailRequest;
import io.vcorfu.server.cli.VcorfuCli;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad input gets a typed error with a clear message and harms no other client or data. */
class BadInputTest {
  private static final Endpoint NODE = new Endpoint("node", 9000);

  @TempDir Path tmp;

  private static Throwable cause(Throwable t) {
    return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
  }

  private static Throwable failure(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
    Throwable t = org.assertj.core.api.Assertions.catchThrowable(call);
    assertThat(t).as("expected a failure").isNotNull();
    return cause(t);
  }

  private static byte[] text(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void oversizeEntryIsRejectedBeforeAnythingIsWritten() {
    try (InJvmTransport transport = new InJvmTransport();
        Node node = Node.start(NodeConfig.inMemory(NODE), transport)) {
      node.ready().join();
      try (ClusterStreamLog log =
          ClusterStreamLog.connect(transport, NODE, StreamLogOptions.defaults())) {
        StreamId s = StreamId.of("big");
        assertThat(
                failure(
                    () ->
                        log.append(
                                List.of(s), new byte[StreamLogOptions.DEFAULT_MAX_ENTRY_BYTES + 1])
                            .join()))
            .isInstanceOf(TooLargeException.class)
            .hasMessageContaining("exceeds the limit");
        assertThat(log.tails(List.of(s)).join().globalTail()).isEqualTo(-1);
        // Other appends are unaffected.
        assertThat(log.append(List.of(s), text("small")).join().globalAddress()).isZero();
      }
    }
  }

  @Test
  void oversizeEntryRejectedByTheReplicaLeavesNoUndecidedSlot() {
    try (InJvmTransport transport = new InJvmTransport(2, 64 << 20);
        Node node = Node.start(NodeConfig.inMemory(NODE), transport)) {
      node.ready().join();
      StreamLogOptions lax =
          StreamLogOptions.defaults().withMaxEntryBytes(32 << 20).withMaxAppendAttempts(4);
      try (ClusterStreamLog log = ClusterStreamLog.connect(transport, NODE, lax)) {
        StreamId s = StreamId.of("big-on-server");
        assertThat(failure(() -> log.append(List.of(s), new byte[5 << 20]).join()))
            .isInstanceOf(TooLargeException.class);
        log.append(List.of(s), text("after")).join();
        List<StreamEntry> entries = log.readStream(s, 0, 1).join();
        assertThat(entries).hasSize(2);
        assertThat(entries.get(0).isHole()).isTrue();
        assertThat(new String(entries.get(1).payload(), StandardCharsets.UTF_8)).isEqualTo("after");
      }
    }
  }

  @Test
  void staleEpochIsRejectedWithTheCurrentEpoch() {
    try (InJvmTransport transport = new InJvmTransport();
        Node node = Node.start(NodeConfig.inMemory(NODE), transport);
        RpcClient client = transport.newClient(ClientOptions.defaults())) {
      node.ready().join();
      Request stale =
          Request.newBuilder()
              .setHeader(Header.newBuilder().setEpoch(node.layout().epoch() + 7))
              .setTail(TailRequest.getDefaultInstance())
              .build();
      assertThatThrownBy(() -> Errors.check(client.call(NODE, stale).join()))
          .isInstanceOfSatisfying(
              WrongEpochException.class,
              e -> assertThat(e.currentEpoch()).isEqualTo(node.layout().epoch()))
          .hasMessageContaining("current layout epoch is " + node.layout().epoch());
    }
  }

  @Test
  void readBelowTrimMarkNamesTheStreamAndTheMark() {
    try (InJvmTransport transport = new InJvmTransport();
        Node node = Node.start(NodeConfig.inMemory(NODE), transport)) {
      node.ready().join();
      try (ClusterStreamLog log =
          ClusterStreamLog.connect(transport, NODE, StreamLogOptions.defaults())) {
        StreamId s = StreamId.of("trimmed");
        for (int i = 0; i < 10; i++) {
          log.append(List.of(s), text("v" + i)).join();
        }
        log.trimStream(s, 5).join();
        assertThat(failure(() -> log.readStream(s, 0, 9).join()))
            .isInstanceOfSatisfying(
                TrimmedException.class,
                e -> {
                  assertThat(e.trimMark()).isEqualTo(5);
                  assertThat(e.stream()).isEqualTo(s);
                })
            .hasMessageContaining("trimmed below address 5");
        assertThat(log.readStream(s, 5, 9).join()).hasSize(5);
      }
    }
  }

  @Test
  void unknownStreamIsATypedError() {
    try (InJvmTransport transport = new InJvmTransport();
        Node node = Node.start(NodeConfig.inMemory(NODE), transport);
        ClusterStreamLog log =
            ClusterStreamLog.connect(transport, NODE, StreamLogOptions.defaults())) {
      node.ready().join();
      StreamId s = StreamId.of("never-written");
      assertThat(failure(() -> log.readStream(s, 0, 10).join()))
          .isInstanceOf(UnknownStreamException.class)
          .hasMessageContaining(s.toString());
      assertThat(failure(() -> log.trimStream(s, 3).join()))
          .isInstanceOf(UnknownStreamException.class);
      // A raw read of the replica says the same.
      try (RpcClient client = transport.newClient(ClientOptions.defaults())) {
        Request read =
            Request.newBuilder()
                .setHeader(Header.newBuilder().setEpoch(node.layout().epoch()))
                .setStreamRead(
                    StreamReadRequest.newBuilder().setStream(s.toMsg()).setFrom(0).setTo(0))
                .build();
        assertThatThrownBy(() -> Errors.check(client.call(NODE, read).join()))
            .isInstanceOf(UnknownStreamException.class);
      }
    }
  }

  @Test
  void garbageBytesOnASocketHarmNoOtherClient() throws Exception {
    try (NettyTransport transport = new NettyTransport();
        Node node = Node.start(NodeConfig.inMemory(new Endpoint("127.0.0.1", 0)), transport)) {
      node.ready().join();
      try (ClusterStreamLog log =
          ClusterStreamLog.connect(transport, node.endpoint(), StreamLogOptions.defaults())) {
        StreamId s = StreamId.of("garbage");
        log.append(List.of(s), text("before")).join();
        try (Socket raw = new Socket(node.endpoint().host(), node.endpoint().port())) {
          OutputStream out = raw.getOutputStream();
          out.write(
              new byte[] {0, 0, 0, 12, 'n', 'o', 't', ' ', 'p', 'r', 'o', 't', 'o', 'b', 'u', 'f'});
          out.write(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0x7f});
          out.flush();
          // The server closes that connection: the read sees end of stream, or a reset when the
          // server closed it with our later bytes still unread.
          assertThat(closedByPeer(raw)).isTrue();
        }
        log.append(List.of(s), text("after")).join();
        assertThat(log.readStream(s, 0, 1).join())
            .extracting(e -> new String(e.payload(), StandardCharsets.UTF_8))
            .containsExactly("before", "after");
      }
    }
  }

  private static boolean closedByPeer(Socket socket) throws java.io.IOException {
    try {
      return socket.getInputStream().read() == -1;
    } catch (java.net.SocketException e) {
      if (String.valueOf(e.getMessage()).contains("reset")) {
        return true;
      }
      throw e;
    }
  }

  @Test
  void corruptRecordInTheMiddleOfASegmentStopsStartUpNamingFileAndOffset() throws Exception {
    Path data = tmp.resolve("node");
    try (InJvmTransport transport = new InJvmTransport()) {
      try (Node node = Node.start(NodeConfig.durable(NODE, data), transport)) {
        node.ready().join();
        try (ClusterStreamLog log =
            ClusterStreamLog.connect(transport, NODE, StreamLogOptions.defaults())) {
          for (int i = 0; i < 50; i++) {
            log.append(List.of(StreamId.of("c")), text("value-" + i)).join();
          }
        }
      }
      Path segment = SegmentDamage.flipMiddleByteOfFirstSegment(data);
      assertThatThrownBy(() -> Node.start(NodeConfig.durable(NODE, data), transport))
          .hasRootCauseInstanceOf(CorruptSegmentException.class)
          .rootCause()
          .hasMessageContaining(segment.getFileName().toString())
          .hasMessageContaining("offset");
    }
  }

  @Test
  void cliPrintsOneClearLineForATypedError() {
    try (NettyTransport transport = new NettyTransport();
        Node node = Node.start(NodeConfig.inMemory(new Endpoint("127.0.0.1", 0)), transport)) {
      node.ready().join();
      StringWriter err = new StringWriter();
      StringWriter out = new StringWriter();
      var cli = VcorfuCli.newCommandLine();
      cli.setErr(new PrintWriter(err));
      cli.setOut(new PrintWriter(out));
      int code =
          cli.execute(
              "log",
              "read",
              "--endpoint",
              node.endpoint().toString(),
              "--stream",
              "nope",
              "--from",
              "0",
              "--to",
              "3");
      assertThat(code).as("not found").isEqualTo(3);
      assertThat(err.toString().strip()).isEqualTo("vcorfu: stream 'nope' has never been written");
      assertThat(err.toString()).doesNotContain("\tat ");
    }
  }
}
