package io.vcorfu.logunit;

import io.vcorfu.logunit.internal.StorageEngine;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.LogTailResponse;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.protocol.proto.StreamTailEntry;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * A log replica's index of stream tails, for tail answers that ask for streams: per stream, the
 * highest stream address among the DATA entries the log holds (any status) and that entry's global
 * address, and the addresses held marked LOST (see {@code EntryKind.LOST}).
 *
 * <p>The index does not exist until first asked for; then it is built by reading every entry held,
 * off the caller's thread, and every write keeps it up to date from the moment it exists, so
 * entries written while it is built are counted too.
 */
final class StreamTailIndex {
  /** How many LOST addresses a tail answer lists at most (the highest). */
  static final int LOST_LISTED = 65_536;

  /** What the log holds at {@code [from, to]}, as the replica's read answers it. */
  interface HeldReader {
    CompletableFuture<List<ReadResult>> held(long from, long to);
  }

  private final StorageEngine engine;
  private final HeldReader reader;

  /**
   * Per stream, the highest stream address among the DATA entries held (any status) and that
   * entry's global address; null until first asked for ({@link #tails}), then kept up to date by
   * every write.
   */
  private volatile ConcurrentHashMap<StreamId, long[]> streamIndex;

  /** Addresses held marked LOST (see {@code EntryKind.LOST}), kept with {@link #streamIndex}. */
  private final ConcurrentSkipListSet<Long> lostIndex = new ConcurrentSkipListSet<>();

  /** Guarded by the log replica's monitor, which {@link #tails} is called under. */
  private CompletableFuture<Map<StreamId, long[]>> streamIndexBuilt;

  StreamTailIndex(StorageEngine engine, HeldReader reader) {
    this.engine = engine;
    this.reader = reader;
  }

  /**
   * What {@link LogReplica#streamTails} answers; called under the log replica's monitor. The first
   * call starts building the index.
   */
  CompletableFuture<Map<StreamId, long[]>> tails() {
    if (streamIndexBuilt == null) {
      var index = new ConcurrentHashMap<StreamId, long[]>();
      long from;
      long to;
      synchronized (engine) {
        streamIndex = index;
        from = Math.max(0, engine.trimMark(LogReplica.LOG));
        to = engine.maxAddress(LogReplica.LOG);
      }
      streamIndexBuilt =
          CompletableFuture.supplyAsync(() -> null)
              .thenCompose(v -> scan(index, from, to))
              .thenApply(v -> Map.copyOf(index));
      return streamIndexBuilt;
    }
    return streamIndexBuilt.thenApply(v -> Map.copyOf(streamIndex));
  }

  /** {@code plain} with every stream's tail of {@code tails} and the highest LOST addresses. */
  CompletableFuture<LogTailResponse> withStreams(
      LogTailResponse plain, CompletableFuture<Map<StreamId, long[]>> tails) {
    return tails.thenApply(
        t -> {
          LogTailResponse.Builder b = plain.toBuilder();
          b.setLostTotal(lostIndex.size());
          ArrayDeque<Long> highest = new ArrayDeque<>();
          for (Iterator<Long> it = lostIndex.descendingIterator();
              it.hasNext() && highest.size() < LOST_LISTED; ) {
            highest.addFirst(it.next());
          }
          b.addAllLost(highest);
          t.forEach(
              (stream, tail) ->
                  b.addStreams(
                      StreamTailEntry.newBuilder()
                          .setStream(stream.toMsg())
                          .setTail(tail[0])
                          .setLastGlobal(tail[1])));
          return b.build();
        });
  }

  /** Notes the stream slots of every entry held at {@code [from, to]} in {@code index}. */
  private CompletableFuture<Void> scan(
      ConcurrentHashMap<StreamId, long[]> index, long from, long to) {
    if (from > to) {
      return CompletableFuture.completedFuture(null);
    }
    long end = Math.min(to, from + 4_095);
    return reader
        .held(from, end)
        .thenComposeAsync(
            results -> {
              for (ReadResult r : results) {
                if (r.hasEntry() && r.getEntry().getKind() == EntryKind.DATA) {
                  note(index, r.getEntry());
                } else if (r.hasEntry() && r.getEntry().getKind() == EntryKind.LOST) {
                  lostIndex.add(r.getEntry().getGlobalAddress());
                }
              }
              return scan(index, end + 1, to);
            });
  }

  /** Counts {@code entry}, just written to the log, in the index (once it exists). */
  void written(LogEntryMsg entry) {
    note(streamIndex, entry);
  }

  /** Counts {@code entry}, stored here by other means than a write (a rebuild), in the index. */
  void noted(LogEntryMsg entry) {
    if (entry.getKind() == EntryKind.LOST) {
      if (streamIndex != null) {
        lostIndex.add(entry.getGlobalAddress());
      }
      return;
    }
    note(streamIndex, entry);
  }

  private static void note(ConcurrentHashMap<StreamId, long[]> index, LogEntryMsg entry) {
    if (index == null) {
      return;
    }
    for (StreamSlot slot : entry.getSlotsList()) {
      long[] seen = {slot.getStreamAddress(), entry.getGlobalAddress()};
      index.merge(StreamId.fromMsg(slot.getStream()), seen, (a, b) -> a[0] >= b[0] ? a : b);
    }
  }
}
