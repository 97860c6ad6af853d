package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.collections.SMRMap;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.server.cluster.FaultWorkload.Acked;
import io.vcorfu.server.cluster.FaultWorkload.Tx;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.params.provider.Arguments;

/**
 * One fault against one role of a four-node cluster under load: the node holding the role is killed
 * or cut off the network while four threads append and a runtime runs transactions; once the
 * manager has taken it out of the layout and the load has gone on under the new layout, every
 * acknowledged write must read back identically from every surviving replica of its chains (read
 * directly, by global and by stream address), through a client, and through the map; a node that
 * was cut off and comes back must answer with errors or with what the survivors hold.
 */
final class RoleFaultScenario {
  /** The role of the node the fault hits. */
  enum Role {
    SEQUENCER,
    LOG_CHAIN_HEAD,
    STREAM_CHAIN_LAST
  }

  /** What happens to it. */
  enum Fault {
    KILL,
    PARTITION
  }

  static final int NODES = 4;
  static final int APPENDERS = 4;

  /** Acknowledged appends wanted before the fault, and again after the layout changed. */
  static final int APPENDS_PER_PHASE = 30;

  static final int TX_PER_PHASE = 3;

  private RoleFaultScenario() {}

  /** Every role with every fault. */
  static Stream<Arguments> matrix() {
    List<Arguments> out = new ArrayList<>();
    for (Role role : Role.values()) {
      for (Fault fault : Fault.values()) {
        out.add(Arguments.of(role, fault));
      }
    }
    return out.stream();
  }

  static void run(Path tmp, int replication, Role role, Fault fault) throws Exception {
    long seed = Long.getLong("vcorfu.test.seed", System.nanoTime());
    System.out.printf("RoleFaultScenario R=%d %s %s seed %d%n", replication, role, fault, seed);
    Random rnd = new Random(seed);
    try (ZkCluster c = ZkCluster.start(tmp, NODES, replication)) {
      Layout initial = c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      c.awaitAdopted(initial.epoch());
      List<StreamId> streams = streamsOnEveryChain(initial);
      Endpoint victim = pick(initial, role, streams, rnd);
      System.out.printf(
          "  victim %s (%s), manager %s, layout %s%n",
          victim, role, c.manager().orElse(null), initial.toJson());
      FaultWorkload w = FaultWorkload.start(c, streams, APPENDERS, seed);
      Layout after;
      try (w) {
        awaitProgress(w, 0, 0, "before the fault");
        if (fault == Fault.KILL) {
          c.kill(victim);
        } else {
          c.faults().partition(victim);
        }
        after = c.awaitLayout("a layout without " + victim, x -> x.removed().contains(victim));
        awaitProgress(w, w.appends.size(), w.committed.size(), "after the layout changed");
      }
      System.out.printf("  %s; layout epoch %d%n", w.summary(), after.epoch());

      Layout last = c.agreed().value();
      assertThat(last.removed()).as("removed nodes, seed %d", seed).containsExactly(victim);
      assertThat(last.allServers()).doesNotContain(victim);
      if (role == Role.SEQUENCER) {
        assertThat(last.sequencer()).isNotEqualTo(victim);
      }
      StreamId mapStream = StreamId.of(FaultWorkload.MAP);
      try (ReplicaCheck check = new ReplicaCheck(c.transport(), last)) {
        check.assertEveryReplicaHolds(w.appends, w.committed, mapStream);
      }
      assertEveryAppendReadsBack(c, last, streams, w.appends);
      assertMapHoldsEveryCommittedUpdate(c, last, w);
      if (fault == Fault.PARTITION) {
        c.faults().heal(victim);
        assertNoStaleReads(c, initial, victim, w.appends);
      }
    }
  }

  /**
   * Streams whose chains, in {@code layout}, are every stream chain: stream {@code fault-i} for the
   * first {@code i} that lands on each chain.
   */
  static List<StreamId> streamsOnEveryChain(Layout layout) {
    int chains = layout.currentSegment().stream().size();
    StreamId[] byChain = new StreamId[chains];
    int found = 0;
    for (int i = 0; found < chains; i++) {
      assertThat(i).as("streams tried to cover every chain").isLessThan(10_000);
      StreamId s = StreamId.of("fault-" + i);
      int chain = layout.streamChainIndex(s);
      if (byChain[chain] == null) {
        byChain[chain] = s;
        found++;
      }
    }
    return List.of(byChain);
  }

  /** The node playing {@code role} in {@code layout}, other than the sequencer for chain roles. */
  static Endpoint pick(Layout layout, Role role, List<StreamId> streams, Random rnd) {
    List<Endpoint> candidates = new ArrayList<>();
    switch (role) {
      case SEQUENCER -> candidates.add(layout.sequencer());
      case LOG_CHAIN_HEAD -> layout.currentSegment().log().forEach(ch -> candidates.add(ch.get(0)));
      case STREAM_CHAIN_LAST ->
          streams.forEach(
              s -> {
                List<Endpoint> chain = layout.streamChain(s);
                candidates.add(chain.get(chain.size() - 1));
              });
    }
    if (role != Role.SEQUENCER) {
      candidates.removeIf(e -> e.equals(layout.sequencer()));
    }
    assertThat(candidates).as("nodes playing %s", role).isNotEmpty();
    return candidates.get(rnd.nextInt(candidates.size()));
  }

  static void awaitProgress(FaultWorkload w, int appends, int txs, String when) {
    Awaitility.await(
            (APPENDS_PER_PHASE + " appends and " + TX_PER_PHASE + " transactions " + when)
                + " (so far: "
                + w.summary()
                + ")")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(20))
        .until(
            () ->
                w.appends.size() >= appends + APPENDS_PER_PHASE
                    && w.committed.size() >= txs + TX_PER_PHASE);
  }

  /** Every acknowledged append reads back through a client, at its stream addresses. */
  static void assertEveryAppendReadsBack(
      ZkCluster c, Layout layout, List<StreamId> streams, List<Acked> appends) throws Exception {
    ClusterStreamLog log = c.client(layout.sequencer());
    for (StreamId s : streams) {
      long last =
          appends.stream()
              .mapToLong(a -> a.streamAddresses().getOrDefault(s, -1L))
              .max()
              .orElse(-1);
      if (last < 0) {
        continue;
      }
      List<StreamEntry> entries = log.readStream(s, 0, last).get(30, TimeUnit.SECONDS);
      for (Acked a : appends) {
        Long at = a.streamAddresses().get(s);
        if (at == null) {
          continue;
        }
        StreamEntry e = entries.get(at.intValue());
        assertThat(e.isHole()).as("%s in %s", a, s).isFalse();
        assertThat(new String(e.payload(), StandardCharsets.UTF_8))
            .as("%s", a)
            .isEqualTo(a.value());
        assertThat(e.globalAddress()).as("%s", a).isEqualTo(a.globalAddress());
      }
    }
  }

  /**
   * A fresh runtime's map holds both keys of every committed transaction and every acknowledged
   * plain put; neither key of an aborted transaction; both or neither of a transaction whose
   * outcome is unknown.
   */
  static void assertMapHoldsEveryCommittedUpdate(ZkCluster c, Layout layout, FaultWorkload w) {
    try (VCorfuRuntime rt =
        VCorfuRuntime.using(
            ClusterStreamLog.connect(
                c.transport(), layout.sequencer(), ZkCluster.clientOptions()))) {
      SMRMap<String, Integer> map = SMRMap.open(rt, FaultWorkload.MAP);
      Map<String, Integer> seen = Map.copyOf(map);
      for (Tx t : w.committed) {
        assertThat(seen).as("committed %s", t).containsEntry("tx" + t.n() + "a", t.n());
        assertThat(seen).as("committed %s", t).containsEntry("tx" + t.n() + "b", t.n());
      }
      for (int n : w.aborted) {
        assertThat(seen).as("aborted tx %d", n).doesNotContainKeys("tx" + n + "a", "tx" + n + "b");
      }
      for (int n : w.unknown) {
        assertThat(seen.get("tx" + n + "a"))
            .as("transaction %d (outcome unknown) applied atomically", n)
            .isEqualTo(seen.get("tx" + n + "b"));
      }
      for (int n : w.puts) {
        assertThat(seen).as("acknowledged put %d", n).containsEntry("put" + n, n);
      }
    }
  }

  /**
   * The node cut off and healed has been removed: whatever it answers about any acknowledged write
   * is an error or exactly what was acknowledged, whether asked under its old layout or the new.
   */
  private static void assertNoStaleReads(
      ZkCluster c, Layout old, Endpoint victim, List<Acked> appends) {
    Layout current = c.agreed().value();
    for (Layout asked : List.of(old, current)) {
      int answered = 0;
      try (ReplicaCheck check = new ReplicaCheck(c.transport(), asked)) {
        for (Acked a : appends) {
          if (old.logChain(a.globalAddress()).contains(victim)) {
            answered += readAgrees(check.logAt(victim, a.globalAddress()), a) ? 1 : 0;
          }
          for (Map.Entry<StreamId, Long> slot : a.streamAddresses().entrySet()) {
            if (old.streamChain(slot.getKey()).contains(victim)) {
              answered +=
                  readAgrees(check.streamAt(victim, slot.getKey(), slot.getValue()), a) ? 1 : 0;
            }
          }
        }
      }
      System.out.printf(
          "  healed %s asked under epoch %d: %d reads answered (the rest refused)%n",
          victim, asked.epoch(), answered);
    }
  }

  /** True if {@code read} answered; fails if what it answered is not {@code a}. */
  private static boolean readAgrees(ReplicaCheck.Read read, Acked a) {
    if (read.error() != null) {
      return false;
    }
    assertThat(ReplicaCheck.notTheAppend(read.result(), a))
        .as("a removed node answered a read of %s", a)
        .isNull();
    return true;
  }
}
