package io.vcorfu.client.read;

import io.vcorfu.client.RepairIncompleteException;
import io.vcorfu.client.StreamLog;
import io.vcorfu.client.chain.ChainWriter;
import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TooLargeException;
import io.vcorfu.protocol.TrimBounds;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.UnknownStreamException;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Reads committed slots, waiting a bounded time for in-flight writes and then repairing them.
 *
 * <p>A slot that is empty or holds an uncommitted entry is re-read with a growing back-off until
 * {@code repairAfter} has passed since the read began; then the reader repairs it: an uncommitted
 * entry is driven to its decision ({@link ChainWriter}), an empty slot is filled with a hole
 * through its chain in order (a replica that turns out to hold an entry switches the repair to
 * driving that entry). A reader therefore never waits much longer than {@code repairAfter} for a
 * dead writer, and every reader sees the same outcome for every slot.
 *
 * <p>A stream slot found empty at its chain's last replica is decided by the log first, so that a
 * committed stream hole has no copy of an entry anywhere but as a hole: the rule and its reasons
 * are kept by {@link StreamSlots}.
 *
 * <p>A reader returns only decided slots: committed data, a committed hole, or a typed error. A
 * repaired entry's value is the decision of its drive, never a re-read of a copy the drive may not
 * have reached ({@link SlotDecider} keeps that rule). A slot that ends trimmed fails with {@link
 * TrimmedException}, and one still undecided with {@link RepairIncompleteException}.
 */
public final class RepairingReader {
  /** Largest range one read request asks for; longer reads are split. */
  public static final int PAGE = 1024;

  private final ReplicaClient ops;
  private final ChainWriter driver;
  private final long repairAfterNanos;
  private final DegradedReader fromLog;
  private final SlotDecider decider;

  /**
   * The wait before re-reading a slot not decided yet, the {@code round}-th time: 250 us more each
   * time for the first eight (0.25 to 9 ms in all), where a slot being written is usually decided
   * (its fsync, and the commit riding on the writer's next message within 2 ms; see {@code
   * RidingCommits}), then doubling to 20 ms. A re-read thus comes at most a step after the slot was
   * decided there, where doubling from 100 us could wait as long again as it had waited.
   */
  static long retryDelayMicros(int round) {
    if (round < 8) {
      return 250L * (round + 1);
    }
    return Math.min(20_000, 2_000L << Math.min(round - 8, 4));
  }

  public RepairingReader(ReplicaClient ops, ChainWriter driver, Duration repairAfter) {
    this.ops = ops;
    this.driver = driver;
    this.repairAfterNanos = repairAfter.toNanos();
    this.fromLog = new DegradedReader(this);
    this.decider = new SlotDecider(driver);
  }

  /** Log reads made to decide stream slots found empty (see {@link StreamSlots}), so far. */
  public long logReadsForStreamRepairs() {
    return fromLog.requests();
  }

  /** Decided results for stream addresses [from, to] of {@code stream}. */
  public CompletableFuture<List<ReadResult>> readStream(StreamId stream, long from, long to) {
    return readRange(streamSlots(stream), from, to);
  }

  /** Decided results for global addresses [from, to]. */
  public CompletableFuture<List<ReadResult>> readGlobal(long from, long to) {
    return readRange(globalSlots(), from, to);
  }

  /**
   * Decides global address {@code address} at once (no wait): fills it through the log chain,
   * finishing an incomplete write found on the way (see {@link StreamLog#fill}).
   */
  public CompletableFuture<ReadResult> fillGlobal(long address) {
    return globalSlots().repair(address);
  }

  private Slots streamSlots(StreamId stream) {
    return new StreamSlots(ops, decider, fromLog, stream);
  }

  private Slots globalSlots() {
    return new GlobalSlots(ops, decider);
  }

  /** A committed hole at stream address {@code address}, as a stream replica would answer it. */
  public static ReadResult streamHole(long address) {
    return ReadResult.newBuilder()
        .setStatus(ReadResult.Status.COMMITTED)
        .setAddress(address)
        .setEntry(LogEntryMsg.newBuilder().setGlobalAddress(-1).setKind(EntryKind.HOLE))
        .build();
  }

  /**
   * The refusal for a stream whose chain has no replica: every replica it had is gone, and its
   * entries are read from the log (degraded reads) until a node takes the chain up again.
   */
  public static io.vcorfu.protocol.NotServingException noReplica(StreamId stream) {
    return new io.vcorfu.protocol.NotServingException(
        "stream replica",
        "The stream chain of stream "
            + stream
            + " has no replica: every one it had is gone. Its entries are read from the log until"
            + " a node takes the chain up again.");
  }

  /**
   * Settles every entry of {@code stream} below {@code before} for a trim of the stream (the rule
   * in {@link ChainWriter}'s class comment): each slot from the stream's trim mark up is read until
   * decided (repairing as any read does), and each committed entry whose deciding replica is this
   * stream's is committed at every other copy, all acknowledged. Pages are settled one after
   * another. Fails with {@link UnknownStreamException} when the stream's last replica holds nothing
   * of it.
   */
  public CompletableFuture<Void> settleBelow(StreamId stream, long before) {
    List<Endpoint> chain = ops.rpc().layout().current().streamChain(stream);
    if (chain.isEmpty()) {
      return CompletableFuture.failedFuture(noReplica(stream));
    }
    return ops.streamTail(chain.get(chain.size() - 1), List.of(stream), false)
        .thenCompose(
            t -> {
              if (t.getTailsCount() == 0 || t.getTails(0).getTail() < 0) {
                return CompletableFuture.failedFuture(new UnknownStreamException(stream));
              }
              // The replica refuses such a mark anyway; refusing it here settles nothing first.
              TrimBounds.check("stream " + stream, before, t.getTails(0).getTail());
              return settlePages(stream, Math.max(0, t.getTails(0).getTrimMark()), before - 1);
            });
  }

  private CompletableFuture<Void> settlePages(StreamId stream, long from, long to) {
    if (from > to) {
      return CompletableFuture.completedFuture(null);
    }
    long end = Math.min(to, from + PAGE - 1);
    return readRange(streamSlots(stream), from, end)
        .handle(
            (results, error) -> {
              if (error != null) {
                Throwable cause = EpochRpc.unwrap(error);
                if (cause instanceof TrimmedException t && t.trimMark() > from) {
                  // Another trim got there first: what it covers it settled.
                  return settlePages(stream, t.trimMark(), to);
                }
                return CompletableFuture.<Void>failedFuture(cause);
              }
              List<LogEntryMsg> decided = new ArrayList<>();
              for (ReadResult r : results) {
                LogEntryMsg e = r.getEntry();
                if (e.getKind() == EntryKind.DATA && driver.decidedBy(e, stream)) {
                  decided.add(e);
                }
              }
              return driver
                  .commitEveryCopy(decided)
                  .thenCompose(v -> settlePages(stream, end + 1, to));
            })
        .thenCompose(f -> f);
  }

  private CompletableFuture<List<ReadResult>> readRange(Slots slots, long from, long to) {
    if (from > to) {
      return CompletableFuture.completedFuture(List.of());
    }
    List<CompletableFuture<List<ReadResult>>> pages = new ArrayList<>();
    for (long start = from; start <= to; start += PAGE) {
      long end = Math.min(to, start + PAGE - 1);
      pages.add(readPage(slots, start, end, System.nanoTime(), 0));
    }
    return CompletableFuture.allOf(pages.toArray(CompletableFuture[]::new))
        .thenApply(
            v -> {
              List<ReadResult> all = new ArrayList<>((int) (to - from + 1));
              pages.forEach(p -> all.addAll(p.join()));
              return all;
            });
  }

  /**
   * Reads {@code [from, to]} of {@code slots}, in halves (and halves of those) while the reply
   * would be over the frame limit: a page of large entries is, whatever its number of slots.
   */
  private static CompletableFuture<List<ReadResult>> readWhole(Slots slots, long from, long to) {
    return slots
        .read(from, to)
        .handle(
            (results, error) -> {
              if (error == null) {
                return CompletableFuture.completedFuture(results);
              }
              if (EpochRpc.unwrap(error) instanceof TooLargeException && to > from) {
                long mid = from + (to - from) / 2;
                return readWhole(slots, from, mid)
                    .thenCompose(
                        first ->
                            readWhole(slots, mid + 1, to)
                                .thenApply(
                                    second -> {
                                      List<ReadResult> all = new ArrayList<>(first);
                                      all.addAll(second);
                                      return all;
                                    }));
              }
              return CompletableFuture.<List<ReadResult>>failedFuture(error);
            })
        .thenCompose(f -> f);
  }

  private CompletableFuture<List<ReadResult>> readPage(
      Slots slots, long from, long to, long startedNanos, int round) {
    return readWhole(slots, from, to)
        .thenCompose(
            results -> {
              long firstPending = -1;
              long lastPending = -1;
              for (ReadResult r : results) {
                if (r.getStatus() == ReadResult.Status.TRIMMED) {
                  return CompletableFuture.failedFuture(
                      new TrimmedException(trimMarkOf(results), null));
                }
                if (!decided(r)) {
                  if (firstPending < 0) {
                    firstPending = r.getAddress();
                  }
                  lastPending = r.getAddress();
                }
              }
              if (firstPending < 0) {
                return CompletableFuture.completedFuture(results);
              }
              long fp = firstPending;
              long lp = lastPending;
              CompletableFuture<List<ReadResult>> pending;
              if (System.nanoTime() - startedNanos < repairAfterNanos) {
                long delayMicros = retryDelayMicros(round);
                pending =
                    CompletableFuture.supplyAsync(
                            () -> null,
                            CompletableFuture.delayedExecutor(delayMicros, TimeUnit.MICROSECONDS))
                        .thenCompose(v -> readPage(slots, fp, lp, startedNanos, round + 1));
              } else {
                pending = repairAll(slots, results, fp, lp);
              }
              return pending.thenApply(
                  fixed -> {
                    List<ReadResult> merged = new ArrayList<>(results);
                    for (ReadResult r : fixed) {
                      merged.set((int) (r.getAddress() - from), r);
                    }
                    return merged;
                  });
            });
  }

  private static long trimMarkOf(List<ReadResult> results) {
    long mark = -1;
    for (ReadResult r : results) {
      if (r.getStatus() == ReadResult.Status.TRIMMED) {
        mark = r.getAddress() + 1;
      }
    }
    return mark;
  }

  private CompletableFuture<List<ReadResult>> repairAll(
      Slots slots, List<ReadResult> results, long fp, long lp) {
    List<CompletableFuture<ReadResult>> repairs = new ArrayList<>();
    for (ReadResult r : results) {
      if (r.getAddress() < fp || r.getAddress() > lp) {
        continue;
      }
      if (decided(r)) {
        repairs.add(SlotDecider.done(r));
      } else if (r.getStatus() == ReadResult.Status.UNCOMMITTED
          && r.getEntry().getKind() == EntryKind.DATA) {
        long address = r.getAddress();
        repairs.add(decider.driveAndSettle(slots, address, r.getEntry()));
      } else {
        // Empty, or an uncommitted hole: an abort in progress, finished by filling the chain head
        // first (a copy of the aborted entry found on the way is driven to its decision).
        repairs.add(slots.repair(r.getAddress()));
      }
    }
    return CompletableFuture.allOf(repairs.toArray(CompletableFuture[]::new))
        .thenCompose(
            v -> {
              List<ReadResult> out = new ArrayList<>();
              for (CompletableFuture<ReadResult> f : repairs) {
                ReadResult r = f.join();
                if (r.getStatus() == ReadResult.Status.TRIMMED) {
                  return CompletableFuture.failedFuture(
                      new TrimmedException(r.getAddress() + 1, null));
                }
                if (!decided(r)) {
                  return CompletableFuture.failedFuture(
                      new RepairIncompleteException(
                          r.getAddress(), "it still reads " + r.getStatus()));
                }
                out.add(r);
              }
              return CompletableFuture.completedFuture(out);
            });
  }

  private static boolean decided(ReadResult r) {
    return r.getStatus() == ReadResult.Status.COMMITTED;
  }
}
