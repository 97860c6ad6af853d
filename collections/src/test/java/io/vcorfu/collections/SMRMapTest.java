package io.vcorfu.collections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.runtime.ReadOnlyViewException;
import io.vcorfu.runtime.TransactionAbortedException;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.serialization.DefaultSerializer;
import io.vcorfu.runtime.serialization.UnsupportedTypeException;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
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
    assertThat(tail(rt)).isEqualTo(before);
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
