package io.vcorfu.collections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.client.StreamLog;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.TransactionAbortedException;
import io.vcorfu.runtime.VCorfuRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link CSMRMap#merge}: three-way through the common base in every direction (a fork into its
 * parent, the parent into a fork, two forks), each policy and a user resolver, the merge record and
 * its use as the next base, refusals and conflicts that write nothing, and one transaction that a
 * concurrent writer aborts whole.
 */
class MergeTest {
  private static final int BUCKETS = 3;

  private final Harness harness = new Harness();
  private final String name = "merge-" + UUID.randomUUID();

  @AfterEach
  void close() {
    harness.close();
  }

  /** A parent with a, b, c, d = 1 and a fork where each side changed its own keys and a shared. */
  private static CSMRMap<String, Integer> parent(VCorfuRuntime rt, String name) {
    CSMRMap<String, Integer> p = CSMRMap.open(rt, name, BUCKETS);
    p.putAll(Map.of("a", 1, "b", 1, "c", 1, "d", 1));
    return p;
  }

  @Test
  void aForkMergesIntoItsParentKeysChangedOnOneSideOnlyAndRecordsTheMerge() {
    VCorfuRuntime rt = harness.runtime();
    CSMRMap<String, Integer> parent = parent(rt, name);
    CSMRMap<String, Integer> fork = parent.fork(name + "-f");
    fork.put("a", 2); // only the fork: applied
    fork.remove("b"); // only the fork, a removal: applied
    fork.put("e", 2); // added in the fork: applied
    parent.put("c", 3); // only the parent: kept
    parent.put("d", 4); // both, the same value: kept, no conflict
    fork.put("d", 4);

    MergeResult<String, Integer> result = parent.merge(fork);
    assertThat(parent.snapshot()).isEqualTo(Map.of("a", 2, "c", 3, "d", 4, "e", 2));
    assertThat(fork.snapshot()).isEqualTo(Map.of("a", 2, "c", 1, "d", 4, "e", 2));
    assertThat(result.applied().added()).isEqualTo(Map.of("e", 2));
    assertThat(result.applied().removed()).isEqualTo(Map.of("b", 1));
    assertThat(result.applied().changed()).isEqualTo(Map.of("a", new MapDiff.ValueChange<>(1, 2)));
    assertThat(result.conflicts()).isEmpty();
    assertThat(result.baseMap()).isEqualTo(name);
    assertThat(result.baseVersion()).isEqualTo(fork.forkBase().orElseThrow().version());
    assertThat(parent.diff(result.commit() - 1, result.commit())).isEqualTo(result.applied());
    assertThat(parent.merges())
        .containsExactly(new MergeRecord(fork.name(), result.sourceVersion(), result.commit()));
    assertThat(CSMRMap.open(harness.runtime(), name).merges()).isEqualTo(parent.merges());

    // Merging again starts from the recorded merge: nothing to apply, nothing in conflict, even
    // for keys the parent changed since and the fork had changed before the first merge.
    parent.put("a", 5);
    MergeResult<String, Integer> again = parent.merge(fork);
    assertThat(again.applied().isEmpty()).isTrue();
    assertThat(again.baseMap()).isEqualTo(fork.name());
    assertThat(again.baseVersion()).isEqualTo(result.sourceVersion());
    assertThat(parent.snapshot()).isEqualTo(Map.of("a", 5, "c", 3, "d", 4, "e", 2));
    assertThat(parent.merges()).hasSize(2);
  }

  @Test
  void theParentMergesIntoAForkAndTwoForksMergeThroughTheirCommonBase() {
    VCorfuRuntime rt = harness.runtime();
    CSMRMap<String, Integer> parent = parent(rt, name);
    CSMRMap<String, Integer> left = parent.fork(name + "-l");
    parent.put("a", 2);
    CSMRMap<String, Integer> right = parent.fork(name + "-r");
    parent.remove("b");
    left.put("c", 3);
    right.put("d", 4);
    CSMRMap<String, Integer> grandchild = right.fork(name + "-g");
    grandchild.put("z", 9);

    left.merge(parent);
    assertThat(left.snapshot()).isEqualTo(Map.of("a", 2, "c", 3, "d", 1));
    // The base of right and left is the parent as of left's (older) base: right's a=2 is a change.
    MergeResult<String, Integer> siblings = right.merge(left);
    assertThat(siblings.baseMap()).isEqualTo(name);
    assertThat(siblings.baseVersion()).isEqualTo(left.forkBase().orElseThrow().version());
    assertThat(right.snapshot()).isEqualTo(Map.of("a", 2, "c", 3, "d", 4));
    MergeResult<String, Integer> up = grandchild.merge(left, MergePolicy.FAIL);
    assertThat(up.baseMap()).isEqualTo(name);
    assertThat(grandchild.snapshot()).isEqualTo(Map.of("a", 2, "c", 3, "d", 4, "z", 9));
  }

  @Test
  void conflictsGoToThePolicyOrTheResolverAndFailWritesNothing() {
    VCorfuRuntime rt = harness.runtime();
    CSMRMap<String, Integer> parent = parent(rt, name);
    CSMRMap<String, Integer> fork = parent.fork(name + "-f");
    parent.put("a", 10);
    fork.put("a", 20);
    parent.remove("b");
    fork.put("b", 20);
    fork.put("c", 20); // only the fork

    long before = MapFork.now(rt);
    assertThatThrownBy(() -> parent.merge(fork))
        .isInstanceOfSatisfying(
            MergeConflictException.class,
            e -> assertThat(e.keys()).containsExactlyInAnyOrder("a", "b"))
        .hasMessageContaining("conflicts on 2 keys a, b")
        .hasMessageContaining("nothing written");
    assertThat(MapFork.now(rt)).as("nothing written").isEqualTo(before);
    assertThat(parent.merges()).isEmpty();

    CSMRMap<String, Integer> theirs = parent.fork(name + "-theirs");
    CSMRMap<String, Integer> summed = parent.fork(name + "-summed");
    MergeResult<String, Integer> t = theirs.merge(fork, MergePolicy.SOURCE_WINS);
    assertThat(t.conflicts()).containsExactlyInAnyOrder("a", "b");
    assertThat(theirs.snapshot()).isEqualTo(Map.of("a", 20, "b", 20, "c", 20, "d", 1));

    assertThat(parent.merge(fork, MergePolicy.TARGET_WINS).conflicts())
        .containsExactlyInAnyOrder("a", "b");
    assertThat(parent.snapshot()).isEqualTo(Map.of("a", 10, "c", 20, "d", 1));

    AtomicInteger calls = new AtomicInteger();
    MergeResolver<String, Integer> sum =
        (key, base, target, source) -> {
          calls.incrementAndGet();
          if (target.isEmpty() || source.isEmpty()) {
            return Optional.empty(); // removed on one side: removed
          }
          return Optional.of(target.get() + source.get() - base.orElse(0));
        };
    summed.put("a", 5);
    summed.put("b", 7);
    fork.put("a", 30);
    fork.remove("b");
    MergeResult<String, Integer> s = summed.merge(fork, sum);
    assertThat(s.conflicts()).containsExactlyInAnyOrder("a", "b");
    assertThat(summed.snapshot()).isEqualTo(Map.of("a", 5 + 30 - 1, "c", 20, "d", 1));
    assertThat(calls.get()).isEqualTo(2);
  }

  @Test
  void mapsWithoutACommonBaseOrAMapAndItselfAreRefusedAndNothingIsWritten() {
    VCorfuRuntime rt = harness.runtime();
    CSMRMap<String, Integer> one = parent(rt, name);
    CSMRMap<String, Integer> two = parent(rt, name + "-other");
    long before = MapFork.now(rt);
    assertThatThrownBy(() -> one.merge(two))
        .isInstanceOfSatisfying(
            MergeRefusedException.class,
            e -> assertThat(e.reason()).isEqualTo(MergeRefusedException.Reason.NO_COMMON_BASE))
        .hasMessageContaining("share no history");
    assertThatThrownBy(() -> one.merge(CSMRMap.open(rt, name)))
        .isInstanceOfSatisfying(
            MergeRefusedException.class,
            e -> assertThat(e.reason()).isEqualTo(MergeRefusedException.Reason.SAME_MAP));
    rt.TXBegin();
    assertThatThrownBy(() -> one.merge(two)).isInstanceOf(IllegalStateException.class);
    rt.TXAbort();
    assertThat(MapFork.now(rt)).isEqualTo(before);
  }

  @Test
  void aBaseTrimmedFromTheParentsHistoryIsRefusedAndNothingIsWritten() throws Exception {
    VCorfuRuntime rt = harness.runtime();
    CSMRMap<String, Integer> parent = CSMRMap.open(rt, name, 1);
    for (int i = 0; i < 10; i++) {
      parent.put("k" + i, i);
    }
    long k3 = parent.history("k3", Long.MAX_VALUE, 1).items().get(0).globalAddress();
    CSMRMap<String, Integer> fork = parent.fork(name + "-f", k3);
    fork.put("k1", -1);
    // The fork holds its base in the parent's history until its hold is released.
    StreamId bucket = StreamId.of(CSMRMap.bucketStreamName(name, 0));
    rt.unpinHistory(bucket, MapFork.holdName(fork.name(), k3));
    try (StreamLog log = harness.newLog()) {
      assertThat(log.trimStream(bucket, 6).get(30, TimeUnit.SECONDS)).isEqualTo(6);
    }
    // Read by another client: the writer's own versions of the map are not the replicas'.
    VCorfuRuntime reader = harness.runtime();
    long before = MapFork.now(reader);
    assertThatThrownBy(
            () ->
                CSMRMap.<String, Integer>open(reader, name)
                    .merge(CSMRMap.open(reader, fork.name())))
        .isInstanceOfSatisfying(
            MergeRefusedException.class,
            e -> assertThat(e.reason()).isEqualTo(MergeRefusedException.Reason.BASE_UNAVAILABLE))
        .hasMessageContaining("was trimmed");
    assertThat(MapFork.now(reader)).as("nothing written").isEqualTo(before);
  }

  @Test
  void aMergeAbortedByAConcurrentWriterLeavesTheTargetUnchangedAndARetrySucceeds() {
    VCorfuRuntime rt =
        harness.runtime(
            RuntimeOptions.defaults()
                .withMaxTransactionAttempts(1)
                .withBackoff(Duration.ZERO, Duration.ofMillis(1)));
    CSMRMap<String, Integer> parent = parent(rt, name);
    CSMRMap<String, Integer> fork = parent.fork(name + "-f");
    fork.put("a", 2);
    fork.put("b", 2);
    fork.put("c", 2);
    parent.put("a", 3);
    CSMRMap<String, Integer> elsewhere = CSMRMap.open(harness.runtime(), name);
    MergeResolver<String, Integer> interfering =
        (key, base, target, source) -> {
          elsewhere.put("b", 7); // a key the merge read, written by another client mid-merge
          return source;
        };
    Map<String, Integer> before = parent.snapshot();
    assertThatThrownBy(() -> parent.merge(fork, interfering))
        .isInstanceOf(TransactionAbortedException.class);
    Map<String, Integer> expected = new HashMap<>(before);
    expected.put("b", 7);
    assertThat(parent.snapshot()).as("only the concurrent write").isEqualTo(expected);
    assertThat(parent.merges()).isEmpty();

    // With retries the merge is planned again from a fresh snapshot and tried again: the key the
    // other client wrote meanwhile (c, read by the merge) is then a conflict too.
    CSMRMap<String, Integer> patient = CSMRMap.open(harness.runtime(), name);
    AtomicInteger calls = new AtomicInteger();
    MergeResolver<String, Integer> once =
        (key, base, target, source) -> {
          if (calls.getAndIncrement() == 0) {
            elsewhere.put("c", 8);
          }
          return source;
        };
    MergeResult<String, Integer> r =
        patient.merge(CSMRMap.open(harness.runtime(), fork.name()), once);
    assertThat(r.conflicts()).containsExactlyInAnyOrder("a", "b", "c");
    assertThat(calls.get()).as("resolver calls over two attempts").isGreaterThan(3);
    assertThat(patient.snapshot()).isEqualTo(Map.of("a", 2, "b", 2, "c", 2, "d", 1));
    assertThat(patient.merges()).hasSize(1);
  }

  /**
   * Two clients merge one fork into its parent again and again while a third keeps changing the
   * fork's keys: the parent never changes a key itself, so no merge may see a conflict (each plans
   * from the last merge committed before its snapshot, or plans again), and a last merge leaves the
   * parent equal to the fork.
   */
  @Test
  void concurrentMergesOfOneForkNeverConflictAndLoseNothing() throws Exception {
    VCorfuRuntime rt = harness.runtime();
    CSMRMap<String, Integer> parent = parent(rt, name);
    CSMRMap<String, Integer> fork = parent.fork(name + "-f");
    AtomicBoolean writing = new AtomicBoolean(true);
    java.util.concurrent.atomic.AtomicInteger merged =
        new java.util.concurrent.atomic.AtomicInteger();
    // The writer goes on (within bounds of count and time) until the mergers have merged a few
    // times while it writes, however the threads are scheduled: on a loaded machine 5,000 puts
    // once went by before the fourth merge.
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
    Thread writer =
        new Thread(
            () -> {
              CSMRMap<String, Integer> f = CSMRMap.open(harness.runtime(), fork.name());
              for (int i = 0;
                  i < 200_000 && System.nanoTime() < deadline && (i < 150 || merged.get() < 4);
                  i++) {
                f.put(String.valueOf((char) ('a' + i % 6)), i);
              }
              writing.set(false);
            });
    List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
    List<Thread> mergers = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      mergers.add(
          new Thread(
              () -> {
                VCorfuRuntime mine = harness.runtime();
                CSMRMap<String, Integer> p = CSMRMap.open(mine, name);
                CSMRMap<String, Integer> f = CSMRMap.open(mine, fork.name());
                try {
                  while (writing.get()) {
                    p.merge(f);
                    merged.incrementAndGet();
                  }
                } catch (Throwable e) {
                  failures.add(e);
                }
              }));
    }
    writer.start();
    mergers.forEach(Thread::start);
    writer.join(30_000);
    for (Thread m : mergers) {
      m.join(30_000);
    }
    assertThat(failures).isEmpty();
    parent.merge(fork);
    assertThat(parent.snapshot()).isEqualTo(fork.snapshot());
    assertThat(merged.get()).as("merges while the fork changed").isGreaterThanOrEqualTo(4);
    assertThat(parent.merges()).isNotEmpty();
  }

  @Test
  void recordsMergeFieldByFieldAndFallBackWholeWhereAKeyWasRemoved() {
    VCorfuRuntime rt = harness.runtime();
    CSMRMap<String, Map<String, Object>> parent = CSMRMap.open(rt, name, BUCKETS);
    parent.put("r", Map.of("x", 1, "y", 1, "z", 1, "gone", 1));
    parent.put("s", Map.of("x", 1));
    CSMRMap<String, Map<String, Object>> fork = parent.fork(name + "-f");
    parent.fastUpdateFields("r", Map.of("x", 2, "z", 2));
    fork.fastUpdateFields("r", Map.of("y", 3, "z", 3, "new", 3));
    Map<String, Object> record = new HashMap<>(fork.get("r"));
    record.remove("gone");
    fork.put("r", record);
    parent.put("s", Map.of("x", 2));
    fork.remove("s");

    MergeResult<String, Map<String, Object>> r =
        parent.merge(fork, MergeResolver.byField(MergePolicy.TARGET_WINS));
    assertThat(r.conflicts()).containsExactlyInAnyOrder("r", "s");
    assertThat(parent.get("r")).isEqualTo(Map.of("x", 2, "y", 3, "z", 2, "new", 3));
    assertThat(parent.get("s"))
        .as("removed in the source: the target's, whole")
        .isEqualTo(Map.of("x", 2));
    assertThatThrownBy(() -> MergeResolver.byField(MergePolicy.FAIL))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
