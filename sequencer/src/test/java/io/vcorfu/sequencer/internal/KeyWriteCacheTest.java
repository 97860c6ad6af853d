package io.vcorfu.sequencer.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.vcorfu.protocol.StreamId;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KeyWriteCacheTest {
  static final StreamId S = StreamId.of("s");
  static final StreamId T = StreamId.of("t");

  record Evicted(StreamId stream, long address) {}

  static ByteString k(String key) {
    return ByteString.copyFromUtf8(key);
  }

  @Test
  void evictsTheKeyWrittenLongestAgoAndReportsItsStreamAndAddress() {
    List<Evicted> evicted = new ArrayList<>();
    KeyWriteCache cache = new KeyWriteCache(2, (s, a) -> evicted.add(new Evicted(s, a)));
    cache.recordWrite(S, k("a"), 1);
    cache.recordWrite(T, k("b"), 2);
    cache.recordWrite(S, k("a"), 3); // rewriting moves "a" to the young end
    cache.recordWrite(S, k("c"), 4);
    assertThat(evicted).containsExactly(new Evicted(T, 2));
    assertThat(cache.lastWrite(S, k("a"))).isEqualTo(3);
    assertThat(cache.lastWrite(T, k("b"))).isEqualTo(-1);
    assertThat(cache.size()).isEqualTo(2);
  }

  @Test
  void sameKeyBytesInDifferentStreamsAreDifferentKeys() {
    KeyWriteCache cache = new KeyWriteCache(10, (s, a) -> {});
    cache.recordWrite(S, k("a"), 5);
    assertThat(cache.lastWrite(T, k("a"))).isEqualTo(-1);
    assertThat(cache.lastWrite(S, k("a"))).isEqualTo(5);
  }

  @Test
  void clearForgetsEveryKeyAndStartsAFreshWriteOrder() {
    List<Evicted> evicted = new ArrayList<>();
    KeyWriteCache cache = new KeyWriteCache(2, (s, a) -> evicted.add(new Evicted(s, a)));
    cache.recordWrite(S, k("a"), 1);
    cache.recordWrite(S, k("b"), 2);
    cache.clear();
    assertThat(cache.size()).isZero();
    assertThat(cache.lastWrite(S, k("a"))).isEqualTo(-1);
    cache.recordWrite(S, k("c"), 3);
    cache.recordWrite(S, k("d"), 4);
    cache.recordWrite(S, k("e"), 5);
    assertThat(evicted).containsExactly(new Evicted(S, 3));
  }

  /**
   * Random writes over a few keys and streams, against a model kept in a write-ordered map (a
   * rewrite removes the key and puts it again at the young end): the same last writes, the same
   * evictions in the same order, for several capacities.
   */
  @ParameterizedTest
  @ValueSource(longs = {1L, 2L, 3L, 42L, 20261206L})
  void keepsTheLastWriteAndEvictsInWriteOrderLikeTheModel(long seed) {
    System.out.println("KeyWriteCacheTest seed " + seed);
    Random random = new Random(seed);
    for (int capacity : new int[] {1, 2, 3, 7}) {
      List<Evicted> evicted = new ArrayList<>();
      List<Evicted> modelEvicted = new ArrayList<>();
      KeyWriteCache cache = new KeyWriteCache(capacity, (s, a) -> evicted.add(new Evicted(s, a)));
      Map<Evicted, Long> model = new LinkedHashMap<>(); // (stream, key index) -> last address
      for (long address = 1; address <= 2_000; address++) {
        StreamId stream = random.nextBoolean() ? S : T;
        int key = random.nextInt(10);
        Evicted id = new Evicted(stream, key);
        cache.recordWrite(stream, k("k" + key), address);
        model.remove(id);
        model.put(id, address);
        if (model.size() > capacity) {
          Iterator<Map.Entry<Evicted, Long>> oldest = model.entrySet().iterator();
          Map.Entry<Evicted, Long> e = oldest.next();
          modelEvicted.add(new Evicted(e.getKey().stream(), e.getValue()));
          oldest.remove();
        }
        assertThat(cache.size()).isEqualTo(model.size());
      }
      assertThat(evicted).as("capacity %d, seed %d", capacity, seed).isEqualTo(modelEvicted);
      for (StreamId stream : List.of(S, T)) {
        for (int key = 0; key < 10; key++) {
          Long expected = model.get(new Evicted(stream, key));
          assertThat(cache.lastWrite(stream, k("k" + key)))
              .isEqualTo(expected == null ? -1 : expected);
        }
      }
    }
  }
}
