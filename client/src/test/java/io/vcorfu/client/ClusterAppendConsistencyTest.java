package io.vcorfu.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.testing.InJvmCluster;
import io.vcorfu.protocol.StreamId;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Concurrent writers on an in-process cluster with two log chains and two stream chains: every
 * acknowledged entry reads back identically by global address and by stream address, every stream
 * is dense, and stream order agrees with global order.
 */
class ClusterAppendConsistencyTest {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterAppendConsistencyTest.class);
  private static final int THREADS = 8;
  private static final int APPENDS_PER_THREAD = 2_500;
  private static final int STREAMS = 100;

  record Ack(List<StreamId> streams, String value, AppendResult result) {}

  @Test
  void acknowledgedAppendsReadBackByGlobalAndStreamAddress() throws Exception {
    long seed = System.nanoTime();
    LOG.info("seed {}", seed);
    try (InJvmCluster cluster = InJvmCluster.fiveNodes()) {
      ClusterStreamLog log = cluster.client();
      ConcurrentLinkedQueue<Ack> acks = new ConcurrentLinkedQueue<>();
      ExecutorService pool = Executors.newFixedThreadPool(THREADS);
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int thread = t;
        done.add(
            pool.submit(
                () -> {
                  Random random = new Random(seed + thread);
                  for (int i = 0; i < APPENDS_PER_THREAD; i++) {
                    List<StreamId> streams = new ArrayList<>();
                    streams.add(StreamId.of("s" + random.nextInt(STREAMS)));
                    if (i % 10 == 0) { // some appends are atomic across several streams
                      StreamId other = StreamId.of("s" + random.nextInt(STREAMS));
                      if (!streams.contains(other)) {
                        streams.add(other);
                      }
                    }
                    String value = "t" + thread + "-" + i;
                    AppendResult r =
                        log.append(streams, value.getBytes(StandardCharsets.UTF_8)).join();
                    acks.add(new Ack(streams, value, r));
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get(10, TimeUnit.MINUTES);
      }
      pool.shutdown();
      assertThat(acks).hasSize(THREADS * APPENDS_PER_THREAD);

      Map<Long, Ack> byGlobal = new HashMap<>();
      for (Ack a : acks) {
        assertThat(byGlobal.put(a.result().globalAddress(), a))
            .as("global address issued twice")
            .isNull();
      }

      long globalTail = log.tails(List.of()).join().globalTail();
      List<GlobalEntry> global = new ArrayList<>();
      for (long from = 0; from <= globalTail; from += 4096) {
        global.addAll(log.readGlobalRange(from, Math.min(globalTail, from + 4095)).join());
      }
      int data = 0;
      for (GlobalEntry e : global) {
        if (e.isHole()) {
          continue;
        }
        data++;
        Ack a = byGlobal.get(e.globalAddress());
        assertThat(a).as("entry at %d was never acknowledged", e.globalAddress()).isNotNull();
        assertThat(new String(e.payload(), StandardCharsets.UTF_8)).isEqualTo(a.value());
        assertThat(e.streamAddresses()).isEqualTo(a.result().streamAddresses());
      }
      assertThat(data).isEqualTo(acks.size());

      for (int k = 0; k < STREAMS; k++) {
        StreamId s = StreamId.of("s" + k);
        long tail = log.tails(List.of(s)).join().streamTails().get(s);
        List<StreamEntry> entries = log.readStream(s, 0, tail).join();
        long previousGlobal = -1;
        for (int i = 0; i < entries.size(); i++) {
          StreamEntry e = entries.get(i);
          assertThat(e.streamAddress()).as("dense stream").isEqualTo(i);
          assertThat(e.isHole())
              .as("no holes without faults, stream %s address %d", s, i)
              .isFalse();
          Ack a = byGlobal.get(e.globalAddress());
          assertThat(a).isNotNull();
          assertThat(a.result().streamAddresses().get(s)).isEqualTo(e.streamAddress());
          assertThat(new String(e.payload(), StandardCharsets.UTF_8)).isEqualTo(a.value());
          assertThat(e.globalAddress())
              .as("stream order agrees with global order")
              .isGreaterThan(previousGlobal);
          previousGlobal = e.globalAddress();
        }
        long acked = acks.stream().filter(a -> a.streams().contains(s)).count();
        assertThat(entries).hasSize((int) acked);
      }
    }
  }
}
