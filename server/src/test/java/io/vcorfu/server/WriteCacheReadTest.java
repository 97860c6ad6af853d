package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.inmemory.FaultRule;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.protocol.proto.Request.PayloadCase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client reads back its own committed appends from its write cache, without a stream read
 * request, and gets exactly what the node returns to a client without a cache; whatever is not
 * cached (written by others, evicted, trimmed) is read from the node.
 */
class WriteCacheReadTest {
  private static final Endpoint NODE = Endpoint.parse("node:9000");
  private static final StreamId S = StreamId.of("s");
  private static final StreamId T = StreamId.of("t");

  @TempDir Path tmp;
  private InJvmTransport transport;
  private Node node;
  private FaultRule streamReads;

  @BeforeEach
  void start() {
    transport = new InJvmTransport();
    node = Node.start(NodeConfig.durable(NODE, tmp.resolve("data")), transport);
    node.ready().join();
    streamReads =
        transport
            .faults()
            .add(FaultRule.requests().ofCase(PayloadCase.STREAM_READ).delay(Duration.ZERO));
  }

  @AfterEach
  void stop() {
    node.close();
    transport.close();
  }

  private ClusterStreamLog client(long cacheBytes) {
    return ClusterStreamLog.connect(
        transport, NODE, StreamLogOptions.defaults().withWriteCacheBytes(cacheBytes));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** What a client without a cache reads from the node. */
  private List<StreamEntry> fromNode(StreamId stream, long from, long to) {
    try (ClusterStreamLog plain = client(0)) {
      return plain.readStream(stream, from, to).join();
    }
  }

  private static void assertSameEntries(List<StreamEntry> actual, List<StreamEntry> expected) {
    assertThat(actual).hasSameSizeAs(expected);
    for (int i = 0; i < expected.size(); i++) {
      StreamEntry a = actual.get(i);
      StreamEntry e = expected.get(i);
      assertThat(a.stream()).isEqualTo(e.stream());
      assertThat(a.streamAddress()).isEqualTo(e.streamAddress());
      assertThat(a.globalAddress()).isEqualTo(e.globalAddress());
      assertThat(a.isHole()).isEqualTo(e.isHole());
      assertThat(a.payload()).isEqualTo(e.payload());
    }
  }

  @Test
  void ownAppendsReadBackWithoutAStreamReadRequestAndEqualTheNodesCopy() {
    try (ClusterStreamLog writer = client(StreamLogOptions.DEFAULT_WRITE_CACHE_BYTES)) {
      for (int i = 0; i < 30; i++) {
        List<StreamId> streams = i % 3 == 0 ? List.of(S, T) : List.of(S);
        writer.append(streams, bytes("v" + i)).join();
      }
      long before = streamReads.hits();
      List<StreamEntry> s = writer.readStream(S, 0, 29).join();
      List<StreamEntry> t = writer.readStream(T, 0, 9).join();
      assertThat(streamReads.hits()).isEqualTo(before);

      assertThat(s)
          .extracting(e -> new String(e.payload(), StandardCharsets.UTF_8))
          .containsExactly(
              java.util.stream.IntStream.range(0, 30)
                  .mapToObj(i -> "v" + i)
                  .toArray(String[]::new));
      assertSameEntries(s, fromNode(S, 0, 29));
      assertSameEntries(t, fromNode(T, 0, 9));
    }
  }

  @Test
  void entriesOfOtherWritersAreReadFromTheNodeAfterTheCachedRun() {
    try (ClusterStreamLog writer = client(StreamLogOptions.DEFAULT_WRITE_CACHE_BYTES);
        ClusterStreamLog other = client(StreamLogOptions.DEFAULT_WRITE_CACHE_BYTES)) {
      for (int i = 0; i < 10; i++) {
        (i < 5 || i % 2 == 0 ? writer : other).append(List.of(S), bytes("v" + i)).join();
      }
      long before = streamReads.hits();
      List<StreamEntry> all = writer.readStream(S, 0, 9).join();
      assertThat(streamReads.hits()).isGreaterThan(before);
      assertSameEntries(all, fromNode(S, 0, 9));
      assertThat(all)
          .extracting(StreamEntry::streamAddress)
          .containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);

      before = streamReads.hits();
      List<StreamEntry> own = writer.readStream(S, 0, 4).join();
      assertThat(streamReads.hits()).as("addresses 0..4 are all the writer's").isEqualTo(before);
      assertSameEntries(own, fromNode(S, 0, 4));
    }
  }

  @Test
  void evictedEntriesAreReadFromTheNode() {
    // Room for about two of these entries: the oldest are evicted as new ones are cached.
    try (ClusterStreamLog writer = client(2 * (1024 + 200))) {
      for (int i = 0; i < 8; i++) {
        byte[] p = new byte[1024];
        p[0] = (byte) i;
        writer.append(List.of(S), p).join();
      }
      long before = streamReads.hits();
      List<StreamEntry> newest = writer.readStream(S, 7, 7).join();
      assertThat(streamReads.hits()).isEqualTo(before);
      assertSameEntries(newest, fromNode(S, 7, 7));
      before = streamReads.hits();
      List<StreamEntry> all = writer.readStream(S, 0, 7).join();
      assertThat(streamReads.hits()).isGreaterThan(before);
      assertSameEntries(all, fromNode(S, 0, 7));
    }
  }

  @Test
  void withTheCacheDisabledEveryReadIsARequest() {
    try (ClusterStreamLog writer = client(0)) {
      writer.append(List.of(S), bytes("x")).join();
      long before = streamReads.hits();
      assertThat(writer.readStream(S, 0, 0).join()).hasSize(1);
      assertThat(streamReads.hits()).isEqualTo(before + 1);
    }
  }

  @Test
  void aTrimByThisClientAlsoDropsItsCachedEntries() {
    try (ClusterStreamLog writer = client(StreamLogOptions.DEFAULT_WRITE_CACHE_BYTES)) {
      for (int i = 0; i < 6; i++) {
        writer.append(List.of(S), bytes("v" + i)).join();
      }
      writer.trimStream(S, 4).join();
      assertThatThrownBy(() -> writer.readStream(S, 2, 5).join())
          .isInstanceOf(CompletionException.class)
          .cause()
          .isInstanceOf(TrimmedException.class);
      assertSameEntries(writer.readStream(S, 4, 5).join(), fromNode(S, 4, 5));
    }
  }

  @Test
  void negativeWriteCacheSizeIsRefused() {
    assertThatThrownBy(() -> StreamLogOptions.defaults().withWriteCacheBytes(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("writeCacheBytes");
  }
}
