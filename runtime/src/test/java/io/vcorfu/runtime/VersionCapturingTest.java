package io.vcorfu.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.StreamLog;
import io.vcorfu.client.Tails;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.example.Journal;
import io.vcorfu.runtime.testing.ForwardingStreamLog;
import io.vcorfu.runtime.testing.TestRuntimes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Objects implementing VersionCapturing: old versions are restored from captured versions, never
 * replayed.
 */
class VersionCapturingTest {
  @RegisterExtension final TestRuntimes runtimes = new TestRuntimes();

  private VCorfuRuntime runtime(RuntimeOptions options) {
    return runtimes.runtime(options);
  }

  private VCorfuRuntime runtime() {
    return runtimes.runtime();
  }

  private static List<String> linesUpTo(int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add("line " + i);
    }
    return out;
  }

  /**
   * Adds {@code n} lines one by one; returns the global address after each (index i = i + 1 lines).
   */
  private long[] fill(VCorfuRuntime rt, Journal j, int n) {
    long[] after = new long[n + 1];
    after[0] = tail(rt);
    for (int i = 0; i < n; i++) {
      j.add("line " + i);
      after[i + 1] = tail(rt);
    }
    return after;
  }

  private long tail(VCorfuRuntime rt) {
    rt.TXBegin();
    return rt.TXEnd();
  }

  @Test
  void snapshotViewsOfTheNewestVersionsReplayNothingAndOlderOnesAreExact() {
    VCorfuRuntime rt = runtime();
    Journal j = rt.objects().open("journal-asof", Journal.class);
    long[] after = fill(rt, j, 300);
    assertThat(j.size()).isEqualTo(300);

    // The newest 32 versions (the default retainedVersions) are kept: after lines 269 to 300.
    long before = Journal.UPCALLS.get();
    for (int n = 300; n >= 270; n -= 3) {
      Journal old = rt.objects().builder("journal-asof", Journal.class).asOf(after[n]).open();
      assertThat(old.lines()).as("the journal as of address %d", after[n]).isEqualTo(linesUpTo(n));
    }
    assertThat(Journal.UPCALLS.get() - before).as("upcalls run to build kept versions").isZero();
    for (int n = 0; n < 270; n += 7) {
      Journal old = rt.objects().builder("journal-asof", Journal.class).asOf(after[n]).open();
      assertThat(old.lines()).as("the journal as of address %d", after[n]).isEqualTo(linesUpTo(n));
    }
  }

  @Test
  void transactionReadsAtAnOldSnapshotReplayNothing() throws Exception {
    VCorfuRuntime rt = runtime();
    Journal j = rt.objects().open("journal-tx", Journal.class);
    fill(rt, j, 2_000);
    rt.TXBegin();
    try {
      // Writes after the snapshot, by another thread, each played by the view (more than the 32
      // newest versions a view keeps for snapshot views): the transaction must read the older
      // version, kept because the transaction is open.
      CompletableFuture.runAsync(
              () -> {
                for (int i = 0; i < 50; i++) {
                  j.add("late " + i);
                  j.size();
                }
                assertThat(j.size()).as("the live view moved past the snapshot").isEqualTo(2_050);
              })
          .get(30, TimeUnit.SECONDS);
      long before = Journal.UPCALLS.get();
      assertThat(j.size()).as("read at the snapshot").isEqualTo(2_000);
      assertThat(j.lines()).hasSize(2_000).endsWith("line 1999");
      assertThat(Journal.UPCALLS.get() - before).as("upcalls run for snapshot reads").isZero();
    } finally {
      rt.TXAbort();
    }
  }

  /**
   * The view moves on while a transaction is still taking its snapshot (between the sequencer's
   * answer and the transaction being listed as open): the version as of that snapshot must not be
   * dropped for want of an open transaction, or the transaction's reads replay the stream.
   */
  @Test
  void aTransactionTakingItsSnapshotWhileTheViewMovesOnStillReadsAKeptVersion() throws Exception {
    AtomicReference<Runnable> betweenAnswerAndOpen = new AtomicReference<>();
    StreamLog log =
        new ForwardingStreamLog(runtimes.newLog()) {
          @Override
          public CompletableFuture<Tails> tails(Collection<StreamId> streams) {
            Runnable hook = streams.isEmpty() ? betweenAnswerAndOpen.getAndSet(null) : null;
            if (hook == null) {
              return delegate.tails(streams);
            }
            Tails answer = delegate.tails(streams).join();
            hook.run();
            return CompletableFuture.completedFuture(answer);
          }
        };
    VCorfuRuntime rt = runtimes.runtime(log);
    Journal j = rt.objects().open("journal-begin", Journal.class);
    fill(rt, j, 100);
    assertThat(j.size()).isEqualTo(100);
    // 50 more lines, played by the view, after the snapshot is taken and before it is registered:
    // more than the 32 newest versions a view keeps for snapshot views.
    betweenAnswerAndOpen.set(
        () ->
            CompletableFuture.runAsync(
                    () -> {
                      for (int i = 0; i < 50; i++) {
                        j.add("late " + i);
                        j.size();
                      }
                    })
                .join());
    rt.TXBegin();
    try {
      long before = Journal.UPCALLS.get();
      assertThat(j.size()).as("read at the snapshot").isEqualTo(100);
      assertThat(Journal.UPCALLS.get() - before).as("upcalls run for snapshot reads").isZero();
    } finally {
      rt.TXAbort();
    }
    assertThat(j.size()).isEqualTo(150);
  }

  @Test
  void aTransactionsPrivateCopyOfALargeObjectIsNotReplayed() {
    VCorfuRuntime rt = runtime();
    Journal j = rt.objects().open("journal-copy", Journal.class);
    fill(rt, j, 5_000);
    assertThat(j.size()).isEqualTo(5_000);
    long before = Journal.UPCALLS.get();
    rt.TXBegin();
    try {
      j.add("mine");
      assertThat(j.size()).as("read-own-writes on the private copy").isEqualTo(5_001);
      assertThat(j.lines()).endsWith("line 4999", "mine");
      assertThat(Journal.UPCALLS.get() - before)
          .as("upcalls: only the buffered write, applied to the private copy")
          .isEqualTo(1);
    } finally {
      rt.TXAbort();
    }
    assertThat(j.size()).as("the aborted write never reached the object").isEqualTo(5_000);
  }

  @Test
  void versionsOlderThanTheRetainedOnesFallBackToReplayAndStayExact() {
    VCorfuRuntime rt = runtime(RuntimeOptions.defaults().withRetainedVersions(10));
    Journal j = rt.objects().open("journal-bounded", Journal.class);
    long[] after = fill(rt, j, 100);
    assertThat(j.size()).isEqualTo(100);

    long before = Journal.UPCALLS.get();
    Journal recent = rt.objects().builder("journal-bounded", Journal.class).asOf(after[95]).open();
    assertThat(recent.lines()).isEqualTo(linesUpTo(95));
    assertThat(Journal.UPCALLS.get() - before).as("a retained version is restored").isZero();

    Journal old = rt.objects().builder("journal-bounded", Journal.class).asOf(after[20]).open();
    assertThat(old.lines()).isEqualTo(linesUpTo(20));
    assertThat(Journal.UPCALLS.get() - before).as("an evicted version is replayed").isEqualTo(20);
  }

  @Test
  void capturedVersionsAreBoundedByTheirEstimatedBytes() {
    // About 266 bytes per version: the newest dozen or so fit in 4 KiB.
    VCorfuRuntime rt = runtime(RuntimeOptions.defaults().withRetainedHistoryBytes(4096));
    Journal j = rt.objects().open("journal-bytes", Journal.class);
    long[] after = fill(rt, j, 100);
    assertThat(j.size()).isEqualTo(100);

    long before = Journal.UPCALLS.get();
    Journal recent = rt.objects().builder("journal-bytes", Journal.class).asOf(after[98]).open();
    assertThat(recent.lines()).isEqualTo(linesUpTo(98));
    assertThat(Journal.UPCALLS.get() - before).as("a retained version is restored").isZero();

    Journal old = rt.objects().builder("journal-bytes", Journal.class).asOf(after[30]).open();
    assertThat(old.lines()).isEqualTo(linesUpTo(30));
    assertThat(Journal.UPCALLS.get() - before).as("an evicted version is replayed").isEqualTo(30);
  }

  @Test
  void everyLiveViewOfARuntimeSharesOneBoundOfOldVersions() {
    long bound = 64 << 10;
    VCorfuRuntime rt = runtime(RuntimeOptions.defaults().withRetainedHistoryBytes(bound));
    List<Journal> journals = new java.util.ArrayList<>();
    for (int i = 0; i < 30; i++) {
      journals.add(rt.objects().open("journal-shared-" + i, Journal.class));
    }
    long[] after;
    for (int round = 0; round < 100; round++) {
      for (Journal j : journals) {
        j.add("line " + round);
        j.size(); // played: its versions are captured
      }
    }
    after = fill(rt, journals.get(0), 1);
    assertThat(journals.get(0).size()).isEqualTo(101);
    // Each view alone would keep up to the bound: 30 of them about 30 x 27 KB = 800 KB.
    assertThat(rt.oldVersionBytes())
        .as("old versions of all 30 views")
        .isLessThanOrEqualTo(bound + 30 * 512);
    long before = Journal.UPCALLS.get();
    Journal newest = rt.objects().builder("journal-shared-0", Journal.class).asOf(after[1]).open();
    assertThat(newest.size()).isEqualTo(101);
    assertThat(Journal.UPCALLS.get() - before).as("the newest version is still kept").isZero();
  }

  @Test
  void aCheckpointOfAVersionedObjectRoundTripsThroughItsCheckpointForm() {
    VCorfuRuntime writer = runtime();
    Journal j = writer.objects().open("journal-cp", Journal.class);
    fill(writer, j, 150);
    assertThat(j.size()).isEqualTo(150);
    OptionalLong at = writer.checkpoint(j);
    assertThat(at).as("the checkpoint was written").isPresent();
    j.add("after the checkpoint");

    long before = Journal.UPCALLS.get();
    VCorfuRuntime reader = runtime();
    Journal opened = reader.objects().open("journal-cp", Journal.class);
    List<String> expected = linesUpTo(150);
    expected.add("after the checkpoint");
    assertThat(opened.lines()).isEqualTo(expected);
    assertThat(Journal.UPCALLS.get() - before)
        .as("only the update after the checkpoint is played")
        .isEqualTo(1);

    Journal atCheckpoint =
        reader.objects().builder("journal-cp", Journal.class).asOf(at.getAsLong()).open();
    assertThat(atCheckpoint.lines()).isEqualTo(linesUpTo(150));
  }
}
