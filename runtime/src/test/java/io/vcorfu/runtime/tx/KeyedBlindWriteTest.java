package io.vcorfu.runtime.tx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.runtime.TransactionAbortedException;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.example.Inventory;
import io.vcorfu.runtime.testing.TestStreamLogs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A mutator with a {@code @ConflictParameter} called outside a transaction writes only its key: it
 * aborts the transactions that read that key or the whole object, and no others.
 */
class KeyedBlindWriteTest {
  private final TestStreamLogs cluster = TestStreamLogs.create();
  private VCorfuRuntime reader;
  private VCorfuRuntime writer;
  private Inventory mine;
  private Inventory theirs;

  @BeforeEach
  void open() {
    reader = cluster.newRuntime();
    writer = cluster.newRuntime();
    mine = reader.objects().open("stock", Inventory.class);
    theirs = writer.objects().open("stock", Inventory.class);
    theirs.put("a", 1);
    theirs.put("b", 1);
  }

  @AfterEach
  void close() {
    reader.close();
    writer.close();
    cluster.close();
  }

  @Test
  void aTransactionReadingOneKeyCommitsDespiteABlindWriteOfAnotherKey() {
    reader.TXBegin();
    assertThat(mine.get("a")).isEqualTo(1);
    theirs.put("b", 2);
    mine.put("c", 3);
    assertThat(reader.TXEnd()).as("the commit address").isPositive();
    assertThat(mine.get("b")).isEqualTo(2);
    assertThat(mine.get("c")).isEqualTo(3);
  }

  @Test
  void aTransactionReadingAKeyAbortsWhenThatKeyIsBlindWritten() {
    reader.TXBegin();
    assertThat(mine.get("a")).isEqualTo(1);
    theirs.put("a", 2);
    mine.put("c", 3);
    assertThatThrownBy(reader::TXEnd)
        .isInstanceOfSatisfying(
            TransactionAbortedException.class,
            e -> assertThat(e.reason()).isEqualTo(TransactionAbortedException.Reason.CONFLICT));
    assertThat(mine.get("c")).as("the aborted write").isZero();
  }

  @Test
  void aTransactionReadingTheWholeObjectAbortsOnAnyKeyedBlindWrite() {
    reader.TXBegin();
    assertThat(mine.total()).isEqualTo(2);
    theirs.put("b", 5);
    mine.put("c", 3);
    assertThatThrownBy(reader::TXEnd).isInstanceOf(TransactionAbortedException.class);
  }

  @Test
  void aWholeObjectBlindWriteStillAbortsKeyedReaders() {
    reader.TXBegin();
    assertThat(mine.get("a")).isEqualTo(1);
    theirs.putAll(java.util.List.of(new Inventory.Item("z", 9)));
    mine.put("c", 3);
    assertThatThrownBy(reader::TXEnd).isInstanceOf(TransactionAbortedException.class);
  }
}
