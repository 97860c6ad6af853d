package io.vcorfu.sequencer.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.vcorfu.protocol.StreamId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

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
}
