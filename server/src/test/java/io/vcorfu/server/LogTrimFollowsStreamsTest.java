package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The global log is trimmed as the streams allow and no further: below the first entry some stream
 * still holds, never past an entry one of whose slots is not trimmed; its space comes back once the
 * streams' is, since a node stores each entry once for both.
 */
class LogTrimFollowsStreamsTest {
  private static final Endpoint NODE = Endpoint.parse("node:9000");
  private static final StreamId A = StreamId.of("trim-a");
  private static final StreamId B = StreamId.of("trim-b");

  @TempDir Path tmp;

  private static byte[] value(int i) {
    return ("value-" + i + "-" + "x".repeat(1000)).getBytes(StandardCharsets.UTF_8);
  }

  /** Runs the log's trim rounds until the log's mark reaches {@code expected}; returns it. */
  private static long awaitLogMark(Node node, long expected) {
    return Awaitility.await("the log trimmed below " + expected)
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(node::trimLogNow, m -> m >= expected);
  }

  @Test
  void theLogKeepsRecentEntriesAndTheStreamsKeepTheirOwnHistory() throws Exception {
    try (InJvmTransport transport = new InJvmTransport();
        Node node = Node.start(NodeConfig.durable(NODE, tmp.resolve("data")), transport);
        ClusterStreamLog log =
            ClusterStreamLog.connect(transport, NODE, StreamLogOptions.defaults())) {
      node.ready().join();
      List<AppendResult> a = new ArrayList<>();
      List<AppendResult> b = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        if (i % 10 == 9) { // every tenth entry is in both streams
          AppendResult r = log.append(List.of(A, B), value(i)).join();
          a.add(r);
          b.add(r);
        } else {
          (i % 2 == 0 ? a : b).add(log.append(List.of(i % 2 == 0 ? A : B), value(i)).join());
        }
      }
      assertThat(node.trimLogNow()).as("the entries are recent: the log keeps them").isZero();
      log.trimStream(B, 100).join();
      assertThat(node.space().getLogNeededFrom())
          .as("what the trimmed streams reach back to, shown to operators")
          .isEqualTo(b.get(99).globalAddress() + 1);

      long all = Math.max(a.get(a.size() - 1).globalAddress(), b.get(b.size() - 1).globalAddress());
      assertThat(awaitLogMark(node, all + 1)).isEqualTo(all + 1);
      assertThat(node.space().getLogTrimMark()).isEqualTo(all + 1);
      assertThatThrownBy(() -> log.readGlobal(a.get(0).globalAddress()).join())
          .isInstanceOf(CompletionException.class)
          .hasCauseInstanceOf(TrimmedException.class);
      // The streams keep their own history: A was never trimmed, B from 100 on.
      assertThat(log.readStream(A, 0, a.size() - 1).join())
          .extracting(e -> e.globalAddress())
          .containsExactlyElementsOf(a.stream().map(AppendResult::globalAddress).toList());
      assertThat(log.readStream(B, 100, b.size() - 1).join())
          .extracting(e -> e.globalAddress())
          .containsExactlyElementsOf(
              b.subList(100, b.size()).stream().map(AppendResult::globalAddress).toList());
    }
  }
}
