package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.GlobalEntry;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.client.chain.ChainWriter;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.Token;
import io.vcorfu.protocol.proto.TokenResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The global log's prefix trim keeps the holes it passes (real node, real sockets, its own trim
 * every second): a writer that dies after its entry's stream copy landed and before its log copy
 * did leaves the log's slot empty; a reader of the global log is given a hole there; after the log
 * is trimmed past that address, a reader of the stream that decides the dangling copy must abort it
 * too (the kept hole refuses its log write), so the address never reads as data after it read as a
 * hole; and the node, restarted, still holds the hole below its mark.
 */
class LogTrimKeepsHolesTest {
  @TempDir Path tmp;

  @Test
  void aHoleGivenToAReaderOfTheLogOutlivesTheTrimAndAbortsTheDeadWritersStreamCopy()
      throws Exception {
    Endpoint listen = new Endpoint("127.0.0.1", Scratch.freeLocalPort());
    NettyTransport transport = new NettyTransport();
    NodeConfig config =
        NodeConfig.durable(listen, tmp.resolve("data")).withLogRetention(Duration.ofMillis(500));
    Node node = Node.start(config, transport);
    StreamId s = StreamId.of("s");
    StreamId other = StreamId.of("other");
    long dead;
    try (ClusterStreamLog log =
        ClusterStreamLog.connect(transport, listen, StreamLogOptions.defaults())) {
      node.ready().get(30, TimeUnit.SECONDS);
      log.append(List.of(s), new byte[] {1}).get(30, TimeUnit.SECONDS);
      // The dying writer: its token, then its stream copy alone.
      TokenResponse tokens =
          log.ops().token(List.of(s), null, 1).get(30, TimeUnit.SECONDS).toResponse();
      Token token = tokens.getTokens(0);
      dead = token.getGlobalAddress();
      LogEntryMsg entry =
          ChainWriter.dataEntry(
              token, ByteString.copyFromUtf8("dead-writer"), tokens.getEpoch(), 0x5eedL);
      log.ops().streamWrite(listen, entry, token.getSlotsList(), false).get(30, TimeUnit.SECONDS);

      GlobalEntry seen = log.readGlobal(dead).get(30, TimeUnit.SECONDS);
      assertThat(seen.isHole()).as("the log reader's decision at %d", dead).isTrue();

      // Other writes move the log's tail on until its prefix trim passes the address.
      org.awaitility.Awaitility.await("the log trimmed past " + dead)
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(20))
          .until(
              () -> {
                log.append(List.of(other), new byte[] {9}).get(30, TimeUnit.SECONDS);
                return log.ops().logTail(listen).get(30, TimeUnit.SECONDS).getTrimMark() > dead;
              });
      ReadResult below = log.ops().logRead(listen, dead, dead).get(30, TimeUnit.SECONDS).get(0);
      assertThat(below.getStatus()).isEqualTo(ReadResult.Status.COMMITTED);
      assertThat(below.getEntry().getKind()).isEqualTo(io.vcorfu.protocol.proto.EntryKind.HOLE);
      assertThat(node.space().getLogKeptHoles()).as("holes the node keeps").isEqualTo(1);
    }
    // A reader of its own decides the stream's slot: the dead writer's copy is aborted.
    try (ClusterStreamLog reader =
        ClusterStreamLog.connect(transport, listen, StreamLogOptions.defaults())) {
      List<StreamEntry> read = reader.readStream(s, 0, 1).get(30, TimeUnit.SECONDS);

      assertThat(read).extracting(StreamEntry::isHole).containsExactly(false, true);
      assertThat(reader.readGlobal(dead).get(30, TimeUnit.SECONDS).isHole()).isTrue();
    } finally {
      node.close();
    }
    // Restarted: the hole is still held below the mark.
    Node again = Node.start(config, transport);
    try (ClusterStreamLog reader =
        ClusterStreamLog.connect(transport, listen, StreamLogOptions.defaults())) {
      again.ready().get(30, TimeUnit.SECONDS);
      ReadResult below = reader.ops().logRead(listen, dead, dead).get(30, TimeUnit.SECONDS).get(0);
      assertThat(below.getStatus()).isEqualTo(ReadResult.Status.COMMITTED);
      assertThat(below.getEntry().getKind()).isEqualTo(io.vcorfu.protocol.proto.EntryKind.HOLE);
    } finally {
      again.close();
      transport.close();
    }
  }
}
