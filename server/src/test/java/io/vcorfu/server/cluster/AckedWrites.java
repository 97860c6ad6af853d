package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;

/**
 * Appends whose acknowledgements are recorded, for tests that change the cluster under load and
 * then check that every acknowledged write reads back where it was acknowledged.
 */
final class AckedWrites {
  private AckedWrites() {}

  /** One acknowledged append: its value, and where the cluster said it is. */
  record Acked(StreamId stream, String value, long globalAddress, long streamAddress) {}

  /** {@code count} streams named {@code prefix} and a number. */
  static List<StreamId> streams(String prefix, int count) {
    List<StreamId> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(StreamId.of(prefix + i));
    }
    return out;
  }

  /** Every acknowledged write is in its stream at its address, with its global address. */
  static void assertEveryAckedReadable(ZkCluster c, List<Acked> acked) {
    assertEveryAckedReadable(c, acked, c.endpoints().get(0));
  }

  /** As {@link #assertEveryAckedReadable(ZkCluster, List)}, read through {@code seed}. */
  static void assertEveryAckedReadable(ZkCluster c, List<Acked> acked, Endpoint seed) {
    Map<StreamId, List<Acked>> byStream = new HashMap<>();
    acked.forEach(a -> byStream.computeIfAbsent(a.stream(), s -> new ArrayList<>()).add(a));
    Awaitility.await("every acknowledged write readable")
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              ClusterStreamLog log = c.client(seed);
              for (Map.Entry<StreamId, List<Acked>> e : byStream.entrySet()) {
                long last = e.getValue().stream().mapToLong(Acked::streamAddress).max().orElse(-1);
                List<StreamEntry> entries =
                    log.readStream(e.getKey(), 0, last).get(10, TimeUnit.SECONDS);
                assertThat(entries).hasSize((int) last + 1);
                for (Acked a : e.getValue()) {
                  StreamEntry got = entries.get((int) a.streamAddress());
                  assertThat(got.isHole()).as("slot of %s", a).isFalse();
                  assertThat(new String(got.payload(), StandardCharsets.UTF_8))
                      .isEqualTo(a.value());
                  assertThat(got.globalAddress()).isEqualTo(a.globalAddress());
                }
              }
            });
  }

  /**
   * One client thread appending to the given streams in turn, recording what was acknowledged; a
   * failed append is retried with a fresh client. Stops when closed, after two minutes or 100,000
   * appends, whichever comes first.
   */
  static final class Writer implements AutoCloseable {
    private final List<Acked> acked;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread thread;

    Writer(ZkCluster c, List<StreamId> streams, List<Acked> acked) {
      this(c, streams, acked, c.endpoints().get(0));
    }

    /** A writer whose clients connect through {@code seed}. */
    Writer(ZkCluster c, List<StreamId> streams, List<Acked> acked, Endpoint seed) {
      this(c, streams, acked, seed, 1);
    }

    /**
     * A writer whose every append is one entry in two streams, the {@code i}-th and the next (a
     * transaction's shape: one entry, one global address, a slot in each stream), recorded once per
     * stream.
     */
    static Writer pairs(ZkCluster c, List<StreamId> streams, List<Acked> acked) {
      return new Writer(c, streams, acked, c.endpoints().get(0), 2);
    }

    private Writer(
        ZkCluster c, List<StreamId> streams, List<Acked> acked, Endpoint seed, int width) {
      this.acked = acked;
      this.thread =
          new Thread(
              () -> {
                long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
                ClusterStreamLog log = null;
                int attempt = 0;
                for (int i = 0; i < 100_000 && !stop.get(); i++) {
                  if (System.nanoTime() - deadline > 0) {
                    return;
                  }
                  List<StreamId> to = new ArrayList<>(width);
                  for (int k = 0; k < width; k++) {
                    to.add(streams.get((i + k) % streams.size()));
                  }
                  String value = (width == 1 ? "w" : "p") + i + "-" + attempt++;
                  try {
                    if (log == null) {
                      log = c.client(seed);
                    }
                    AppendResult r =
                        log.append(to, value.getBytes(StandardCharsets.UTF_8))
                            .get(10, TimeUnit.SECONDS);
                    synchronized (acked) {
                      for (StreamId s : to) {
                        acked.add(
                            new Acked(s, value, r.globalAddress(), r.streamAddresses().get(s)));
                      }
                    }
                  } catch (Exception e) {
                    log = null;
                  }
                }
              },
              "acked-writer");
      thread.setDaemon(true);
      thread.start();
    }

    int count() {
      synchronized (acked) {
        return acked.size();
      }
    }

    void awaitAcked(int n) {
      Awaitility.await(n + " appends acknowledged")
          .atMost(Duration.ofSeconds(60))
          .until(() -> count() >= n || !thread.isAlive());
      assertThat(count()).as("appends kept failing").isGreaterThanOrEqualTo(n);
    }

    @Override
    public void close() {
      stop.set(true);
      try {
        thread.join(TimeUnit.SECONDS.toMillis(30));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
