package io.vcorfu.logunit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.StreamId;
import org.junit.jupiter.api.Test;

/** The record index alone, in memory mode: what applying segment records leaves in it. */
class RecordIndexTest {
  private static final StreamId S = StreamId.of("s");

  private final RecordIndex index =
      new RecordIndex(false, new SegmentRefs(false, () -> 0, () -> null));

  private void entry(long address, long global, byte flags) {
    index.apply(
        SegmentRecord.entry(flags, global, 0, EntryRecords.key(S, address), new byte[] {1}), 0);
  }

  @Test
  void lastGlobalSkipsHolesAndSurvivesATrimOfTheLastDataRecord() {
    entry(0, 10, StorageEngine.COMMITTED);
    entry(1, 11, (byte) 0);
    entry(2, -1, (byte) (StorageEngine.HOLE | StorageEngine.COMMITTED));
    assertThat(index.maxAddress(S)).isEqualTo(2);
    assertThat(index.lastGlobal(S)).as("the hole at 2 is skipped").isEqualTo(11);
    assertThat(index.maxGlobal()).isEqualTo(11);

    // The entry at 1 is aborted into a hole: the last DATA record is now the one at 0.
    entry(1, -1, (byte) (StorageEngine.HOLE | StorageEngine.COMMITTED));
    assertThat(index.lastGlobal(S)).isEqualTo(10);

    index.apply(SegmentRecord.commit(EntryRecords.key(S, 0)), 0);
    assertThat(index.lookup(S, 0).committed()).isTrue();

    NamespaceIndex n = index.namespace(S);
    long floor = RecordIndex.lastGlobalBelow(n, 3);
    index.apply(SegmentRecord.marks(S.msb(), S.lsb(), 3, 2, floor, index.maxGlobal()), 0);
    assertThat(index.trimMark(S)).isEqualTo(3);
    assertThat(index.lookup(S, 0)).as("trimmed").isNull();
    assertThat(index.lastGlobal(S)).as("remembered below the trim mark").isEqualTo(10);
    assertThat(index.knows(StreamId.of("other"))).isFalse();
  }
}
