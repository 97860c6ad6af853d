package io.vcorfu.collections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.collections.internal.PersistentSortedMap;
import io.vcorfu.runtime.ReadOnlyViewException;
import io.vcorfu.runtime.TransactionAbortedException;
import io.vcorfu.runtime.VCorfuRuntime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class SMRRangeMapTest {
  @RegisterExtension final Harness harness = new Harness();

  private VCorfuRuntime runtime() {
    return harness.defaultRuntime();
  }

  private static SMRRangeMap<Long, String> open(VCorfuRuntime rt, String name) {
    return SMRRangeMap.open(rt, name);
  }

  @Test
  void aCheckpointedRangeMapReopensWithTheSameEntriesInOrder() {
    VCorfuRuntime rt = harness.defaultRuntime();
    SMRRangeMap<Long, String> map = open(rt, "range-checkpointed");
    java.util.TreeMap<Long, String> model = new java.util.TreeMap<>();
    for (long i = 0; i < 200; i++) {
      map.put(i * 7 % 200, "v" + i);
      model.put(i * 7 % 200, "v" + i);
    }
    map.remove(13L);
    model.remove(13L);
    assertThat(rt.checkpoint(map)).as("the tree is written as its entries").isPresent();
    map.put(500L, "after");
    model.put(500L, "after");

    SMRRangeMap<Long, String> reopened = open(harness.defaultRuntime(), "range-checkpointed");
    assertThat(reopened).containsExactlyEntriesOf(model);
    assertThat(reopened.firstKey()).isZero();
    assertThat(reopened.headMap(20L)).containsExactlyEntriesOf(model.headMap(20L));
  }

  @Test
  void runtimesSeeEachOthersWritesIncludingFastPuts() {
    SMRRangeMap<Long, String> a = open(runtime(), "shared");
    SMRRangeMap<Long, String> b = open(runtime(), "shared");
    a.put(1L, "one");
    a.fastPut(3L, "three");
    b.put(2L, "two");
    assertThat(b.floorKey(3L)).isEqualTo(3L);
    assertThat(a.headMap(3L)).isEqualTo(Map.of(1L, "one", 2L, "two"));
    assertThat(b.pollLastEntry()).isEqualTo(Map.entry(3L, "three"));
    assertThat(a.lastKey()).isEqualTo(2L);
    assertThatThrownBy(() -> a.fastPut(null, "x")).isInstanceOf(NullPointerException.class);
  }

  /** Runs two transactions interleaved (both read, then both write); returns which committed. */
  private static boolean[] interleave(
      VCorfuRuntime r1, Consumer<Boolean> first, VCorfuRuntime r2, Consumer<Boolean> second) {
    r1.TXBegin();
    r2.TXBegin();
    first.accept(false);
    second.accept(false);
    first.accept(true);
    second.accept(true);
    boolean[] committed = new boolean[2];
    committed[0] = end(r1);
    committed[1] = end(r2);
    return committed;
  }

  private static boolean end(VCorfuRuntime rt) {
    try {
      rt.TXEnd();
      return true;
    } catch (TransactionAbortedException e) {
      return false;
    }
  }

  @Test
  void transactionsOnDifferentKeysDoNotConflictButRangeReadsConflictWithAnyWrite() {
    VCorfuRuntime r1 = runtime();
    VCorfuRuntime r2 = runtime();
    SMRRangeMap<Long, String> m1 = open(r1, "conflicts");
    SMRRangeMap<Long, String> m2 = open(r2, "conflicts");
    m1.put(1L, "a");
    m1.put(2L, "b");
    boolean[] disjoint =
        interleave(
            r1,
                write -> {
                  if (write) {
                    m1.put(1L, m1.get(1L) + "1");
                  } else {
                    m1.get(1L);
                  }
                },
            r2,
                write -> {
                  if (write) {
                    m2.put(2L, m2.get(2L) + "2");
                  } else {
                    m2.containsKey(2L);
                  }
                });
    assertThat(disjoint).as("transactions on keys 1 and 2").containsExactly(true, true);
    assertThat(m2.get(1L)).isEqualTo("a1");
    assertThat(m1.get(2L)).isEqualTo("b2");
    boolean[] sameKey =
        interleave(
            r1,
                write -> {
                  if (write) {
                    m1.put(1L, "x");
                  } else {
                    m1.get(1L);
                  }
                },
            r2,
                write -> {
                  if (write) {
                    m2.put(1L, "y");
                  } else {
                    m2.get(1L);
                  }
                });
    assertThat(sameKey).as("transactions on key 1 both").containsExactly(true, false);
    boolean[] range =
        interleave(
            r1,
                write -> {
                  if (write) {
                    m1.put(7L, "seven");
                  } else {
                    m1.get(7L);
                  }
                },
            r2,
                write -> {
                  if (write) {
                    m2.put(8L, "eight");
                  } else {
                    m2.ceilingKey(5L);
                  }
                });
    assertThat(range)
        .as("a navigation read against a write of another key")
        .containsExactly(true, false);
    assertThat(m2).isEqualTo(Map.of(1L, "x", 2L, "b2", 7L, "seven"));
  }

  @Test
  void aTransactionReadsItsOwnWritesAndAnAbortDiscardsThem() {
    VCorfuRuntime rt = runtime();
    SMRRangeMap<Long, String> map = open(rt, "own-writes");
    map.put(1L, "one");
    rt.TXBegin();
    map.put(2L, "two");
    map.remove(1L);
    assertThat(map.size()).isEqualTo(1);
    assertThat(map.firstEntry()).isEqualTo(Map.entry(2L, "two"));
    assertThat(new ArrayList<>(map.keySet())).containsExactly(2L);
    rt.TXAbort();
    assertThat(map).isEqualTo(Map.of(1L, "one"));
  }

  @Test
  void aSnapshotViewAsOfAnAddressEqualsTheModelThenAndRefusesWrites() {
    VCorfuRuntime rt = runtime();
    SMRRangeMap<Long, String> map = open(rt, "history");
    History history = History.write(rt, map, new Random(4), 80, 25);
    List<Long> addresses = history.addresses();
    List<TreeMap<Long, String>> models = history.models();
    VCorfuRuntime other = runtime();
    for (int i = 0; i < addresses.size(); i += 9) {
      @SuppressWarnings("unchecked")
      SMRRangeMap<Long, String> old =
          other.objects().builder("history", SMRRangeMap.class).asOf(addresses.get(i)).open();
      assertThat(new ArrayList<>(old.entrySet()))
          .as("as of %d", addresses.get(i))
          .containsExactlyElementsOf(models.get(i).entrySet());
      assertThat(old.subMap(5L, 15L)).isEqualTo(models.get(i).subMap(5L, 15L));
      assertThatThrownBy(() -> old.put(1L, "x")).isInstanceOf(ReadOnlyViewException.class);
    }
  }

  @Test
  void capturedVersionsStayIntactAndRestoreIntoAFreshInstance() {
    SMRRangeMap<Long, String> plain = new SMRRangeMap<>();
    plain.put(1L, "one");
    plain.put(2L, "two");
    PersistentSortedMap<Long, String> captured = plain.captureVersion();
    plain.put(3L, "three");
    plain.remove(1L);
    assertThat(captured.size()).as("later updates leave the captured version alone").isEqualTo(2);
    SMRRangeMap<Long, String> restored = new SMRRangeMap<>();
    restored.restoreVersion(captured);
    assertThat(restored).isEqualTo(Map.of(1L, "one", 2L, "two"));
    restored.put(9L, "nine");
    assertThat(captured.containsKey(9L)).isFalse();
    assertThat(plain).isEqualTo(Map.of(2L, "two", 3L, "three"));
  }
}
