package io.vcorfu.collections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.runtime.TransactionAbortedException;
import io.vcorfu.runtime.VCorfuRuntime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A transaction conflict names the collection and the key as the application knows them ({@code map
 * 'users' key 'alice'}), not a stream id and a count of bytes.
 */
class ConflictNamesTest {
  @RegisterExtension final Harness harness = new Harness();

  @Test
  void aConflictOnAMapKeyNamesTheMapAndTheKey() {
    VCorfuRuntime reader = harness.defaultRuntime();
    VCorfuRuntime writer = harness.defaultRuntime();
    CSMRMap<String, String> mine = CSMRMap.open(reader, "users", 4);
    CSMRMap<String, String> theirs = CSMRMap.open(writer, "users", 4);
    mine.put("alice", "reader");

    reader.TXBegin();
    assertThat(mine.get("alice")).isEqualTo("reader");
    mine.put("bob", "x");
    theirs.put("alice", "writer");
    assertThatThrownBy(reader::TXEnd)
        .isInstanceOfSatisfying(
            TransactionAbortedException.class,
            e -> assertThat(e.reason()).isEqualTo(TransactionAbortedException.Reason.CONFLICT))
        .hasMessageContaining("map 'users' key 'alice' was written at global address")
        .hasMessageNotContaining("bytes")
        .satisfies(
            e ->
                assertThat(e.getMessage())
                    .as("no stream id")
                    .doesNotContainPattern("[0-9a-f]{8}-[0-9a-f]{4}-"));
  }

  @Test
  void aConflictOnAnObjectOpenedByNameNamesItsClassAndName() {
    VCorfuRuntime reader = harness.defaultRuntime();
    VCorfuRuntime writer = harness.defaultRuntime();
    SMRMap<String, Integer> mine = SMRMap.open(reader, "stock");
    SMRMap<String, Integer> theirs = SMRMap.open(writer, "stock");

    reader.TXBegin();
    assertThat(mine.get("apples")).isNull();
    mine.put("pears", 1);
    theirs.put("apples", 3);
    assertThatThrownBy(reader::TXEnd)
        .isInstanceOf(TransactionAbortedException.class)
        .hasMessageContaining("SMRMap 'stock' key 'apples' was written");
  }

  @Test
  void aStreamOpenedByIdIsNamedByItsIdAndItsKeyDecoded() {
    VCorfuRuntime reader = harness.defaultRuntime();
    VCorfuRuntime writer = harness.defaultRuntime();
    io.vcorfu.protocol.StreamId id = io.vcorfu.protocol.StreamId.of("unnamed");
    @SuppressWarnings("unchecked")
    SMRMap<String, Integer> mine = reader.objects().builder(id, SMRMap.class).open();
    @SuppressWarnings("unchecked")
    SMRMap<String, Integer> theirs = writer.objects().builder(id, SMRMap.class).open();

    reader.TXBegin();
    mine.get("k");
    mine.put("other", 1);
    theirs.put("k", 2);
    assertThatThrownBy(reader::TXEnd).hasMessageContaining("stream " + id + " key 'k' was written");
  }
}
