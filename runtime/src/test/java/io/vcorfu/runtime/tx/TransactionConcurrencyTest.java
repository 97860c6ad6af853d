package io.vcorfu.runtime.tx;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.GlobalEntry;
import io.vcorfu.client.StreamLog;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.TransactionAbortedException;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.example.Account;
import io.vcorfu.runtime.serialization.DefaultSerializer;
import io.vcorfu.runtime.smr.SmrRecord;
import io.vcorfu.runtime.testing.TestRuntimes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

class TransactionConcurrencyTest {
  private static final Logger LOG = LoggerFactory.getLogger(TransactionConcurrencyTest.class);
  private static final long DEADLINE_MS = 120_000;

  @RegisterExtension final TestRuntimes runtimes = new TestRuntimes();
  private final ExecutorService pool = Executors.newFixedThreadPool(10);

  private VCorfuRuntime runtime() {
    return runtimes.runtime(
        RuntimeOptions.defaults()
            .withMaxTransactionAttempts(10_000)
            .withBackoff(Duration.ZERO, Duration.ofMillis(2)));
  }

  @AfterEach
  void closeAll() throws InterruptedException {
    pool.shutdownNow();
    pool.awaitTermination(30, TimeUnit.SECONDS);
  }

  private static void awaitAll(List<Future<?>> futures) throws Exception {
    for (Future<?> f : futures) {
      f.get(DEADLINE_MS, TimeUnit.MILLISECONDS);
    }
  }

  @ParameterizedTest
  @ValueSource(longs = {7L, 1234L})
  void opacityEveryTransactionSeesAPlusBEquals100EvenThoseThatAbort(long seed) throws Exception {
    LOG.info("seed {}", seed);
    VCorfuRuntime[] rts = {runtime(), runtime()};
    rts[0].transaction(() -> rts[0].objects().open("a", Account.class).deposit(100));
    AtomicInteger broken = new AtomicInteger();
    AtomicInteger aborted = new AtomicInteger();
    AtomicInteger abortedThatChecked = new AtomicInteger();
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < 6; t++) {
      VCorfuRuntime rt = rts[t % 2];
      Random random = new Random(seed * 31 + t);
      futures.add(
          pool.submit(
              () -> {
                Account a = rt.objects().open("a", Account.class);
                Account b = rt.objects().open("b", Account.class);
                for (int i = 0; i < 300; i++) {
                  boolean checked = false;
                  rt.TXBegin();
                  try {
                    long x = a.balance();
                    long y = b.balance();
                    checked = true;
                    if (x + y != 100) {
                      broken.incrementAndGet();
                    }
                    long amount = random.nextInt(10);
                    if (random.nextBoolean() && x >= amount) {
                      a.withdraw(amount);
                      b.deposit(amount);
                    } else if (y >= amount) {
                      b.withdraw(amount);
                      a.deposit(amount);
                    }
                    if (a.balance() + b.balance() != 100) {
                      broken.incrementAndGet();
                    }
                    rt.TXEnd();
                  } catch (TransactionAbortedException e) {
                    aborted.incrementAndGet();
                    if (checked) {
                      abortedThatChecked.incrementAndGet();
                    }
                  }
                }
                return null;
              }));
    }
    awaitAll(futures);
    assertThat(broken.get()).isZero();
    assertThat(abortedThatChecked.get())
        .as("transactions that aborted after checking")
        .isPositive();
    Account a = rts[1].objects().open("a", Account.class);
    Account b = rts[1].objects().open("b", Account.class);
    assertThat(a.balance() + b.balance()).isEqualTo(100);
    LOG.info("opacity run: {} aborts", aborted.get());
  }

  @ParameterizedTest
  @ValueSource(longs = {99L})
  void transfersAreSerializableTotalConservedAtEverySnapshotAndReadOnlyNeverAborts(long seed)
      throws Exception {
    LOG.info("seed {}", seed);
    int accounts = 20;
    long initial = 1000;
    VCorfuRuntime[] rts = {runtime(), runtime()};
    rts[0].transaction(
        () -> {
          for (int i = 0; i < accounts; i++) {
            rts[0].objects().open("acct-" + i, Account.class).deposit(initial);
          }
        });
    long total = accounts * initial;
    AtomicInteger attempts = new AtomicInteger();
    AtomicInteger committed = new AtomicInteger();
    AtomicBoolean writersDone = new AtomicBoolean();
    AtomicInteger readOnlyRuns = new AtomicInteger();
    AtomicInteger readOnlyAborts = new AtomicInteger();
    AtomicLong badSums = new AtomicLong();

    List<Future<?>> writers = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      VCorfuRuntime rt = rts[t % 2];
      Random random = new Random(seed * 17 + t);
      writers.add(
          pool.submit(
              () -> {
                Account[] acct = open(rt, accounts);
                for (int i = 0; i < 1000; i++) {
                  int from = random.nextInt(accounts);
                  int to = (from + 1 + random.nextInt(accounts - 1)) % accounts;
                  long amount = 1 + random.nextInt(100);
                  rt.transaction(
                      () -> {
                        attempts.incrementAndGet();
                        if (acct[from].balance() >= amount) {
                          acct[from].withdraw(amount);
                          acct[to].deposit(amount);
                        }
                      });
                  committed.incrementAndGet();
                }
                return null;
              }));
    }
    List<Future<?>> readers = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      VCorfuRuntime rt = rts[t];
      readers.add(
          pool.submit(
              () -> {
                Account[] acct = open(rt, accounts);
                long until = System.currentTimeMillis() + DEADLINE_MS;
                while (!writersDone.get()
                    && readOnlyRuns.get() < 100_000
                    && System.currentTimeMillis() < until) {
                  rt.TXBegin();
                  long sum = 0;
                  for (Account a : acct) {
                    sum += a.balance();
                  }
                  try {
                    rt.TXEnd();
                  } catch (TransactionAbortedException e) {
                    readOnlyAborts.incrementAndGet();
                  }
                  if (sum != total) {
                    badSums.incrementAndGet();
                  }
                  readOnlyRuns.incrementAndGet();
                }
                return null;
              }));
    }
    awaitAll(writers);
    writersDone.set(true);
    awaitAll(readers);

    assertThat(committed.get()).isEqualTo(8000);
    assertThat(attempts.get()).as("some transfers aborted and were retried").isGreaterThan(8000);
    assertThat(readOnlyRuns.get()).isPositive();
    assertThat(readOnlyAborts.get()).isZero();
    assertThat(badSums.get()).isZero();

    Account[] finalView = open(rts[1], accounts);
    long sum = 0;
    for (Account a : finalView) {
      assertThat(a.balance()).isNotNegative();
      sum += a.balance();
    }
    assertThat(sum).isEqualTo(total);
    assertConservedAtEveryAddress(accounts, total, finalView);
    LOG.info(
        "bank run: {} attempts for 8000 transfers, {} read-only transactions",
        attempts.get(),
        readOnlyRuns.get());
  }

  private static Account[] open(VCorfuRuntime rt, int n) {
    Account[] acct = new Account[n];
    for (int i = 0; i < n; i++) {
      acct[i] = rt.objects().open("acct-" + i, Account.class);
    }
    return acct;
  }

  /**
   * Replays the whole global log independently of the runtime, checking the total after every
   * entry.
   */
  private void assertConservedAtEveryAddress(int accounts, long total, Account[] finalView) {
    Map<StreamId, Integer> index = new HashMap<>();
    for (int i = 0; i < accounts; i++) {
      index.put(StreamId.of("acct-" + i), i);
    }
    DefaultSerializer ser = new DefaultSerializer();
    long[] balance = new long[accounts];
    StreamLog reader = runtimes.newLog();
    long tail = reader.tails(List.of()).join().globalTail();
    for (long from = 0; from <= tail; from += 1000) {
      for (GlobalEntry e : reader.readGlobalRange(from, Math.min(tail, from + 999)).join()) {
        if (e.isHole() || !index.keySet().containsAll(e.streamAddresses().keySet())) {
          // A name's registration, or a checkpoint (the runtimes checkpoint automatically once
          // enough updates were played, which a slow machine reaches): not a transfer.
          continue;
        }
        for (SmrRecord.Update u : SmrRecord.decode(e.payload())) {
          long amount = (Long) ser.deserialize(u.args()[0]);
          int i = index.get(u.stream());
          balance[i] += u.signature().equals("deposit(long)") ? amount : -amount;
          assertThat(balance[i])
              .as("balance of account %d at address %d", i, e.globalAddress())
              .isNotNegative();
        }
        long sum = 0;
        for (long b : balance) {
          sum += b;
        }
        assertThat(sum).as("total at global address %d", e.globalAddress()).isEqualTo(total);
      }
    }
    reader.close();
    for (int i = 0; i < accounts; i++) {
      assertThat(finalView[i].balance()).isEqualTo(balance[i]);
    }
  }
}
