package io.vcorfu.runtime.tx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.runtime.TransactionAbortedException;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.example.Counter;
import io.vcorfu.runtime.example.Inventory;
import io.vcorfu.runtime.testing.TestRuntimes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Nested transactions keep a write set per level: an inner abort drops only that level's writes and
 * the outer level goes on, an inner end hands its writes outward, only the outermost level commits,
 * and the reads of every level, aborted ones included, are judged at the commit.
 */
class NestedTransactionTest {
  @RegisterExtension final TestRuntimes runtimes = new TestRuntimes();

  private VCorfuRuntime runtime() {
    return runtimes.runtime();
  }

  @Test
  void anInnerLevelsWritesJoinTheOuterOnesAndOnlyTheOutermostCommits() {
    VCorfuRuntime rt = runtime();
    Counter c = rt.objects().open("nested", Counter.class);
    long opened = runtimes.globalTail(); // the name's registration
    rt.TXBegin();
    long outerSnapshotRead = c.get();
    c.add(1);
    rt.TXBegin();
    c.add(2);
    assertThat(c.get()).isEqualTo(outerSnapshotRead + 3);
    assertThat(rt.TXEnd()).isEqualTo(-1);
    assertThat(runtimes.globalTail()).isEqualTo(opened);
    assertThat(rt.inTransaction()).isTrue();
    long commit = rt.TXEnd();
    assertThat(commit).isEqualTo(opened + 1);
    assertThat(c.get()).isEqualTo(3);
  }

  @Test
  void anInnerAbortDropsOnlyThatLevelsWritesAndTheOuterLevelCommits() {
    VCorfuRuntime rt = runtime();
    Counter c = rt.objects().open("inner-abort", Counter.class);
    Inventory inv = rt.objects().open("inner-abort-stock", Inventory.class);
    c.add(3);
    long before = runtimes.globalTail();

    rt.TXBegin();
    c.add(10);
    rt.TXBegin();
    c.add(20);
    inv.put("apple", 5); // an object only the inner level wrote
    assertThat(c.get()).isEqualTo(33);
    rt.TXBegin();
    c.add(100);
    rt.TXAbort(); // the innermost level only
    assertThat(c.get()).as("read-own-writes after the innermost abort").isEqualTo(33);
    rt.TXAbort(); // the middle level
    assertThat(rt.inTransaction()).isTrue();
    assertThat(c.get()).as("only the outer level's write is left").isEqualTo(13);
    assertThat(inv.get("apple")).as("the aborted level's object write is gone").isZero();
    c.add(1);
    rt.TXBegin();
    inv.put("pear", 2);
    rt.TXEnd();
    long commit = rt.TXEnd();

    assertThat(commit).isEqualTo(before + 1);
    VCorfuRuntime fresh = runtime();
    assertThat(fresh.objects().open("inner-abort", Counter.class).get()).isEqualTo(14);
    Inventory seen = fresh.objects().open("inner-abort-stock", Inventory.class);
    assertThat(seen.get("apple")).isZero();
    assertThat(seen.get("pear")).isEqualTo(2);
  }

  @Test
  void aTransactionWhoseOnlyWritesWereAbortedInAnInnerLevelWritesNothing() {
    VCorfuRuntime rt = runtime();
    Counter c = rt.objects().open("inner-only", Counter.class);
    c.add(1);
    long before = runtimes.globalTail();
    rt.TXBegin();
    rt.TXBegin();
    c.add(5);
    rt.TXAbort();
    assertThat(rt.TXEnd()).as("nothing to commit: the snapshot").isEqualTo(before);
    assertThat(runtimes.globalTail()).isEqualTo(before);
    assertThat(c.get()).isEqualTo(1);
  }

  @Test
  void conflictsOnReadsOfEitherLevelAbortTheCommitEvenAfterAnInnerAbort() throws Exception {
    VCorfuRuntime rt = runtime();
    Inventory mine = rt.objects().open("levels-stock", Inventory.class);
    Inventory theirs = runtime().objects().open("levels-stock", Inventory.class);
    theirs.put("outer", 1);
    theirs.put("inner", 1);

    // A key read by an inner level that then aborted: the outer level may have acted on it.
    rt.TXBegin();
    rt.TXBegin();
    int seen = mine.get("inner");
    rt.TXAbort();
    mine.put("result", seen);
    theirs.put("inner", 2);
    assertThatThrownBy(rt::TXEnd)
        .isInstanceOfSatisfying(
            TransactionAbortedException.class,
            e -> assertThat(e.reason()).isEqualTo(TransactionAbortedException.Reason.CONFLICT));

    // A key read by the outer level, written by an inner level that ended into it.
    rt.TXBegin();
    int outer = mine.get("outer");
    rt.TXBegin();
    mine.put("result", outer + 1);
    rt.TXEnd();
    theirs.put("outer", 7);
    assertThatThrownBy(rt::TXEnd).isInstanceOf(TransactionAbortedException.class);
    assertThat(theirs.get("result")).as("nothing of either attempt committed").isZero();

    // Disjoint keys at both levels commit.
    rt.TXBegin();
    mine.get("outer");
    rt.TXBegin();
    mine.put("result", mine.get("inner") + 10);
    rt.TXEnd();
    theirs.put("unrelated", 1);
    rt.TXEnd();
    assertThat(theirs.get("result")).isEqualTo(12);
  }

  @Test
  void aTransactionBodyInsideATransactionIsALevelThatAnExceptionRollsBack() {
    VCorfuRuntime rt = runtime();
    Counter c = rt.objects().open("body-level", Counter.class);
    long before = runtimes.globalTail();
    rt.TXBegin();
    c.add(1);
    rt.transaction(() -> c.add(5));
    assertThat(rt.inTransaction()).isTrue();
    assertThat(runtimes.globalTail()).as("joined, not committed on its own").isEqualTo(before);
    assertThatThrownBy(
            () ->
                rt.transaction(
                    () -> {
                      c.add(100);
                      throw new IllegalStateException("changed my mind");
                    }))
        .isInstanceOf(IllegalStateException.class);
    assertThat(rt.inTransaction()).as("the outer level goes on").isTrue();
    assertThat(c.get()).isEqualTo(6);
    rt.TXEnd();
    assertThat(runtime().objects().open("body-level", Counter.class).get()).isEqualTo(6);
  }
}
