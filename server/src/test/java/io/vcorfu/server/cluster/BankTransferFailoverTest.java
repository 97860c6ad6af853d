package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.AppendAbortedException;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.runtime.TransactionAbortedException;
import io.vcorfu.runtime.VCorfuRuntime;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Transactions stay serializable and durable while the cluster fails over: eight accounts (each an
 * object on its own stream) on a three-node cluster with replication 3 ({@link ZkCluster}); four
 * threads, on two runtimes, transfer money between random accounts in transactions (read both
 * balances, refuse an overdraft, write both balances as absolute values, record the transfer's id
 * in the thread's {@link TransferJournal}); two more threads read every balance in read-only
 * transactions. Meanwhile the test kills a replica, waits until the layout has dropped it and
 * transfers have committed again, then kills the sequencer and waits the same way; a second test
 * grows the cluster by a fourth node and then kills that node.
 *
 * <p>Checked: every snapshot holds the initial total and no negative balance; no transfer fails
 * with a commit its chain aborted (that is an abort, retried by {@code transaction}); at the end,
 * read through a fresh runtime, the journals hold every transfer that returned success, no transfer
 * that aborted, and only transfers whose outcome was success or unknown (the caller got an error
 * that is not an abort); the balances are the initial ones moved by exactly the journaled
 * transfers.
 *
 * <p>Not vacuous: transfers and snapshots invoked after each fault must complete. Bounded:
 * transfers per thread, and every wait.
 */
class BankTransferFailoverTest {
  private static final int ACCOUNTS = 8;
  private static final long INITIAL = 1_000;
  private static final int TRANSFER_THREADS = 4;
  private static final int AUDIT_THREADS = 2;
  private static final int MAX_TRANSFERS_PER_THREAD = 3_000;

  /** Transfers that must commit after each fault before the test goes on. */
  private static final long TRANSFERS_AFTER_FAULT = 60;

  /** Of those, how many must provably have begun after the fault (by recorded times). */
  private static final long MIN_TRANSFERS_AFTER_FAULT = 30;

  private static final StreamLogOptions LOG =
      StreamLogOptions.defaults()
          .withRpc(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(2)))
          .withFailoverTimeout(Duration.ofSeconds(10));

  @TempDir Path tmp;

  /** A transfer and when its call began and returned (nanoTime; returned 0 if it did not). */
  private record Transfer(long id, int from, int to, long amount, long invoked, long returned) {}

  /** What the transfer threads and the audit threads saw. */
  private static final class Outcomes {
    final Map<Long, Transfer> succeeded = new ConcurrentHashMap<>();
    final Map<Long, Transfer> unknown = new ConcurrentHashMap<>();
    final Map<Long, Transfer> aborted = new ConcurrentHashMap<>();
    final AtomicLong refused = new AtomicLong();
    final AtomicLong attempts = new AtomicLong();
    final List<Long> auditTimes = new java.util.concurrent.CopyOnWriteArrayList<>();
    final AtomicLong auditErrors = new AtomicLong();
    final List<String> violations = new java.util.concurrent.CopyOnWriteArrayList<>();
    final List<String> unknownErrors = new java.util.concurrent.CopyOnWriteArrayList<>();
    final AtomicBoolean stop = new AtomicBoolean();
  }

  @Test
  void transfersAcrossAKilledReplicaAndAKilledSequencerConserveMoneyAndLoseNoCommit()
      throws Exception {
    long seed = System.nanoTime();
    System.out.println("BankTransferFailoverTest seed " + seed);
    long removedReplica;
    long killedSequencer;
    long movedSequencer;
    try (ZkCluster c = ZkCluster.start(tmp, 3, 3)) {
      Layout initial = c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      Outcomes out;
      try (Workload w = new Workload(c, seed)) {
        out = w.out;
        w.awaitMore("before any fault");

        Endpoint replica =
            c.endpoints().stream()
                .filter(e -> !e.equals(initial.sequencer()))
                .reduce((a, b) -> b)
                .orElseThrow();
        System.out.println("BankTransferFailoverTest: killing replica " + replica);
        c.kill(replica);
        Layout withoutReplica =
            c.awaitLayout("without " + replica, x -> x.removed().contains(replica));
        removedReplica = System.nanoTime();
        w.awaitMore("after the replica's removal");

        Endpoint sequencer = withoutReplica.sequencer();
        System.out.println("BankTransferFailoverTest: killing sequencer " + sequencer);
        killedSequencer = System.nanoTime();
        c.kill(sequencer);
        Layout moved = c.awaitLayout("without " + sequencer, x -> x.removed().contains(sequencer));
        movedSequencer = System.nanoTime();
        assertThat(moved.sequencer()).isNotEqualTo(sequencer);
        w.awaitMore("after the sequencer moved");
        w.stopAndJoin();
      }

      long afterRemoval =
          out.succeeded.values().stream()
              .filter(t -> t.invoked() >= removedReplica && t.returned() < killedSequencer)
              .count();
      long afterMove =
          out.succeeded.values().stream().filter(t -> t.invoked() >= movedSequencer).count();
      long auditsAfterMove = out.auditTimes.stream().filter(t -> t >= movedSequencer).count();
      report(
          out,
          String.format(
              "%d begun after the replica's removal and done before the sequencer was killed, %d"
                  + " begun after the sequencer moved; %d snapshots audited after the sequencer"
                  + " moved; sequencer moved in %d ms",
              afterRemoval,
              afterMove,
              auditsAfterMove,
              (movedSequencer - killedSequencer) / 1_000_000));
      assertThat(afterRemoval)
          .as("transfers begun after the replica's removal, done before the sequencer was killed")
          .isGreaterThanOrEqualTo(MIN_TRANSFERS_AFTER_FAULT);
      assertThat(afterMove)
          .as("transfers begun after the sequencer moved")
          .isGreaterThanOrEqualTo(MIN_TRANSFERS_AFTER_FAULT);
      assertThat(auditsAfterMove).as("snapshots audited after the sequencer moved").isPositive();

      try (VCorfuRuntime check = c.runtime(LOG)) {
        assertFinalState(check, out);
      }
    }
  }

  /**
   * The same transfers and audits while the cluster grows by a fourth node ({@code add-node
   * --grow}: the three stream chains split into six, so accounts that shared a chain may part, and
   * each transfer's entry keeps its deciding replica; the node joins stream chains as a rebuilding
   * replica, is promoted, one other member leaves each such chain and the log is striped over four
   * nodes), and then while that node is killed.
   */
  @Test
  void transfersAcrossAGrowthAndTheLossOfTheNewNodeConserveMoneyAndLoseNoCommit() throws Exception {
    long seed = System.nanoTime();
    System.out.println("BankTransferFailoverTest growth seed " + seed);
    long grew;
    long removed;
    try (ZkCluster c = ZkCluster.start(tmp, 3, 3);
        io.vcorfu.protocol.RpcClient rpc = c.transport().newClient(ClientOptions.defaults())) {
      c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      Outcomes out;
      try (Workload w = new Workload(c, seed)) {
        out = w.out;
        w.awaitMore("before the growth");

        Endpoint fresh = c.startSpare();
        System.out.println("BankTransferFailoverTest: growing the cluster by " + fresh);
        new NodeCalls(rpc).addNode(c.endpoints().get(0), fresh, true).get(30, TimeUnit.SECONDS);
        c.awaitLayout(
            fresh + " promoted, the log on four nodes",
            x ->
                x.allServers().contains(fresh)
                    && !x.isRebuilding(fresh)
                    && x.currentSegment().log().size() == 4);
        grew = System.nanoTime();
        w.awaitMore("after the growth");

        System.out.println("BankTransferFailoverTest: killing " + fresh);
        c.kill(fresh);
        c.awaitLayout("without " + fresh, x -> x.removed().contains(fresh));
        removed = System.nanoTime();
        w.awaitMore("after the new node's removal");
        w.stopAndJoin();
      }

      long afterGrowth = out.succeeded.values().stream().filter(t -> t.invoked() >= grew).count();
      long afterRemoval =
          out.succeeded.values().stream().filter(t -> t.invoked() >= removed).count();
      report(
          out,
          String.format(
              "%d begun after the growth, %d after the new node's removal",
              afterGrowth, afterRemoval));
      assertThat(afterGrowth)
          .as("transfers begun after the growth")
          .isGreaterThanOrEqualTo(MIN_TRANSFERS_AFTER_FAULT);
      assertThat(afterRemoval)
          .as("transfers begun after the new node's removal")
          .isGreaterThanOrEqualTo(MIN_TRANSFERS_AFTER_FAULT);

      try (VCorfuRuntime check = c.runtime(LOG)) {
        assertFinalState(check, out);
      }
    }
  }

  /**
   * The accounts funded, then {@value #TRANSFER_THREADS} transfer threads and {@value
   * #AUDIT_THREADS} audit threads on two runtimes, until {@link #stopAndJoin} or close.
   */
  private static final class Workload implements AutoCloseable {
    final Outcomes out = new Outcomes();
    private final ExecutorService pool =
        Executors.newFixedThreadPool(TRANSFER_THREADS + AUDIT_THREADS);
    private final List<VCorfuRuntime> runtimes;
    private final List<Future<?>> running = new ArrayList<>();

    Workload(ZkCluster c, long seed) {
      try (VCorfuRuntime setup = c.runtime(LOG)) {
        List<Account> accounts = openAccounts(setup);
        setup.transaction(
            () -> {
              for (Account a : accounts) {
                a.set(INITIAL);
              }
            });
      }
      runtimes = List.of(c.runtime(LOG), c.runtime(LOG));
      for (int t = 0; t < TRANSFER_THREADS; t++) {
        running.add(
            pool.submit(transfers(runtimes.get(t % 2), t, new Random(seed + t), out), null));
      }
      for (int t = 0; t < AUDIT_THREADS; t++) {
        running.add(pool.submit(audits(runtimes.get(t % 2), out), null));
      }
    }

    /** Waits until {@value #TRANSFERS_AFTER_FAULT} more transfers have committed. */
    void awaitMore(String when) {
      LongSupplier committed = () -> out.succeeded.size();
      awaitCommitted(committed, committed.getAsLong() + TRANSFERS_AFTER_FAULT, when, out);
    }

    /** Stops the threads and waits for them; a thread's failure fails the call. */
    void stopAndJoin() throws Exception {
      out.stop.set(true);
      for (Future<?> f : running) {
        f.get(60, TimeUnit.SECONDS);
      }
    }

    @Override
    public void close() {
      out.stop.set(true);
      pool.shutdownNow();
      try {
        assertThat(pool.awaitTermination(60, TimeUnit.SECONDS)).as("threads ended").isTrue();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      for (VCorfuRuntime rt : runtimes) {
        try {
          rt.close();
        } catch (RuntimeException e) {
          // A thread cut short by a failure above left a transaction open; that failure matters.
          System.out.println("BankTransferFailoverTest: closing a runtime: " + e);
        }
      }
    }
  }

  /** Prints what the threads saw ({@code more} about the faults) and checks the common rules. */
  private static void report(Outcomes out, String more) {
    System.out.printf(
        "BankTransferFailoverTest: %d transfers committed in %d attempts (%s), %d aborted, %d"
            + " outcome unknown, %d refused for want of funds; %d snapshots audited, %d failed%n",
        out.succeeded.size(),
        out.attempts.get(),
        more,
        out.aborted.size(),
        out.unknown.size(),
        out.refused.get(),
        out.auditTimes.size(),
        out.auditErrors.get());
    if (!out.unknownErrors.isEmpty()) {
      System.out.println(
          "BankTransferFailoverTest: first errors of unknown outcome: "
              + out.unknownErrors.subList(0, Math.min(3, out.unknownErrors.size())));
    }
    assertThat(out.violations).as("snapshots that broke the invariants").isEmpty();
    assertThat(out.unknownErrors)
        .as(
            "a commit its chain aborted wrote nothing: it is an abort, which transaction"
                + " retries, not an error of unknown outcome")
        .noneMatch(e -> e.startsWith(AppendAbortedException.class.getName()));
  }

  private static List<Account> openAccounts(VCorfuRuntime rt) {
    List<Account> accounts = new ArrayList<>();
    for (int i = 0; i < ACCOUNTS; i++) {
      accounts.add(rt.objects().open("bank-account-" + i, Account.class));
    }
    return accounts;
  }

  private static TransferJournal openJournal(VCorfuRuntime rt, int thread) {
    return rt.objects().open("bank-journal-" + thread, TransferJournal.class);
  }

  /** Thread {@code t}'s transfers, until stopped or {@link #MAX_TRANSFERS_PER_THREAD}. */
  private static Runnable transfers(VCorfuRuntime rt, int t, Random random, Outcomes out) {
    return () -> {
      List<Account> accounts = openAccounts(rt);
      TransferJournal journal = openJournal(rt, t);
      for (int n = 0; n < MAX_TRANSFERS_PER_THREAD && !out.stop.get(); n++) {
        long id = t * 1_000_000L + n;
        int from = random.nextInt(ACCOUNTS);
        int to = (from + 1 + random.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
        long amount = 1 + random.nextInt(200);
        long invoked = System.nanoTime();
        try {
          boolean moved =
              rt.transaction(
                  () -> {
                    out.attempts.incrementAndGet();
                    long fromBalance = accounts.get(from).balance();
                    long toBalance = accounts.get(to).balance();
                    if (fromBalance < amount) {
                      return false;
                    }
                    accounts.get(from).set(fromBalance - amount);
                    accounts.get(to).set(toBalance + amount);
                    journal.record(id);
                    return true;
                  });
          Transfer done = new Transfer(id, from, to, amount, invoked, System.nanoTime());
          if (moved) {
            out.succeeded.put(id, done);
          } else {
            out.refused.incrementAndGet();
          }
        } catch (TransactionAbortedException e) {
          out.aborted.put(id, new Transfer(id, from, to, amount, invoked, 0));
        } catch (RuntimeException e) {
          // Not an abort: the commit may or may not have reached the log.
          out.unknown.put(id, new Transfer(id, from, to, amount, invoked, 0));
          out.unknownErrors.add(e.toString());
        }
      }
    };
  }

  /** Read-only transactions reading every balance, until stopped. */
  private static Runnable audits(VCorfuRuntime rt, Outcomes out) {
    return () -> {
      List<Account> accounts = openAccounts(rt);
      while (!out.stop.get()) {
        try {
          long[] balances =
              rt.transaction(() -> accounts.stream().mapToLong(Account::balance).toArray());
          long total = Arrays.stream(balances).sum();
          if (total != ACCOUNTS * INITIAL || Arrays.stream(balances).anyMatch(b -> b < 0)) {
            out.violations.add(
                "a snapshot read total " + total + ", balances " + Arrays.toString(balances));
          }
          out.auditTimes.add(System.nanoTime());
        } catch (RuntimeException e) {
          out.auditErrors.incrementAndGet();
        }
      }
    };
  }

  private static void assertFinalState(VCorfuRuntime rt, Outcomes out) {
    List<Account> accounts = openAccounts(rt);
    List<TransferJournal> journals = new ArrayList<>();
    for (int t = 0; t < TRANSFER_THREADS; t++) {
      journals.add(openJournal(rt, t));
    }
    long[] balances = new long[ACCOUNTS];
    Set<Long> journaled = new HashSet<>();
    rt.transaction(
        () -> {
          for (int i = 0; i < ACCOUNTS; i++) {
            balances[i] = accounts.get(i).balance();
          }
          journaled.clear();
          journals.forEach(j -> journaled.addAll(j.ids()));
        });
    assertThat(Arrays.stream(balances).sum())
        .as("the total at the end")
        .isEqualTo(ACCOUNTS * INITIAL);
    assertThat(journaled)
        .as("journaled transfers include every one that returned success")
        .containsAll(out.succeeded.keySet());
    Set<Long> unexpected =
        journaled.stream()
            .filter(id -> !out.succeeded.containsKey(id) && !out.unknown.containsKey(id))
            .collect(Collectors.toSet());
    assertThat(unexpected)
        .as(
            "journaled transfers whose caller saw them abort (%s of them) or never ran them",
            unexpected.stream().filter(out.aborted::containsKey).count())
        .isEmpty();
    long[] expected = new long[ACCOUNTS];
    Arrays.fill(expected, INITIAL);
    for (long id : journaled) {
      Transfer t = out.succeeded.containsKey(id) ? out.succeeded.get(id) : out.unknown.get(id);
      expected[t.from()] -= t.amount();
      expected[t.to()] += t.amount();
    }
    assertThat(balances)
        .as("the balances are the initial ones moved by exactly the journaled transfers")
        .containsExactly(expected);
    System.out.println(
        "BankTransferFailoverTest: final balances "
            + Arrays.toString(balances)
            + "; "
            + journaled.size()
            + " transfers journaled, of which "
            + journaled.stream().filter(out.unknown::containsKey).count()
            + " of unknown outcome");
  }

  private static void awaitCommitted(
      LongSupplier committed, long atLeast, String when, Outcomes out) {
    Awaitility.await(atLeast + " transfers committed " + when)
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              assertThat(out.violations).as("snapshots that broke the invariants").isEmpty();
              return committed.getAsLong() >= atLeast;
            });
  }
}
