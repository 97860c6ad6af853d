package io.vcorfu.client.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.client.StreamEntry;
import io.vcorfu.protocol.StreamId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WriteCacheTest {
  private static final StreamId A = StreamId.of("a");
  private static final StreamId B = StreamId.of("b");
  private static final int ENTRY = 10 + WriteCache.ENTRY_OVERHEAD_BYTES;

  private static byte[] payload(int i) {
    byte[] p = new byte[10];
    p[0] = (byte) i;
    return p;
  }

  @Test
  void servesTheLeadingRunOfCachedAddressesOnly() {
    WriteCache c = new WriteCache(1 << 20);
    c.put(Map.of(A, 0L), 10, payload(0));
    c.put(Map.of(A, 1L), 11, payload(1));
    c.put(Map.of(A, 3L), 13, payload(3));

    assertThat(c.run(A, 0, 5)).extracting(StreamEntry::streamAddress).containsExactly(0L, 1L);
    assertThat(c.run(A, 1, 1))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.globalAddress()).isEqualTo(11);
              assertThat(e.isHole()).isFalse();
              assertThat(e.payload()).isEqualTo(payload(1));
            });
    assertThat(c.run(A, 2, 5)).isEmpty();
    assertThat(c.run(A, 3, 3)).hasSize(1);
    assertThat(c.run(B, 0, 5)).isEmpty();
    assertThat(c.run(A, 1, 0)).isEmpty();
  }

  @Test
  void aMultiStreamEntryIsCachedInEachOfItsStreams() {
    WriteCache c = new WriteCache(1 << 20);
    Map<StreamId, Long> slots = new LinkedHashMap<>();
    slots.put(A, 4L);
    slots.put(B, 0L);
    c.put(slots, 7, payload(7));

    assertThat(c.run(A, 4, 4))
        .singleElement()
        .satisfies(e -> assertThat(e.globalAddress()).isEqualTo(7));
    assertThat(c.run(B, 0, 0))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.stream()).isEqualTo(B);
              assertThat(e.globalAddress()).isEqualTo(7);
            });
    assertThat(c.bytes()).isEqualTo(2L * ENTRY);
  }

  @Test
  void evictsOldestFirstToStayWithinItsCapacity() {
    WriteCache c = new WriteCache(3L * ENTRY);
    for (int i = 0; i < 5; i++) {
      c.put(Map.of(A, (long) i), 100 + i, payload(i));
      assertThat(c.bytes()).isLessThanOrEqualTo(3L * ENTRY);
    }
    assertThat(c.run(A, 0, 4)).isEmpty();
    assertThat(c.run(A, 2, 4)).extracting(StreamEntry::streamAddress).containsExactly(2L, 3L, 4L);
  }

  @Test
  void anEntryLargerThanTheCapacityIsNotCachedAndZeroDisablesTheCache() {
    WriteCache small = new WriteCache(ENTRY - 1);
    small.put(Map.of(A, 0L), 0, payload(0));
    assertThat(small.run(A, 0, 0)).isEmpty();
    assertThat(small.bytes()).isZero();

    WriteCache off = new WriteCache(0);
    off.put(Map.of(A, 0L), 0, payload(0));
    assertThat(off.run(A, 0, 0)).isEmpty();

    assertThatThrownBy(() -> new WriteCache(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(">= 0");
  }

  @Test
  void trimForgetsTheStreamsEntriesBelowTheMarkAndTheirBytes() {
    WriteCache c = new WriteCache(1 << 20);
    for (int i = 0; i < 4; i++) {
      c.put(Map.of(A, (long) i), i, payload(i));
      c.put(Map.of(B, (long) i), 10 + i, payload(i));
    }
    c.trim(A, 3);

    assertThat(c.run(A, 0, 3)).isEmpty();
    assertThat(c.run(A, 3, 3)).hasSize(1);
    assertThat(c.run(B, 0, 3)).hasSize(4);
    assertThat(c.bytes()).isEqualTo(5L * ENTRY);
  }

  @Test
  void thePayloadIsCopiedSoTheCallersArrayCanBeReused() {
    WriteCache c = new WriteCache(1 << 20);
    byte[] p = payload(1);
    c.put(Map.of(A, 0L), 0, p);
    p[0] = 99;
    assertThat(c.run(A, 0, 0).get(0).payload()[0]).isEqualTo((byte) 1);
  }

  @Test
  void aSecondPutOfTheSameSlotKeepsTheFirstAndCountsOnce() {
    WriteCache c = new WriteCache(1 << 20);
    c.put(Map.of(A, 0L), 5, payload(1));
    c.put(Map.of(A, 0L), 5, payload(1));
    assertThat(c.bytes()).isEqualTo(ENTRY);
    assertThat(c.run(A, 0, 0)).hasSize(1);
    assertThat(List.of(c.run(A, 0, 0).get(0).globalAddress())).containsExactly(5L);
  }

  @Test
  void anEntryPutBelowItsStreamsTrimMarkIsNotKept() {
    WriteCache c = new WriteCache(1 << 20);
    c.trim(A, 5);
    c.put(Map.of(A, 4L, B, 4L), 40, payload(4));
    assertThat(c.run(A, 4, 4)).isEmpty();
    assertThat(c.run(B, 4, 4)).hasSize(1);
    assertThat(c.bytes()).isEqualTo(ENTRY);
  }

  @Test
  void trimmedEntriesLeaveTheQueueOnceTheyOutnumberTheLiveOnes() {
    WriteCache c = new WriteCache(1L << 30);
    int n = 3 * WriteCache.MIN_DEAD_TO_COMPACT;
    for (int i = 0; i < n; i++) {
      c.put(Map.of(A, (long) i), i, payload(i));
      c.put(Map.of(B, (long) i), n + i, payload(i));
    }
    c.trim(A, n);
    assertThat(c.queued()).as("dead entries equal to the live ones stay queued").isEqualTo(2 * n);
    c.trim(B, 1);
    assertThat(c.queued()).isEqualTo(n - 1);
    assertThat(c.run(B, 1, n - 1)).hasSize(n - 1);
    assertThat(c.bytes()).isEqualTo((n - 1L) * ENTRY);
  }

  @Test
  void evictionSkipsTrimmedEntriesAndStillFreesTheOldestLiveOnes() {
    WriteCache c = new WriteCache(4L * ENTRY);
    for (int i = 0; i < 4; i++) {
      c.put(Map.of(A, (long) i), i, payload(i));
    }
    c.trim(A, 2);
    c.put(Map.of(B, 0L), 10, payload(0));
    c.put(Map.of(B, 1L), 11, payload(1));
    assertThat(c.bytes()).isEqualTo(4L * ENTRY);
    c.put(Map.of(B, 2L), 12, payload(2));
    assertThat(c.run(A, 2, 3)).as("the oldest live entry went first").hasSize(0);
    assertThat(c.run(A, 3, 3)).hasSize(1);
    assertThat(c.run(B, 0, 2)).hasSize(3);
    assertThat(c.bytes()).isEqualTo(4L * ENTRY);
  }
}
