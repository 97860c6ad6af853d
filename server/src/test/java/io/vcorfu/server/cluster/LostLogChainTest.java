package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.GlobalEntry;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LostLogChains;
import io.vcorfu.protocol.DataLossException;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A log chain whose every replica is lost is rebuilt from the stream replicas (real nodes, real
 * ZooKeeper). With R = 1 a node holds the only replica of its log chain and of its stream chain; it
 * is killed and comes back on a wiped data directory. The manager makes it rebuild its log chain
 * from the other nodes' stream replicas and promotes it. Afterwards every acknowledged entry reads
 * back, by global address and in its streams, exactly as acknowledged, except those whose every
 * copy was on the lost node: an entry of the lost log chain written to no stream, or only to
 * streams of the lost stream chain. Those, and the streams they belong to, fail with {@link
 * DataLossException}; none reads as a hole or as other data.
 */
class LostLogChainTest {
  @TempDir Path tmp;

  /** One acknowledged append. */
  private record Written(List<StreamId> streams, String value, AppendResult where) {}

  @Test
  void aLogChainWhoseOnlyReplicaWasWipedIsRebuiltFromTheStreamReplicas() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, 1)) {
      Layout before = c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      Endpoint victim =
          c.endpoints().stream().filter(e -> !e.equals(before.sequencer())).findFirst().get();
      List<StreamId> streams = AckedWrites.streams("lost", 9);
      List<Written> written = new ArrayList<>();
      ClusterStreamLog log = c.client(before.sequencer());
      for (int i = 0; i < 240; i++) {
        List<StreamId> to =
            switch (i % 4) {
              case 0 -> List.of(); // written to no stream
              case 1 -> List.of(streams.get(i % streams.size()), streams.get((i + 1) % 9));
              default -> List.of(streams.get(i % streams.size()));
            };
        String value = "v" + i;
        AppendResult r =
            log.append(to, value.getBytes(StandardCharsets.UTF_8)).get(10, TimeUnit.SECONDS);
        written.add(new Written(to, value, r));
      }
      assertThat(LostLogChains.heldAlone(before, victim)).hasSize(1);

      c.restartWiped(victim);
      Layout rebuilding =
          c.awaitLayout(
              victim + " rebuilding its log chain from the stream replicas",
              x -> !LostLogChains.rebuiltBy(x, victim).isEmpty());
      assertThat(rebuilding.currentSegment().log().stream().flatMap(List::stream))
          .as("no new entry is planned on the lost chain")
          .doesNotContain(victim);
      Layout healed =
          c.awaitLayout(
              victim + " promoted",
              x -> x.allServers().contains(victim) && !x.isRebuilding(victim));
      assertThat(healed.segments().get(0).log())
          .as("the closed segment's chains are as they were")
          .isEqualTo(before.currentSegment().log());

      ClusterStreamLog reader = c.client(before.sequencer());
      Map<StreamId, Boolean> streamLost = new HashMap<>();
      int lost = 0;
      int restored = 0;
      for (Written w : written) {
        long g = w.where().globalAddress();
        boolean onLostChain = before.logChain(g).equals(List.of(victim));
        boolean survives =
            !onLostChain
                || w.streams().stream()
                    .anyMatch(s -> !before.streamChain(s).equals(List.of(victim)));
        if (survives) {
          GlobalEntry e = reader.readGlobal(g).get(10, TimeUnit.SECONDS);
          assertThat(e.isHole()).as("entry at %d", g).isFalse();
          assertThat(new String(e.payload(), StandardCharsets.UTF_8)).isEqualTo(w.value());
          assertThat(e.streamAddresses()).isEqualTo(w.where().streamAddresses());
          restored += onLostChain ? 1 : 0;
        } else {
          assertThat(failure(() -> reader.readGlobal(g).get(10, TimeUnit.SECONDS)))
              .as("entry at %d had no copy left", g)
              .isInstanceOf(DataLossException.class);
          lost++;
          for (StreamId s : w.streams()) {
            streamLost.put(s, true);
          }
        }
      }
      assertThat(restored).as("entries of the lost chain put back from streams").isPositive();
      assertThat(lost).as("entries of the lost chain with no copy left").isPositive();

      for (StreamId s : streams) {
        List<Written> mine = written.stream().filter(w -> w.streams().contains(s)).toList();
        if (streamLost.getOrDefault(s, false)) {
          long last = mine.get(mine.size() - 1).where().streamAddresses().get(s);
          assertThat(failure(() -> reader.readStream(s, 0, last).get(10, TimeUnit.SECONDS)))
              .as("stream %s lost an entry", s)
              .isInstanceOf(DataLossException.class);
          continue;
        }
        assertStreamReads(reader, s, mine);
      }

      // The cluster goes on: appends to every stream, each readable by address and in its stream.
      Awaitility.await("appends after the rebuild")
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                for (StreamId s : streams) {
                  AppendResult r =
                      reader
                          .append(List.of(s), "after".getBytes(StandardCharsets.UTF_8))
                          .get(10, TimeUnit.SECONDS);
                  assertThat(
                          reader.readGlobal(r.globalAddress()).get(10, TimeUnit.SECONDS).payload())
                      .isEqualTo("after".getBytes(StandardCharsets.UTF_8));
                }
              });
    }
  }

  private static void assertStreamReads(ClusterStreamLog reader, StreamId s, List<Written> mine)
      throws Exception {
    long last = mine.get(mine.size() - 1).where().streamAddresses().get(s);
    List<StreamEntry> entries = reader.readStream(s, 0, last).get(10, TimeUnit.SECONDS);
    assertThat(entries).hasSize((int) last + 1);
    for (Written w : mine) {
      StreamEntry e = entries.get((int) (long) w.where().streamAddresses().get(s));
      assertThat(e.isHole()).isFalse();
      assertThat(new String(e.payload(), StandardCharsets.UTF_8)).isEqualTo(w.value());
      assertThat(e.globalAddress()).isEqualTo(w.where().globalAddress());
    }
  }

  private interface Call {
    Object run() throws Exception;
  }

  /** What {@code call} fails with, unwrapped; null when it succeeds. */
  private static Throwable failure(Call call) {
    try {
      call.run();
      return null;
    } catch (Exception e) {
      Throwable cause = e instanceof java.util.concurrent.ExecutionException ? e.getCause() : e;
      return EpochRpc.unwrap(cause);
    }
  }
}
