package io.vcorfu.collections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.runtime.ReadOnlyViewException;
import io.vcorfu.runtime.TransactionAbortedException;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.serialization.DefaultSerializer;
import io.vcorfu.runtime.serialization.UnsupportedTypeException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * SMRMap behaviour beyond the Map contract: blind writes, log positions, checkpoints, key types.
 */
class SMRMapTest {
  @RegisterExtension final Harness harness = new Harness();

  private VCorfuRuntime runtime() {
    return harness.defaultRuntime();
  }

  private static long tail(VCorfuRuntime rt) {
    rt.TXBegin();
    return rt.TXEnd();
  }

  @Test
  void putAndRemoveReturnWhatTheirUpdateFoundInTheLog() {
    SMRMap<String, Integer> a = SMRMap.open(runtime(), "returns");
    SMRMap<String, Integer> b = SMRMap.open(runtime(), "returns");
    assertThat(a.put("k", 1)).isNull();
    assertThat(b.put("k", 2)).as("b has not read a's put, but its update follows it").isEqualTo(1);
    b.fastPut("k", 3);
    assertThat(a.remove("k")).isEqualTo(3);
    assertThat(b.remove("k")).isNull();
    assertThat(a).isEmpty();
  }

  @Test
  void fastPutInATransactionReadsNothingSoAConcurrentWriteOfItsKeyDoesNotAbortIt() {
    VCorfuRuntime rt = runtime();
    SMRMap<String, Integer> mine = SMRMap.open(rt, "blind");
    SMRMap<String, Integer> theirs = SMRMap.open(runtime(), "blind");
    rt.TXBegin();
    mine.fastPut("a", 1);
    theirs.put("a", 2);
    rt.TXEnd();
    assertThat(theirs.get("a")).as("the transaction committed after the other put").isEqualTo(1);
  }

  @Test
  void aBlindWriteAbortsOnlyTransactionsThatReadItsKey() {
    VCorfuRuntime rt = runtime();
    SMRMap<String, Integer> mine = SMRMap.open(rt, "blind-keys");
    SMRMap<String, Integer> theirs = SMRMap.open(runtime(), "blind-keys");
    theirs.put("a", 1);

    rt.TXBegin();
    int a = mine.get("a");
    theirs.fastPut("b", 5);
    mine.put("c", a + 1);
    rt.TXEnd();
    assertThat(theirs.get("c")).isEqualTo(2);

    rt.TXBegin();
    mine.get("a");
    theirs.fastPut("a", 7);
    mine.put("c", 100);
    assertThatThrownBy(rt::TXEnd).isInstanceOf(TransactionAbortedException.class);
    assertThat(mine.get("c")).isEqualTo(2);

    rt.TXBegin();
    mine.size();
    theirs.fastPut("z", 1);
    mine.put("c", 100);
    assertThatThrownBy(rt::TXEnd)
        .as("size reads the whole map")
        .isInstanceOf(TransactionAbortedException.class);
  }

  @Test
  void refusedNullsAppendNothing() {
    VCorfuRuntime rt = runtime();
    SMRMap<String, Integer> map = SMRMap.open(rt, "nulls");
    map.put("a", 1);
    long before = tail(rt);
    assertThatThrownBy(() -> map.put("b", null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> map.fastPut(null, 1)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> map.remove(null)).isInstanceOf(NullPointerException.class);
    SMRMap<String, Map<String, Integer>> records = SMRMap.open(rt, "nulls");
    Map<String, Integer> nullValue = new HashMap<>();
    nullValue.put("f", null);
    assertThatThrownBy(() -> records.fastUpdateFields(null, Map.of("f", 1)))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> records.fastUpdateFields("a", null))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> records.fastUpdateFields("a", nullValue))
        .isInstanceOf(NullPointerException.class);
    records.fastUpdateFields("a", Map.of());
    assertThat(tail(rt)).isEqualTo(before);
  }

  @Test
  void aFieldUpdateSetsOnlyItsFieldsAndEveryClientReplaysTheSameRecord() {
    SMRMap<String, Map<String, Integer>> a = SMRMap.open(runtime(), "records");
    SMRMap<String, Map<String, Integer>> b = SMRMap.open(runtime(), "records");
    Map<String, Integer> record = new LinkedHashMap<>();
    record.put("x", 1);
    record.put("y", 2);
    a.put("r", record);
    b.fastUpdateFields("r", Map.of("y", 20));
    a.fastUpdateFields("r", Map.of("z", 3));
    Map<String, Integer> expected = new LinkedHashMap<>();
    expected.put("x", 1);
    expected.put("y", 20);
    expected.put("z", 3);
    assertThat(a.get("r")).isEqualTo(expected);
    assertThat(b.get("r")).containsExactlyEntriesOf(expected);
    SMRMap<String, Map<String, Integer>> fresh = SMRMap.open(runtime(), "records");
    assertThat(fresh.get("r")).as("replayed by a new client").containsExactlyEntriesOf(expected);
  }

  @Test
  void aFieldUpdateNeverCreatesARecordNorChangesAValueThatIsNotAMap() {
    VCorfuRuntime rt = runtime();
    SMRMap<String, Object> map = SMRMap.open(rt, "not-records");
    map.put("plain", "text");
    long before = tail(rt);
    map.fastUpdateFields("absent", Map.of("f", 1));
    map.fastUpdateFields("plain", Map.of("f", 1));
    assertThat(tail(rt)).as("both updates were appended").isGreaterThan(before);
    SMRMap<String, Object> seen = SMRMap.open(runtime(), "not-records");
    assertThat(seen).isEqualTo(Map.of("plain", "text"));
  }

  @Test
  void concurrentUpdatesOfDifferentFieldsOfOneRecordAreAllKept() throws Exception {
    int writers = 4;
    int rounds = 50;
    SMRMap<String, Map<String, Integer>> setup = SMRMap.open(runtime(), "shared-record");
    setup.put("r", Map.of("created", 1));
    List<SMRMap<String, Map<String, Integer>>> clients = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      clients.add(SMRMap.open(runtime(), "shared-record"));
    }
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        SMRMap<String, Map<String, Integer>> mine = clients.get(w);
        String field = "f" + w;
        done.add(
            pool.submit(
                () -> {
                  for (int i = 1; i <= rounds; i++) {
                    mine.fastUpdateFields("r", Map.of(field, i));
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    Map<String, Integer> expected = new HashMap<>(Map.of("created", 1));
    for (int w = 0; w < writers; w++) {
      expected.put("f" + w, rounds);
    }
    assertThat(SMRMap.<String, Map<String, Integer>>open(runtime(), "shared-record").get("r"))
        .as("every writer's last value of its own field")
        .isEqualTo(expected);
  }

  @Test
  void aFieldUpdateReadsNothingInATransactionAndAbortsTransactionsThatReadItsKey() {
    VCorfuRuntime rt = runtime();
    SMRMap<String, Map<String, Integer>> mine = SMRMap.open(rt, "record-tx");
    SMRMap<String, Map<String, Integer>> theirs = SMRMap.open(runtime(), "record-tx");
    theirs.put("r", Map.of("a", 1));

    rt.TXBegin();
    mine.fastUpdateFields("r", Map.of("b", 2));
    theirs.put("r", Map.of("a", 5));
    rt.TXEnd();
    assertThat(theirs.get("r")).isEqualTo(Map.of("a", 5, "b", 2));

    rt.TXBegin();
    mine.get("r");
    theirs.fastUpdateFields("r", Map.of("a", 6));
    mine.put("other", Map.of());
    assertThatThrownBy(rt::TXEnd).isInstanceOf(TransactionAbortedException.class);
    assertThat(mine.get("r")).isEqualTo(Map.of("a", 6, "b", 2));
    assertThat(mine.containsKey("other")).isFalse();
  }

  @Test
  void aTransactionReadsItsSnapshotOfALargeMapPlusItsOwnWrites() {
    VCorfuRuntime rt = runtime();
    SMRMap<String, Integer> map = SMRMap.open(rt, "large");
    Map<String, Integer> batch = new HashMap<>();
    for (int i = 0; i < 5_000; i++) {
      batch.put("k" + i, i);
    }
    map.putAll(batch);
    SMRMap<String, Integer> other = SMRMap.open(runtime(), "large");
    rt.TXBegin();
    try {
      other.put("late", 1);
      assertThat(map.get("late")).as("written after the snapshot").isNull();
      map.put("mine", 2);
      assertThat(map.size()).isEqualTo(5_001);
      assertThat(map.get("mine")).isEqualTo(2);
      assertThat(map.get("k4999")).isEqualTo(4_999);
    } finally {
      rt.TXAbort();
    }
    assertThat(map.size()).isEqualTo(5_001);
    assertThat(map).containsKey("late").doesNotContainKey("mine");
  }

  @Test
  void aCheckpointedMapReopensWithTheSameEntries() {
    VCorfuRuntime rt = runtime();
    SMRMap<String, Integer> map = SMRMap.open(rt, "checkpointed");
    Map<String, Integer> model = new HashMap<>();
    for (int i = 0; i < 300; i++) {
      map.put("k" + i, i);
      model.put("k" + i, i);
    }
    map.remove("k3");
    model.remove("k3");
    assertThat(map).isEqualTo(model);
    OptionalLong at = rt.checkpoint(map);
    assertThat(at).isPresent();
    map.put("after", 1);

    VCorfuRuntime reader = runtime();
    SMRMap<String, Integer> reopened = SMRMap.open(reader, "checkpointed");
    Map<String, Integer> expected = new HashMap<>(model);
    expected.put("after", 1);
    assertThat(reopened).isEqualTo(expected);
    @SuppressWarnings("unchecked")
    SMRMap<String, Integer> atCheckpoint =
        reader.objects().builder("checkpointed", SMRMap.class).asOf(at.getAsLong()).open();
    assertThat(atCheckpoint).isEqualTo(model);
    assertThatThrownBy(() -> atCheckpoint.put("x", 1)).isInstanceOf(ReadOnlyViewException.class);
  }

  /** A record key: admitted through the runtime's default serializer. */
  record Point(int x, int y) {}

  @Test
  void recordKeysWorkOnceTheSerializerAdmitsThem() {
    VCorfuRuntime rt = runtime();
    SMRMap<Point, String> map = SMRMap.open(rt, "points");
    assertThatThrownBy(() -> map.put(new Point(1, 2), "a"))
        .isInstanceOf(UnsupportedTypeException.class);
    ((DefaultSerializer) rt.options().serializer()).allow(Point.class);
    map.put(new Point(1, 2), "a");
    VCorfuRuntime other = runtime();
    ((DefaultSerializer) other.options().serializer()).allow(Point.class);
    SMRMap<Point, String> seen = SMRMap.open(other, "points");
    assertThat(seen.get(new Point(1, 2))).isEqualTo("a");
    assertThat(seen).isEqualTo(Map.of(new Point(1, 2), "a"));
  }
}
