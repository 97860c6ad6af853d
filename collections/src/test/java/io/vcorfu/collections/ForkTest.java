package io.vcorfu.collections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.client.StreamLog;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.TransactionAbortedException;
import io.vcorfu.runtime.VCorfuRuntime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link CSMRMap#fork}: copy-on-write (creating a fork writes one record and nothing of the
 * parent), the base durable in the log (a fresh runtime opens the same fork), refusals that write
 * nothing, and transactions over forks (the parent as of the base is never a conflict).
 */
class ForkTest {
  private static final int BUCKETS = 4;

  private final Harness harness = new Harness();
  private final String name = "fork-" + UUID.randomUUID();

  @AfterEach
  void close() {
    harness.close();
  }

  private static long now(VCorfuRuntime rt) {
    rt.TXBegin();
    return rt.TXEnd();
  }

  @Test
  void creatingAForkWritesOneRecordAndNothingOfTheParentsHistory() {
    VCorfuRuntime rt = harness.runtime();
    CSMRMap<String, Integer> parent = CSMRMap.open(rt, name, BUCKETS);
    for (int batch = 0; batch < 5; batch++) {
      Map<String, Integer> entries = new HashMap<>();
      for (int i = 0; i < 100; i++) {
        entries.put("k" + (batch * 100 + i), i);
      }
      parent.putAll(entries);
    }
    long before = now(rt);
    CSMRMap<String, Integer> fork = parent.fork(name + "-f", before);
    long after = now(rt);
    // The fork's layout record, and its name in the directory: nothing per key or per bucket.
    assertThat(after - before).as("entries written by the fork's creation").isLessThanOrEqualTo(2);
    for (int i = 0; i < BUCKETS; i++) {
      StreamId bucket = StreamId.of(CSMRMap.bucketStreamName(fork.name(), i));
      assertThat(rt.updates(bucket, -1, after)).as("fork bucket %d", i).isEmpty();
    }
    assertThat(fork.size()).isEqualTo(500);
    assertThat(fork.get("k123")).isEqualTo(23);
    assertThat(fork.forkBase()).contains(new ForkBase(name, before));

    // Its own updates go to its own streams only.
    fork.put("k123", -1);
    fork.remove("k7");
    long written = now(rt);
    for (int i = 0; i < BUCKETS; i++) {
      StreamId bucket = StreamId.of(CSMRMap.bucketStreamName(name, i));
      assertThat(rt.updates(bucket, after, written)).as("parent bucket %d", i).isEmpty();
    }
    assertThat(parent.get("k123")).isEqualTo(23);
    assertThat(parent.get("k7")).isEqualTo(7);
    assertThat(fork.get("k123")).isEqualTo(-1);
    assertThat(fork.containsKey("k7")).isFalse();
    assertThat(fork.size()).isEqualTo(499);
  }

  @Test
  void aFreshRuntimeOpensForksAndForksOfForksByNameWithTheSameState() {
    VCorfuRuntime rt = harness.runtime();
    CSMRMap<String, Integer> parent = CSMRMap.open(rt, name, BUCKETS);
    parent.put("a", 1);
    parent.put("b", 2);
    CSMRMap<String, Integer> fork = parent.fork(name + "-f");
    parent.put("a", 10); // after the base: not in the fork
    fork.put("c", 3);
    CSMRMap<String, Integer> grandchild = fork.fork(name + "-g");
    fork.remove("b"); // after the grandchild's base: not in it
    grandchild.put("d", 4);

    VCorfuRuntime fresh = harness.runtime();
    CSMRMap<String, Integer> fork2 = CSMRMap.open(fresh, name + "-f");
    CSMRMap<String, Integer> grandchild2 = CSMRMap.open(fresh, name + "-g");
    assertThat(fork2.snapshot()).isEqualTo(Map.of("a", 1, "c", 3));
    assertThat(grandchild2.snapshot()).isEqualTo(Map.of("a", 1, "b", 2, "c", 3, "d", 4));
    assertThat(grandchild2.forkBase()).isEqualTo(grandchild.forkBase());
    assertThat(grandchild2.bucketCount()).isEqualTo(BUCKETS);
    grandchild2.put("e", 5);
    assertThat(grandchild.get("e")).isEqualTo(5);
    assertThat(fresh.names().list().join())
        .anyMatch(e -> e.name().equals(name + "-g") && e.kind().equals("map"));
  }

  @Test
  void aTakenNameABaseBelowMinusOnePastTheTailOrTrimmedIsRefusedAndWritesNothing()
      throws Exception {
    VCorfuRuntime rt = harness.runtime();
    CSMRMap<String, Integer> parent = CSMRMap.open(rt, name, 1);
    for (int i = 0; i < 10; i++) {
      parent.put("k" + i, i);
    }
    parent.fork(name + "-f");
    SMRMap.open(rt, name + "-object").put("x", 1);
    long top = now(rt);
    for (String taken : List.of(name, name + "-f", name + "-object")) {
      assertThatThrownBy(() -> parent.fork(taken, top))
          .isInstanceOfSatisfying(
              ForkRefusedException.class,
              e -> assertThat(e.reason()).isEqualTo(ForkRefusedException.Reason.NAME_TAKEN))
          .hasMessageContaining("that name is taken");
    }
    assertThatThrownBy(() -> parent.fork(name + "-g", top + 1000))
        .isInstanceOfSatisfying(
            ForkRefusedException.class,
            e -> assertThat(e.reason()).isEqualTo(ForkRefusedException.Reason.BASE_PAST_TAIL))
        .hasMessageContaining("past the log's tail");
    assertThatThrownBy(() -> parent.fork(name + "-g", -2))
        .isInstanceOfSatisfying(
            ForkRefusedException.class,
            e -> assertThat(e.reason()).isEqualTo(ForkRefusedException.Reason.BASE_UNAVAILABLE));
    assertThat(now(rt)).as("nothing written by the refusals").isEqualTo(top);
    // A map no fork holds yet (the fork above holds its parent's history: see
    // aForkHoldsItsParentsHistoryAgainstTrims).
    CSMRMap<String, Integer> lone = CSMRMap.open(rt, name + "-lone", 1);
    for (int i = 0; i < 10; i++) {
      lone.put("k" + i, i);
    }
    long k3 = lone.history("k3", Long.MAX_VALUE, 1).items().get(0).globalAddress();
    try (StreamLog log = harness.newLog()) {
      long mark =
          log.trimStream(StreamId.of(CSMRMap.bucketStreamName(lone.name(), 0)), 6)
              .get(30, TimeUnit.SECONDS);
      assertThat(mark).isEqualTo(6);
    }
    long tail = now(rt);
    // Read by another client: the writer's own versions of the map are not the replicas'.
    CSMRMap<String, Integer> reader = CSMRMap.open(harness.runtime(), lone.name());
    assertThatThrownBy(() -> reader.fork(name + "-g", k3))
        .isInstanceOfSatisfying(
            ForkRefusedException.class,
            e -> assertThat(e.reason()).isEqualTo(ForkRefusedException.Reason.BASE_UNAVAILABLE))
        .hasMessageContaining("trimmed");
    assertThat(now(rt)).as("nothing written by the refusals").isEqualTo(tail);
    assertThatThrownBy(() -> CSMRMap.open(rt, name + "-g"))
        .isInstanceOf(io.vcorfu.runtime.ObjectOpenException.class);
  }

  @Test
  void aForkHoldsItsParentsHistoryAgainstTrimsUntilItsHoldIsReleased() throws Exception {
    VCorfuRuntime rt = harness.runtime();
    CSMRMap<String, Integer> parent = CSMRMap.open(rt, name, 1);
    for (int i = 0; i < 10; i++) {
      parent.put("k" + i, i);
    }
    long k3 = parent.history("k3", Long.MAX_VALUE, 1).items().get(0).globalAddress();
    CSMRMap<String, Integer> fork = parent.fork(name + "-f", k3);
    for (int i = 0; i < 10; i++) {
      parent.put("k" + i, 100 + i);
    }
    StreamId bucket = StreamId.of(CSMRMap.bucketStreamName(name, 0));
    try (StreamLog log = harness.newLog()) {
      assertThat(log.trimStream(bucket, 15).get(30, TimeUnit.SECONDS))
          .as("the parent's history is held where it was trimmed when the fork was made")
          .isZero();
    }
    // Read by another client, from the replicas: the fork as of its base.
    CSMRMap<String, Integer> seen = CSMRMap.open(harness.runtime(), fork.name());
    assertThat(seen.get("k3")).isEqualTo(3);
    assertThat(seen.get("k4")).isNull();
    assertThat(seen.size()).isEqualTo(4);

    rt.unpinHistory(bucket, MapFork.holdName(fork.name(), k3));
    try (StreamLog log = harness.newLog()) {
      assertThat(log.trimStream(bucket, 15).get(30, TimeUnit.SECONDS)).isEqualTo(15);
    }
    CSMRMap<String, Integer> late = CSMRMap.open(harness.runtime(), fork.name());
    assertThatThrownBy(() -> late.get("k3"))
        .as("once released and trimmed, the fork's reads fail with the typed trimmed error")
        .satisfies(e -> assertThat(MapFork.trimmed(e)).isNotNull());
  }

  @Test
  void aTransactionOnAForkReadsTheParentAsOfItsBaseWithoutConflictingOnIt() {
    VCorfuRuntime rt = harness.runtime();
    VCorfuRuntime other = harness.runtime();
    CSMRMap<String, Integer> parent = CSMRMap.open(rt, name, BUCKETS);
    parent.put("a", 1);
    parent.put("b", 2);
    CSMRMap<String, Integer> fork = parent.fork(name + "-f");
    CSMRMap<String, Integer> parentElsewhere = CSMRMap.open(other, name);
    CSMRMap<String, Integer> forkElsewhere = CSMRMap.open(other, name + "-f");

    rt.TXBegin();
    int a = fork.get("a");
    assertThat(fork.size()).isEqualTo(2);
    parentElsewhere.put("a", 100); // the parent after the base: no conflict
    fork.put("b", a + 1);
    rt.TXEnd();
    assertThat(fork.snapshot()).isEqualTo(Map.of("a", 1, "b", 2));
    assertThat(parent.snapshot()).isEqualTo(Map.of("a", 100, "b", 2));

    rt.TXBegin();
    int read = fork.get("a");
    forkElsewhere.put("a", 7); // the fork's own key read by the transaction: a conflict
    fork.put("c", read);
    assertThatThrownBy(rt::TXEnd).isInstanceOf(TransactionAbortedException.class);
    assertThat(fork.containsKey("c")).isFalse();

    // Read-then-write calls on a fork are atomic, as on a map.
    assertThat(fork.putIfAbsent("a", 9)).isEqualTo(7);
    assertThat(fork.compute("b", (k, v) -> v * 10)).isEqualTo(20);
    assertThat(fork.merge("z", 1, Integer::sum)).isEqualTo(1);
    assertThat(fork.snapshot()).isEqualTo(Map.of("a", 7, "b", 20, "z", 1));
    assertThat(parent.snapshot()).isEqualTo(Map.of("a", 100, "b", 2));
  }

  @Test
  void aDiffBetweenAForkAndItsParentComparesTheKeysTouchedOnEitherSide() {
    VCorfuRuntime rt = harness.runtime();
    CSMRMap<String, Integer> parent = CSMRMap.open(rt, name, BUCKETS);
    parent.put("same", 0);
    parent.put("p-changed", 1);
    parent.put("f-changed", 1);
    parent.put("f-removed", 1);
    CSMRMap<String, Integer> fork = parent.fork(name + "-f");
    parent.put("p-changed", 2);
    parent.put("p-added", 2);
    fork.put("f-changed", 3);
    fork.remove("f-removed");
    fork.put("f-added", 3);
    fork.put("same", 0); // written back to the value both have: no difference
    MapDiff<String, Integer> diff = fork.diff(parent);
    assertThat(diff.added()).isEqualTo(Map.of("f-added", 3));
    assertThat(diff.removed()).isEqualTo(Map.of("p-added", 2, "f-removed", 1));
    assertThat(diff.changed())
        .isEqualTo(
            Map.of(
                "p-changed", new MapDiff.ValueChange<>(2, 1),
                "f-changed", new MapDiff.ValueChange<>(1, 3)));
    assertThat(parent.diff(fork).added()).isEqualTo(diff.removed());
    assertThat(fork.diff(fork).isEmpty()).isTrue();
  }
}
