package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.GlobalEntry;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.layout.LostLogChains;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.DataLossException;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.ReadResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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

  private static final List<StreamId> STREAMS = AckedWrites.streams("lost", 9);

  /**
   * R = 1: the node that is not the sequencer is wiped. Then a spare takes up the stream chain that
   * was lost with it, from the log: slots whose entries were lost read as lost there too, never as
   * holes.
   */
  @Test
  void aLogChainWhoseOnlyReplicaWasWipedIsRebuiltFromTheStreamReplicas() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, 1);
        RpcClient rpc = c.transport().newClient(ClientOptions.defaults())) {
      Layout before = c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      // Its clients connect through one node: one that has not taken up the layout yet says so.
      c.awaitAdopted(before.epoch());
      Endpoint victim =
          c.endpoints().stream().filter(e -> !e.equals(before.sequencer())).findFirst().get();
      List<Written> written = writeMix(c.client(before.sequencer()), 240);
      assertThat(LostLogChains.heldAlone(before, victim)).hasSize(1);

      c.restartWiped(victim);
      Layout rebuilding =
          c.awaitLayout(
              victim + " rebuilding its log chain from the stream replicas",
              x -> !LostLogChains.rebuiltBy(x, victim).isEmpty());
      assertThat(rebuilding.currentSegment().log().stream().flatMap(List::stream))
          .as("no new entry is planned on the lost chain")
          .doesNotContain(victim);
      Layout healed = awaitPromoted(c, victim);
      assertThat(healed.segments().get(0).log())
          .as("the closed segment's chains are as they were")
          .isEqualTo(before.currentSegment().log());
      ClusterStreamLog reader = c.client(before.sequencer());
      assertOutcome(reader, before, Set.of(victim), written);
      assertAppendsGoOn(reader, written);

      Endpoint spare = c.startSpare();
      new NodeCalls(rpc).addNode(before.sequencer(), spare).get(30, TimeUnit.SECONDS);
      c.awaitLayout(
          spare + " takes up the lost stream chain",
          l -> LayoutChanges.emptyStreamChains(l).isEmpty());
      List<StreamId> takenUp =
          STREAMS.stream().filter(s -> before.streamChain(s).equals(List.of(victim))).toList();
      Map<StreamId, List<ReadResult>> held = new HashMap<>();
      Awaitility.await(spare + " holds every slot of the streams it took up, decided")
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .until(
              () -> {
                for (StreamId s : takenUp) {
                  long last = lastSlot(written, s);
                  held.put(s, reader.ops().streamRead(spare, s, 0, last).get(5, TimeUnit.SECONDS));
                }
                return held.values().stream()
                    .flatMap(List::stream)
                    .allMatch(r -> r.getStatus() == ReadResult.Status.COMMITTED);
              });
      for (StreamId s : takenUp) {
        boolean lostOne =
            written.stream()
                .anyMatch(w -> w.streams().contains(s) && !survives(before, Set.of(victim), w));
        assertThat(held.get(s).stream().anyMatch(r -> r.getEntry().getKind() == EntryKind.LOST))
            .as("slots of %s marked lost on %s", s, spare)
            .isEqualTo(lostOne);
      }
      assertStreams(c.client(spare), before, Set.of(victim), written);
    }
  }

  /** R = 1, the sequencer is the node wiped: the sequencer moves, the same outcome. */
  @Test
  void theSequencerWipedWithTheOnlyReplicaOfItsLogChain() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, 1)) {
      Layout before = c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      // Its clients connect through one node: one that has not taken up the layout yet says so.
      c.awaitAdopted(before.epoch());
      Endpoint victim = before.sequencer();
      Endpoint other =
          c.endpoints().stream().filter(e -> !e.equals(victim)).findFirst().orElseThrow();
      List<Written> written = writeMix(c.client(other), 160);

      c.restartWiped(victim);
      Layout healed = awaitPromoted(c, victim);
      assertThat(healed.sequencer()).isNotEqualTo(victim);
      ClusterStreamLog reader = c.client(other);
      assertOutcome(reader, before, Set.of(victim), written);
      assertAppendsGoOn(reader, written);
    }
  }

  /**
   * R = 2: one node fails for good (removed: its chains go on with one replica), then the other
   * replica of one of its log chains comes back wiped. Entries of that chain whose streams are on
   * the third node are put back; the others are lost, and say so.
   */
  @Test
  void bothReplicasOfALogChainLostOneAfterTheOther() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, 2)) {
      Layout before = c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      // Its clients connect through one node: one that has not taken up the layout yet says so.
      c.awaitAdopted(before.epoch());
      List<Endpoint> others =
          c.endpoints().stream().filter(e -> !e.equals(before.sequencer())).toList();
      Endpoint first = others.get(0);
      Endpoint second = others.get(1);
      List<Written> written = writeMix(c.client(before.sequencer()), 200);

      c.kill(first);
      c.awaitLayout("without " + first, x -> x.removed().contains(first));
      c.restartWiped(second);
      awaitPromoted(c, second);
      ClusterStreamLog reader = c.client(before.sequencer());
      assertOutcome(reader, before, Set.of(first, second), written);
      assertAppendsGoOn(reader, written);
    }
  }

  /** Appends {@code n} entries: to no stream, to two streams and to one, in turn. */
  private static List<Written> writeMix(ClusterStreamLog log, int n) throws Exception {
    List<Written> written = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      List<StreamId> to =
          switch (i % 4) {
            case 0 -> List.of(); // written to no stream
            case 1 -> List.of(STREAMS.get(i % 9), STREAMS.get((i + 1) % 9));
            default -> List.of(STREAMS.get(i % 9));
          };
      String value = "v" + i;
      AppendResult r =
          log.append(to, value.getBytes(StandardCharsets.UTF_8)).get(10, TimeUnit.SECONDS);
      written.add(new Written(to, value, r));
    }
    return written;
  }

  private static Layout awaitPromoted(ZkCluster c, Endpoint node) {
    c.awaitLayout(
        node + " rebuilding from the stream replicas",
        x -> !LostLogChains.rebuiltBy(x, node).isEmpty());
    return c.awaitLayout(
        node + " promoted", x -> x.allServers().contains(node) && !x.isRebuilding(node));
  }

  /**
   * An entry survives when its log chain or one of its streams' chains had a replica outside {@code
   * lost}: then it reads back by global address exactly as acknowledged; otherwise its address
   * fails with {@link DataLossException}. Streams follow ({@link #assertStreams}).
   */
  private static void assertOutcome(
      ClusterStreamLog reader, Layout before, Set<Endpoint> lost, List<Written> written)
      throws Exception {
    int gone = 0;
    int restored = 0;
    for (Written w : written) {
      long g = w.where().globalAddress();
      boolean onLostChain = lost.containsAll(before.logChain(g));
      if (survives(before, lost, w)) {
        GlobalEntry e = reader.readGlobal(g).get(10, TimeUnit.SECONDS);
        assertThat(e.isHole()).as("entry at %d", g).isFalse();
        assertThat(new String(e.payload(), StandardCharsets.UTF_8)).isEqualTo(w.value());
        assertThat(e.streamAddresses()).isEqualTo(w.where().streamAddresses());
        restored += onLostChain ? 1 : 0;
      } else {
        assertThat(failure(() -> reader.readGlobal(g).get(10, TimeUnit.SECONDS)))
            .as("entry at %d had no copy left", g)
            .isInstanceOf(DataLossException.class);
        gone++;
      }
    }
    assertThat(restored).as("entries of the lost chain put back from streams").isPositive();
    assertThat(gone).as("entries of the lost chain with no copy left").isPositive();
    assertStreams(reader, before, lost, written);
  }

  /**
   * A stream that lost an entry fails with {@link DataLossException} when read through it; every
   * other stream reads back exactly as acknowledged.
   */
  private static void assertStreams(
      ClusterStreamLog reader, Layout before, Set<Endpoint> lost, List<Written> written)
      throws Exception {
    for (StreamId s : STREAMS) {
      List<Written> mine = written.stream().filter(w -> w.streams().contains(s)).toList();
      long last = lastSlot(written, s);
      if (mine.stream().anyMatch(w -> !survives(before, lost, w))) {
        assertThat(failure(() -> reader.readStream(s, 0, last).get(10, TimeUnit.SECONDS)))
            .as("stream %s lost an entry", s)
            .isInstanceOf(DataLossException.class);
      } else {
        assertStreamReads(reader, s, mine);
      }
    }
  }

  private static long lastSlot(List<Written> written, StreamId s) {
    return written.stream()
        .filter(w -> w.streams().contains(s))
        .mapToLong(w -> w.where().streamAddresses().get(s))
        .max()
        .orElseThrow();
  }

  private static boolean survives(Layout before, Set<Endpoint> lost, Written w) {
    return !lost.containsAll(before.logChain(w.where().globalAddress()))
        || w.streams().stream().anyMatch(s -> !lost.containsAll(before.streamChain(s)));
  }

  /**
   * Appends to every stream go on, each readable by global address, and none takes a stream address
   * an acknowledged entry had, lost or not.
   */
  private static void assertAppendsGoOn(ClusterStreamLog reader, List<Written> written) {
    Awaitility.await("appends after the rebuild")
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              for (StreamId s : STREAMS) {
                AppendResult r =
                    reader
                        .append(List.of(s), "after".getBytes(StandardCharsets.UTF_8))
                        .get(10, TimeUnit.SECONDS);
                assertThat(r.streamAddresses().get(s))
                    .as("the slot of a new entry of %s", s)
                    .isGreaterThan(lastSlot(written, s));
                assertThat(reader.readGlobal(r.globalAddress()).get(10, TimeUnit.SECONDS).payload())
                    .isEqualTo("after".getBytes(StandardCharsets.UTF_8));
              }
            });
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
