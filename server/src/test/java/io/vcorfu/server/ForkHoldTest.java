package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.collections.CSMRMap;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.runtime.Retention;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.testing.ForwardingStreamLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A fork holds its parent's history: forks made while another client's retention checkpoints and
 * trims the parent as fast as it can read, from a fresh client after that retention asked to trim
 * past every fork's base, exactly what they read when they were made (before holds, the parent's
 * trims took the forks' bases away and their reads failed). The forks stay open in the client that
 * made them meanwhile: an open fork holds its parent's history through its hold alone, and holds
 * back no trim of any object (it registers no snapshot).
 */
class ForkHoldTest {
  private static final Endpoint NODE = Endpoint.parse("node:9000");
  private static final int KEYS = 50;
  private static final int BUCKETS = 2;

  /** The writer's log: notes the highest mark its runtime asked each stream to be trimmed to. */
  private static final class TrimWatch extends ForwardingStreamLog {
    final Map<StreamId, Long> asked = new ConcurrentHashMap<>();

    TrimWatch(StreamLog delegate) {
      super(delegate);
    }

    @Override
    public CompletableFuture<Long> trimStream(StreamId stream, long before) {
      asked.merge(stream, before, Math::max);
      return delegate.trimStream(stream, before);
    }
  }

  private static long trimMark(StreamLog log, StreamId stream) {
    try {
      log.readStream(stream, 0, 0).join();
      return 0;
    } catch (CompletionException e) {
      return e.getCause() instanceof TrimmedException t ? t.trimMark() : 0;
    }
  }

  private static StreamId bucket(int i) {
    return StreamId.of(CSMRMap.bucketStreamName("held", i));
  }

  @Test
  void forksMadeWhileTheParentIsTrimmedReadTheirBaseAfterItsRetentionPassedIt() throws Exception {
    RuntimeOptions trimming =
        RuntimeOptions.defaults()
            .withRetention(
                Retention.DEFAULT
                    .withCheckpointMinBytes(512)
                    .withHistoryBudgetBytes(0)
                    .withRetainVersions(10));
    RuntimeOptions keeping = RuntimeOptions.defaults().withRetention(Retention.OFF);
    try (InJvmTransport transport = new InJvmTransport();
        Node node = Node.start(NodeConfig.inMemory(NODE), transport);
        StreamLog admin = ClusterStreamLog.connect(transport, NODE, StreamLogOptions.defaults())) {
      node.ready().join();
      TrimWatch watch =
          new TrimWatch(ClusterStreamLog.connect(transport, NODE, StreamLogOptions.defaults()));
      AtomicBoolean stop = new AtomicBoolean();
      try (VCorfuRuntime writer = VCorfuRuntime.using(watch, trimming);
          VCorfuRuntime forker =
              VCorfuRuntime.using(
                  ClusterStreamLog.connect(transport, NODE, StreamLogOptions.defaults()),
                  keeping)) {
        CSMRMap<String, Integer> parent = CSMRMap.open(writer, "held", BUCKETS);
        CompletableFuture<Integer> writes =
            CompletableFuture.supplyAsync(
                () -> {
                  long until = System.nanoTime() + Duration.ofSeconds(90).toNanos();
                  int i = 0;
                  while (!stop.get() && i < 2_000_000 && System.nanoTime() < until) {
                    parent.put("k" + (i % KEYS), i);
                    i++;
                  }
                  return i;
                });
        Awaitility.await("the writer's retention trims the parent")
            .atMost(Duration.ofSeconds(30))
            .until(() -> trimMark(admin, bucket(0)) > 0 && trimMark(admin, bucket(1)) > 0);

        CSMRMap<String, Integer> seenByForker = CSMRMap.open(forker, "held");
        List<String> forks = new ArrayList<>();
        List<Map<String, Integer>> made = new ArrayList<>();
        // Kept open (reachable) to the end: a fork reads its parent's buckets as of its base under
        // its hold, registering no snapshot, so open forks hold back no client's trims (before,
        // each was a snapshot view that stopped every trim past its base until collected).
        List<CSMRMap<String, Integer>> open = new ArrayList<>();
        for (int f = 0; f < 4; f++) {
          CSMRMap<String, Integer> fork = seenByForker.fork("held-fork-" + f);
          open.add(fork);
          forks.add(fork.name());
          made.add(new HashMap<>(fork));
          assertThat(made.get(f)).as("fork %d as made", f).hasSize(KEYS);
        }
        Map<StreamId, Long> tails = admin.tails(List.of(bucket(0), bucket(1))).join().streamTails();
        Awaitility.await("the writer's retention asks to trim past every fork's base")
            .atMost(Duration.ofSeconds(45))
            .until(
                () ->
                    watch.asked.getOrDefault(bucket(0), 0L) > tails.get(bucket(0)) + 1
                        && watch.asked.getOrDefault(bucket(1), 0L) > tails.get(bucket(1)) + 1);
        stop.set(true);
        assertThat(writes.join()).isPositive();
        for (int f = 0; f < open.size(); f++) {
          assertThat(new HashMap<>(open.get(f)))
              .as("fork %d, open all along in the forker", f)
              .isEqualTo(made.get(f));
        }

        try (VCorfuRuntime fresh =
            VCorfuRuntime.using(
                ClusterStreamLog.connect(transport, NODE, StreamLogOptions.defaults()), keeping)) {
          for (int f = 0; f < forks.size(); f++) {
            CSMRMap<String, Integer> fork = CSMRMap.open(fresh, forks.get(f));
            assertThat(new HashMap<>(fork))
                .as("fork %d read by a fresh client, after the parent's trims", f)
                .isEqualTo(made.get(f));
          }
        }
        for (int b = 0; b < BUCKETS; b++) {
          assertThat(trimMark(admin, bucket(b)))
              .as("bucket %d is held at or below the first fork's base", b)
              .isLessThanOrEqualTo(tails.get(bucket(b)) + 1);
        }
      }
    }
  }
}
