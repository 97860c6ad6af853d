package io.vcorfu.client.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.testing.InJvmCluster;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A reader that follows a stream while its stream replica is gone reads what is new by pages of the
 * log (it knows the stream's entry it read last), not one backpointer at a time; it gets what
 * walking the backpointers gets, holes included, in a small fraction of the round trips.
 */
class DegradedFollowTest {
  private InJvmCluster cluster;
  private ClusterStreamLog writer;
  private StreamId followed;
  private StreamId other;

  @BeforeEach
  void start() {
    cluster = InJvmCluster.fiveNodes();
    writer = cluster.client();
    Layout layout = writer.layout().current();
    followed = StreamId.of("followed");
    for (int i = 0; other == null; i++) {
      StreamId s = StreamId.of("other-" + i);
      if (layout.streamChainIndex(s) != layout.streamChainIndex(followed)) {
        other = s;
      }
    }
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  private void write(int entries, String prefix) throws Exception {
    for (int i = 0; i < entries; i++) {
      append(List.of(followed), prefix + i);
      append(List.of(other), "o" + i); // interleaved: the followed stream is half the log
      if (i % 10 == 3) {
        // A token never written: a hole in the stream (and in the log) the reader must see.
        writer.ops().token(List.of(followed), null, 1).get(10, TimeUnit.SECONDS);
      }
    }
  }

  private void append(List<StreamId> streams, String value) throws Exception {
    writer.append(streams, value.getBytes(StandardCharsets.UTF_8)).get(10, TimeUnit.SECONDS);
  }

  private long tail(ClusterStreamLog log) throws Exception {
    return log.tails(List.of(followed)).get(10, TimeUnit.SECONDS).streamTails().get(followed);
  }

  @Test
  void aFollowerReadsWhatIsNewByPagesAndGetsWhatTheBackpointersGive() throws Exception {
    write(40, "a");
    List<Endpoint> chain = writer.layout().current().streamChain(followed);
    Endpoint replica = chain.get(chain.size() - 1);
    cluster.kill(replica);
    cluster.changeLayout(cluster.withEmptyStreamChainsOf(replica));
    ClusterStreamLog follower = cluster.client();
    long first = tail(follower);
    List<StreamEntry> start = follower.readStream(followed, 0, first).get(30, TimeUnit.SECONDS);
    assertThat(start).hasSize((int) first + 1);

    // The stream's replica is gone, so these are decided by the log and read from it.
    long requestsBefore = follower.degradedRequests();
    write(200, "b");
    long last = tail(follower);
    List<StreamEntry> followedRead =
        follower.readStream(followed, first + 1, last).get(30, TimeUnit.SECONDS);
    long paged = follower.degradedRequests() - requestsBefore;

    ClusterStreamLog auditor = cluster.client();
    List<StreamEntry> walked =
        auditor.readStreamFromLog(followed, first + 1, last).get(30, TimeUnit.SECONDS);
    assertThat(describe(followedRead)).isEqualTo(describe(walked));
    assertThat(followedRead.stream().filter(StreamEntry::isHole).count())
        .as("the never-written tokens")
        .isEqualTo(20);
    System.out.printf(
        "DegradedFollowTest: %d new slots read with %d log reads by pages, %d by walking%n",
        last - first, paged, auditor.degradedRequests());
    assertThat(auditor.degradedRequests())
        .as("walking: one log read per slot at least")
        .isGreaterThanOrEqualTo(last - first);
    assertThat(paged)
        .as("by pages: the new part of the log (about twice the new slots), 1,024 a read")
        .isLessThanOrEqualTo(2 + 3 * (last - first) / 1_024);
  }

  private static List<String> describe(List<StreamEntry> entries) {
    return entries.stream()
        .map(
            e ->
                e.streamAddress()
                    + (e.isHole()
                        ? "=hole"
                        : "="
                            + e.globalAddress()
                            + ":"
                            + new String(e.payload(), StandardCharsets.UTF_8)))
        .toList();
  }
}
