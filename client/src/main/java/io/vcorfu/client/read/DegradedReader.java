package io.vcorfu.client.read;

import io.vcorfu.protocol.DataLossException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.StreamSlot;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reads a stream from the log replicas alone, for while no replica of the stream's chain can serve
 * (the paper's degraded mode): from the stream's last global address (the sequencer knows it) it
 * walks back along the backpointers the entries carry, each read a decided read of one global
 * address ({@link RepairingReader#readGlobal}); where a backpointer leads to a hole (an aborted
 * entry of the stream), it scans the log backwards, one address at a time, to the stream's previous
 * entry.
 *
 * <p>Invariant: the result is what a read of the stream replica would return for the decided slots.
 * Every token the sequencer issued for the stream is reached: a backpointer names the previous
 * token's global address, committed (its entry names the slot) or aborted (a hole in the log, and a
 * hole in the stream), and the scan past a hole finds the stream's previous committed entry, since
 * every committed entry of the stream is in the log at its global address. A slot of the range that
 * no committed entry names was aborted: it reads as a committed hole.
 *
 * <p>A log address marked {@code LOST} (its log chain was rebuilt from the stream replicas, which
 * held nothing for it) breaks that argument: the stream's entry may have been there. A read that
 * meets one where an entry of the stream was due (the stream's last global address, or a
 * backpointer's target), or that has a slot no entry names after meeting one, fails with {@link
 * DataLossException} instead of answering holes.
 *
 * <p>Cost: one round trip per entry of the stream from its tail down to the start of the range,
 * plus one per global address scanned after a hole ({@link #scanned()} counts all of them); a
 * reader that knows an earlier entry of the stream reads the log by pages instead where the stream
 * is dense enough.
 */
public final class DegradedReader {
  private final RepairingReader reader;
  private final AtomicLong scanned = new AtomicLong();

  public DegradedReader(RepairingReader reader) {
    this.reader = reader;
  }

  private final AtomicLong requests = new AtomicLong();

  /** Global addresses read by degraded reads so far. */
  public long scanned() {
    return scanned.get();
  }

  /** Log reads (round trips) degraded reads made so far: one per entry walked, one per page. */
  public long requests() {
    return requests.get();
  }

  /**
   * Decided results for stream addresses {@code [from, to]} of {@code stream}, whose last global
   * address is {@code lastGlobal} (-1: the stream holds nothing); slots above the stream's last
   * entry are not returned.
   */
  public CompletableFuture<List<ReadResult>> readStream(
      StreamId stream, long from, long to, long lastGlobal) {
    Found found = new Found(stream, from, to, -1);
    return walk(found, lastGlobal, true).thenApply(v -> found.results());
  }

  /**
   * {@link #readStream(StreamId, long, long, long)} for a reader that knows a committed entry of
   * the stream: slot {@code knownSlot} (below {@code from}) at global address {@code knownGlobal}.
   * Every token of a later slot up to the tail has a global address in {@code (knownGlobal,
   * lastGlobal]}, so when the stream is dense enough there (at least one entry in {@value #DENSE}
   * addresses, by the slots asked for), that range is read a page of {@value RepairingReader#PAGE}
   * addresses at a time instead of walking the backpointers one entry at a time: what a reader that
   * follows a stream (a local view) asks for. Otherwise it walks.
   */
  public CompletableFuture<List<ReadResult>> readStream(
      StreamId stream, long from, long to, long lastGlobal, long knownSlot, long knownGlobal) {
    long span = lastGlobal - knownGlobal;
    if (knownSlot < 0 || knownSlot >= from || span <= 0 || span > DENSE * (to - knownSlot)) {
      return readStream(stream, from, to, lastGlobal);
    }
    Found found = new Found(stream, from, to, knownSlot);
    return scan(found, knownGlobal + 1, lastGlobal).thenApply(v -> found.results());
  }

  /** Global addresses per stream entry up to which a range read beats walking backpointers. */
  static final int DENSE = 16;

  /** What a degraded read of {@code [from, to]} of a stream found so far. */
  private static final class Found {
    final StreamId stream;
    final long from;
    final long to;
    final ReadResult[] out;

    /** The highest stream address seen (the stream's tail as the log shows it). */
    long highest;

    /** The first address marked lost met, or -1. */
    long lost = -1;

    /** Whether a lost address was met where an entry of the stream was due. */
    boolean lostEntry;

    Found(StreamId stream, long from, long to, long highest) {
      this.stream = stream;
      this.from = from;
      this.to = to;
      this.out = new ReadResult[(int) (to - from + 1)];
      this.highest = highest;
    }

    /** The stream's slot of {@code e}, noted when it is in range; null when {@code e} has none. */
    StreamSlot note(LogEntryMsg e) {
      if (e.getKind() == EntryKind.LOST && lost < 0) {
        lost = e.getGlobalAddress();
      }
      StreamSlot slot = e.getKind() == EntryKind.DATA ? slotOf(e, stream) : null;
      if (slot == null) {
        return null;
      }
      long sa = slot.getStreamAddress();
      highest = Math.max(highest, sa);
      if (sa >= from && sa <= to) {
        out[(int) (sa - from)] =
            ReadResult.newBuilder()
                .setAddress(sa)
                .setStatus(ReadResult.Status.COMMITTED)
                .setEntry(e)
                .build();
      }
      return slot;
    }

    /** The slots up to the stream's tail: the entries found, holes where none names a slot. */
    List<ReadResult> results() {
      if (lostEntry) {
        throw new DataLossException(lost);
      }
      List<ReadResult> results = new ArrayList<>();
      long last = Math.min(to, highest);
      for (long a = from; a <= last; a++) {
        ReadResult r = out[(int) (a - from)];
        if (r == null && lost >= 0) {
          throw new DataLossException(lost);
        }
        results.add(r != null ? r : hole(stream, a));
      }
      return results;
    }
  }

  /** Reads global addresses {@code [g, lastGlobal]} a page at a time, noting the stream's slots. */
  private CompletableFuture<Void> scan(Found found, long g, long lastGlobal) {
    if (g > lastGlobal) {
      return CompletableFuture.completedFuture(null);
    }
    long end = Math.min(lastGlobal, g + RepairingReader.PAGE - 1);
    scanned.addAndGet(end - g + 1);
    requests.incrementAndGet();
    return reader
        .readGlobal(g, end)
        .thenCompose(
            results -> {
              for (ReadResult r : results) {
                found.note(r.getEntry());
              }
              if (end == lastGlobal && found.lost == lastGlobal) {
                found.lostEntry = true; // the stream's last entry
              }
              return scan(found, end + 1, lastGlobal);
            });
  }

  /**
   * Reads global address {@code g} and goes on to the stream's previous entry, until below the
   * range: along the backpointer of an entry of the stream, or, after a hole (an aborted entry of
   * the stream, or, while scanning, anything else), to the address below. {@code due}: an entry of
   * the stream is due at {@code g} (the stream's last address, or a backpointer's target).
   */
  private CompletableFuture<Void> walk(Found found, long g, boolean due) {
    if (g < 0) {
      return CompletableFuture.completedFuture(null);
    }
    scanned.incrementAndGet();
    requests.incrementAndGet();
    return reader
        .readGlobal(g, g)
        .thenCompose(
            results -> {
              LogEntryMsg e = results.get(0).getEntry();
              StreamSlot slot = found.note(e);
              if (slot == null) {
                if (due && e.getKind() == EntryKind.LOST) {
                  found.lostEntry = true;
                  return CompletableFuture.completedFuture(null);
                }
                return walk(found, g - 1, false);
              }
              if (slot.getStreamAddress() < found.from) {
                return CompletableFuture.completedFuture(null);
              }
              return walk(found, slot.getBackpointer(), true);
            });
  }

  private static StreamSlot slotOf(LogEntryMsg e, StreamId stream) {
    for (StreamSlot s : e.getSlotsList()) {
      if (StreamId.fromMsg(s.getStream()).equals(stream)) {
        return s;
      }
    }
    return null;
  }

  private static ReadResult hole(StreamId stream, long address) {
    return ReadResult.newBuilder()
        .setAddress(address)
        .setStatus(ReadResult.Status.COMMITTED)
        .setEntry(
            LogEntryMsg.newBuilder()
                .setGlobalAddress(-1)
                .setKind(EntryKind.HOLE)
                .addSlots(
                    StreamSlot.newBuilder().setStream(stream.toMsg()).setStreamAddress(address)))
        .build();
  }
}
