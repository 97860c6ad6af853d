package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.ReadResult;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A token taken and never written (its writer gone) leaves a slot of its stream empty; once the
 * global log's prefix trim has passed the token's address (deciding it a hole first, which it
 * keeps) and the stream's entries around it, a read of the stream across that slot still sees a
 * hole there and the entries around it (real node, real sockets), instead of failing as trimmed for
 * good.
 */
class AbandonedTokenReadTest {
  @TempDir Path tmp;

  @Test
  void aStreamReadAcrossAnAbandonedTokenBelowTheLogTrimSeesAHole() throws Exception {
    Endpoint listen = new Endpoint("127.0.0.1", Scratch.freeLocalPort());
    NettyTransport transport = new NettyTransport();
    Node node =
        Node.start(
            NodeConfig.durable(listen, tmp.resolve("data"))
                .withLogRetention(java.time.Duration.ofMillis(500)),
            transport);
    StreamId s = StreamId.of("s");
    StreamId other = StreamId.of("other");
    try (ClusterStreamLog writer =
        ClusterStreamLog.connect(transport, listen, StreamLogOptions.defaults())) {
      node.ready().get(30, TimeUnit.SECONDS);
      writer.append(List.of(s), new byte[] {1}).get(30, TimeUnit.SECONDS);
      long abandoned =
          writer.ops().token(List.of(s), null, 1).get(30, TimeUnit.SECONDS).globalAddress(0);
      writer.append(List.of(s), new byte[] {2}).get(30, TimeUnit.SECONDS);
      long after = writer.tails(List.of(s)).get(30, TimeUnit.SECONDS).globalTail();
      // Other writes move the log's tail on until its prefix trim passes the stream's entries: the
      // trim decides the abandoned token's address first (a hole, kept below the mark).
      org.awaitility.Awaitility.await("the log trimmed past " + after)
          .atMost(java.time.Duration.ofSeconds(60))
          .pollInterval(java.time.Duration.ofMillis(20))
          .until(
              () -> {
                writer.append(List.of(other), new byte[] {9}).get(30, TimeUnit.SECONDS);
                return writer.ops().logTail(listen).get(30, TimeUnit.SECONDS).getTrimMark() > after;
              });
      ReadResult kept =
          writer.ops().logRead(listen, abandoned, abandoned).get(30, TimeUnit.SECONDS).get(0);
      assertThat(kept.getStatus()).isEqualTo(ReadResult.Status.COMMITTED);
      assertThat(kept.getEntry().getKind()).isEqualTo(EntryKind.HOLE);
      assertThat(node.logTrim.decided()).as("addresses the trim decided").isEqualTo(1);
    }
    // A reader of its own: nothing of the stream in its caches, every slot read from the node.
    try (ClusterStreamLog reader =
        ClusterStreamLog.connect(transport, listen, StreamLogOptions.defaults())) {
      List<StreamEntry> read = reader.readStream(s, 0, 2).get(30, TimeUnit.SECONDS);

      assertThat(read).extracting(StreamEntry::streamAddress).containsExactly(0L, 1L, 2L);
      assertThat(read).extracting(StreamEntry::isHole).containsExactly(false, true, false);
      assertThat(read.get(0).payload()).containsExactly(1);
      assertThat(read.get(2).payload()).containsExactly(2);
    } finally {
      node.close();
      transport.close();
    }
  }
}
