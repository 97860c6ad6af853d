package io.vcorfu.runtime.tx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.client.AppendAbortedException;
import io.vcorfu.client.AppendResult;
import io.vcorfu.client.GlobalEntry;
import io.vcorfu.client.IssueCondition;
import io.vcorfu.client.StreamLog;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TokenRefusedException;
import io.vcorfu.runtime.TransactionAbortedException;
import io.vcorfu.runtime.TransactionStateException;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.example.Account;
import io.vcorfu.runtime.example.Bank;
import io.vcorfu.runtime.example.Counter;
import io.vcorfu.runtime.example.Inventory;
import io.vcorfu.runtime.serialization.DefaultSerializer;
import io.vcorfu.runtime.smr.SmrRecord;
import io.vcorfu.runtime.testing.CountingStreamLog;
import io.vcorfu.runtime.testing.ForwardingStreamLog;
import io.vcorfu.runtime.testing.TestRuntimes;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class TransactionTest {
  @RegisterExtension final TestRuntimes runtimes = new TestRuntimes();

  private VCorfuRuntime runtime() {
    return runtimes.runtime();
  }

  /** Runs {@code body} on a new thread and rethrows what it threw. */
  private static void onAnotherThread(Runnable body) throws Exception {
    FutureTask<Void> task = new FutureTask<>(body, null);
    new Thread(task, "other").start();
    task.get(30, TimeUnit.SECONDS);
  }

  @Test
  void readsSeeTheTransactionsOwnWritesAndNothingReachesTheLogBeforeCommit() {
    VCorfuRuntime rt = runtime();
    Counter c = rt.objects().open("row", Counter.class);
    c.add(10);
    long before = runtimes.globalTail();

    rt.TXBegin();
    c.add(5);
    assertThat(c.get()).isEqualTo(15);
    assertThat(c.addAndGet(1)).isEqualTo(16);
    c.add(4);
    assertThat(c.get()).isEqualTo(20);
    assertThat(runtimes.globalTail()).isEqualTo(before);
    long commit = rt.TXEnd();

    assertThat(commit).isEqualTo(before + 1);
    assertThat(c.get()).isEqualTo(20);
    assertThat(runtime().objects().open("row", Counter.class).get()).isEqualTo(20);
  }

  @Test
  void commitIsOneAtomicEntryAcrossAllWrittenStreams() {
    VCorfuRuntime rt = runtime();
    Account a = rt.objects().open("acct-a", Account.class);
    Account b = rt.objects().open("acct-b", Account.class);
    long commit =
        rt.transaction(
                () -> {
                  a.deposit(30);
                  b.deposit(70);
                  return rt.inTransaction();
                })
            ? runtimes.globalTail()
            : -1;

    StreamLog reader = runtimes.newLog();
    GlobalEntry entry = reader.readGlobal(commit).join();
    reader.close();
    assertThat(entry.streamAddresses())
        .containsOnlyKeys(StreamId.of("acct-a"), StreamId.of("acct-b"));
    assertThat(SmrRecord.decode(entry.payload()))
        .extracting(SmrRecord.Update::signature)
        .containsExactly("deposit(long)", "deposit(long)");
    assertThat(a.balance() + b.balance()).isEqualTo(100);
  }

  @Test
  void readOnlyTransactionCommitsWithoutAnyRequest() {
    CountingStreamLog log = new CountingStreamLog(runtimes.newLog());
    VCorfuRuntime rt = VCorfuRuntime.using(log);
    runtimes.register(rt);
    Counter c = rt.objects().open("ro", Counter.class);
    c.add(2);
    rt.TXBegin();
    assertThat(c.get()).isEqualTo(2);
    int requests = log.total();
    long end = rt.TXEnd();
    assertThat(log.total()).isEqualTo(requests);
    assertThat(log.conditionalAppends.get()).isZero();
    assertThat(end).isEqualTo(runtimes.globalTail());
  }

  @Test
  void conflictingTransactionAbortsWithTheStreamAndAddressAndWritesNothing() {
    VCorfuRuntime rt = runtime();
    VCorfuRuntime other = runtime();
    Counter c = rt.objects().open("contended", Counter.class);
    Counter c2 = other.objects().open("contended", Counter.class);
    c.add(1);

    rt.TXBegin();
    long seen = c.get();
    c2.add(100);
    long conflictAt = runtimes.globalTail();
    c.add(seen * 2);
    assertThatThrownBy(rt::TXEnd)
        .isInstanceOfSatisfying(
            TransactionAbortedException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(TransactionAbortedException.Reason.CONFLICT);
              assertThat(e.stream()).isEqualTo(StreamId.of("contended"));
              assertThat(e.conflictAddress()).isEqualTo(conflictAt);
              assertThat(e.conflictKey()).isEmpty();
              assertThat(e.getCause()).isInstanceOf(TokenRefusedException.class);
            });
    assertThat(runtimes.globalTail()).isEqualTo(conflictAt);
    assertThat(rt.inTransaction()).isFalse();
    assertThat(c.get()).isEqualTo(101);
  }

  /**
   * A commit the sequencer granted but whose entry its chain then aborted (a replica failed
   * part-way, or a reader filled the slot first) wrote nothing: TXEnd says so as an abort, and
   * {@code transaction} retries it like any other abort.
   */
  @Test
  void aCommitAbortedOnItsChainIsAnAbortThatTransactionRetries() {
    AtomicInteger toAbort = new AtomicInteger(2);
    StreamLog log =
        new ForwardingStreamLog(runtimes.newLog()) {
          @Override
          public CompletableFuture<AppendResult> appendConditional(
              Collection<StreamId> streams, byte[] payload, IssueCondition tx) {
            if (toAbort.getAndDecrement() > 0) {
              return CompletableFuture.failedFuture(
                  new AppendAbortedException(7, "its write failed and the chain then aborted it"));
            }
            return super.appendConditional(streams, payload, tx);
          }
        };
    VCorfuRuntime rt = runtimes.register(VCorfuRuntime.using(log));
    Counter c = rt.objects().open("chain-aborted", Counter.class);
    c.add(1);

    rt.TXBegin();
    c.add(c.get());
    assertThatThrownBy(rt::TXEnd)
        .isInstanceOfSatisfying(
            TransactionAbortedException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(TransactionAbortedException.Reason.COMMIT_ABORTED);
              assertThat(e.getCause()).isInstanceOf(AppendAbortedException.class);
            });
    assertThat(rt.inTransaction()).isFalse();
    assertThat(c.get()).isEqualTo(1);

    AtomicInteger attempts = new AtomicInteger();
    rt.transaction(
        () -> {
          attempts.incrementAndGet();
          c.add(c.get());
        });
    assertThat(attempts).hasValue(2);
    assertThat(c.get()).isEqualTo(2);
  }

  @Test
  void endOrAbortWithoutBeginAndThreadsEndingWithOpenTransactionsAreTypedErrors() throws Exception {
    VCorfuRuntime rt = VCorfuRuntime.using(runtimes.newLog());
    assertThatThrownBy(rt::TXEnd)
        .isInstanceOf(TransactionStateException.class)
        .hasMessageContaining("TXBegin");
    assertThatThrownBy(rt::TXAbort)
        .isInstanceOf(TransactionStateException.class)
        .hasMessageContaining("TXBegin");

    Counter c = rt.objects().open("left-open", Counter.class);
    long opened = runtimes.globalTail(); // the name's registration
    Thread t =
        new Thread(
            () -> {
              rt.TXBegin();
              c.add(1);
            },
            "forgetful-writer");
    t.start();
    t.join(10_000);
    assertThat(t.isAlive()).isFalse();
    assertThatThrownBy(rt::close)
        .isInstanceOf(TransactionStateException.class)
        .hasMessageContaining("forgetful-writer")
        .hasMessageContaining("ended with a transaction open");
    assertThat(runtimes.globalTail()).isEqualTo(opened);
  }

  @Test
  void disjointConflictKeysBothCommitAndTheSameKeyConflicts() {
    VCorfuRuntime rt1 = runtime();
    VCorfuRuntime rt2 = runtime();
    Inventory inv1 = rt1.objects().open("stock", Inventory.class);
    Inventory inv2 = rt2.objects().open("stock", Inventory.class);
    inv1.put("apple", 1);
    inv1.put("pear", 1);

    rt1.TXBegin();
    int apples = inv1.get("apple");
    inv1.put("apple", apples + 1);
    rt2.transaction(() -> inv2.put("pear", inv2.get("pear") + 1));
    rt1.TXEnd();
    assertThat(inv1.get("apple")).isEqualTo(2);
    assertThat(inv1.get("pear")).isEqualTo(2);

    rt1.TXBegin();
    inv1.put("apple", inv1.get("apple") + 1);
    rt2.transaction(() -> inv2.put("apple", inv2.get("apple") + 10));
    assertThatThrownBy(rt1::TXEnd)
        .isInstanceOfSatisfying(
            TransactionAbortedException.class,
            e -> {
              assertThat(e.stream()).isEqualTo(StreamId.of("stock"));
              assertThat(e.conflictKey()).isEqualTo(new DefaultSerializer().serialize("apple"));
            });
    assertThat(inv1.get("apple")).isEqualTo(12);
  }

  @Test
  void transactionalMethodsRunInATransactionAndReadOnlyOnesRefuseWrites() {
    VCorfuRuntime rt = runtime();
    Bank bank = rt.objects().open("bank", Bank.class);
    bank.accounts =
        new Account[] {
          rt.objects().open("b0", Account.class), rt.objects().open("b1", Account.class)
        };
    bank.accounts[0].deposit(50);

    assertThat(bank.transfer(0, 1, 20)).isTrue();
    assertThat(bank.transfer(0, 1, 40)).isFalse();
    assertThat(bank.total()).isEqualTo(50);
    assertThat(bank.accounts[1].balance()).isEqualTo(20);
    assertThat(rt.inTransaction()).isFalse();
    assertThatThrownBy(bank::illegalWrite)
        .isInstanceOf(TransactionStateException.class)
        .hasMessageContaining("read-only");
    assertThat(rt.inTransaction()).isFalse();

    assertThatThrownBy(() -> bank.depositThenFail(1000))
        .isInstanceOf(java.io.IOException.class)
        .hasMessageContaining("offline");
    assertThat(rt.inTransaction()).isFalse();
    assertThat(bank.accounts[0].balance()).isEqualTo(30);

    // Inside an open transaction the method joins it.
    rt.TXBegin();
    bank.transfer(0, 1, 5);
    assertThat(bank.accounts[1].balance()).isEqualTo(25);
    rt.TXAbort();
    assertThat(bank.accounts[1].balance()).isEqualTo(20);
  }

  @Test
  void transactionRetriesAbortsUpToTheLimit() {
    VCorfuRuntime rt =
        VCorfuRuntime.using(
            runtimes.newLog(),
            io.vcorfu.runtime.RuntimeOptions.defaults().withMaxTransactionAttempts(3));
    runtimes.register(rt);
    VCorfuRuntime other = runtime();
    Counter c = rt.objects().open("retry", Counter.class);
    Counter intruder = other.objects().open("retry", Counter.class);
    AtomicInteger attempts = new AtomicInteger();

    rt.transaction(
        () -> {
          long v = c.get();
          if (attempts.incrementAndGet() < 3) {
            intruder.add(1);
          }
          c.add(v + 1000);
        });
    assertThat(attempts.get()).isEqualTo(3);
    assertThat(c.get()).isEqualTo(2 + 2 + 1000);

    attempts.set(0);
    assertThatThrownBy(
            () ->
                rt.transaction(
                    () -> {
                      attempts.incrementAndGet();
                      long v = c.get();
                      intruder.add(1);
                      c.add(v);
                    }))
        .isInstanceOf(TransactionAbortedException.class);
    assertThat(attempts.get()).isEqualTo(3);
    assertThat(rt.inTransaction()).isFalse();
  }

  @Test
  void transactionReadsTheSnapshotEvenAfterTheLocalViewMovedPastIt() throws Exception {
    VCorfuRuntime rt = runtime();
    Counter c = rt.objects().open("moving", Counter.class);
    Counter other = rt.objects().open("other", Counter.class);
    c.add(1);
    other.add(1);

    rt.TXBegin();
    assertThat(other.get()).isEqualTo(1);
    onAnotherThread(
        () -> {
          c.add(10);
          assertThat(c.get()).isEqualTo(11);
          assertThat(rt.inTransaction()).isFalse();
        });
    // The shared local view is at 11 now; the transaction still reads its snapshot.
    assertThat(c.get()).isEqualTo(1);
    assertThat(c.addAndGet(2)).isEqualTo(3);
    assertThat(c.get()).isEqualTo(3);
    assertThatThrownBy(rt::TXEnd).isInstanceOf(TransactionAbortedException.class);
    assertThat(c.get()).isEqualTo(11);
  }

  @Test
  void transactionsArePerThread() throws Exception {
    VCorfuRuntime rt = runtime();
    Counter c = rt.objects().open("per-thread", Counter.class);
    long opened = runtimes.globalTail(); // the name's registration
    rt.TXBegin();
    c.add(1);
    onAnotherThread(
        () -> {
          assertThat(rt.inTransaction()).isFalse();
          c.add(100);
        });
    // The other thread's write went straight to the log; this thread's is still buffered.
    assertThat(runtimes.globalTail()).isEqualTo(opened + 1);
    assertThat(rt.TXEnd()).isEqualTo(opened + 2);
    assertThat(c.get()).isEqualTo(101);
  }
}
