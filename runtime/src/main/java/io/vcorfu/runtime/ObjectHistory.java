package io.vcorfu.runtime;

import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLog;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.runtime.serialization.Serializer;
import io.vcorfu.runtime.smr.RuntimeCore;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One page of an object's history, newest first: what {@link VCorfuRuntime#history} answers.
 *
 * @param items the versions found, newest first, at most the limit asked for
 * @param nextBefore where the next older page starts (pass it as {@code before}), or -1 when this
 *     page reached the oldest version kept
 * @param trimmed true when older versions existed but were trimmed away (below the object's
 *     retention): the history is reported cut there, never silently shortened
 */
public record ObjectHistory<T>(List<T> items, long nextBefore, boolean trimmed) {
  /** Entries read from the stream per request, going back. */
  static final int PAGE = 256;

  /**
   * Reads {@code stream} back from its tail, skipping entries at or past {@code before}, decoding
   * each entry's updates of the stream, until {@code limit} of them yield an item ({@code version}
   * answers null for the others) or the stream's oldest kept entry is passed.
   */
  static <T> ObjectHistory<T> read(
      RuntimeCore core,
      StreamId stream,
      long before,
      int limit,
      Function<ObjectUpdates, T> version) {
    if (limit < 1) {
      throw new IllegalArgumentException("a history page holds 1 or more versions, not " + limit);
    }
    List<T> items = new ArrayList<>();
    long[] next = {-1};
    long floor =
        walkBack(
            core,
            stream,
            (e, u) -> {
              if (e.globalAddress() >= before) {
                return true;
              }
              ObjectUpdates decoded = u.get();
              T item = decoded == null ? null : version.apply(decoded);
              if (item != null) {
                items.add(item);
                if (items.size() == limit) {
                  next[0] = e.streamAddress() == 0 ? -1 : e.globalAddress();
                  return false;
                }
              }
              return true;
            });
    return floor < 0
        ? new ObjectHistory<>(List.copyOf(items), next[0], false)
        : new ObjectHistory<>(List.copyOf(items), -1, floor > 0);
  }

  /**
   * The decoded updates of {@code stream}'s entries whose global addresses lie above {@code after}
   * and at or below {@code upTo}, oldest first: read back from the stream's tail until an entry at
   * or below {@code after}. Fails with {@link TrimmedException} when part of that range was
   * trimmed.
   */
  static List<ObjectUpdates> between(RuntimeCore core, StreamId stream, long after, long upTo) {
    List<ObjectUpdates> newestFirst = new ArrayList<>();
    long floor =
        walkBack(
            core,
            stream,
            (e, u) -> {
              if (e.globalAddress() <= after) {
                return false;
              }
              ObjectUpdates decoded = e.globalAddress() <= upTo ? u.get() : null;
              if (decoded != null) {
                newestFirst.add(decoded);
              }
              return true;
            });
    if (floor > 0) {
      throw new TrimmedException(floor, stream);
    }
    return reversed(newestFirst);
  }

  /** What a backward walk does with one entry. */
  private interface Visit {
    /**
     * True to go on to the next older entry; {@code updates} decodes the entry's updates of the
     * stream (null: none), only when asked.
     */
    boolean next(StreamEntry entry, Supplier<ObjectUpdates> updates);
  }

  /**
   * Walks {@code stream}'s entries back from its tail, newest first, holes passed over, until
   * {@code visit} answers false (then answers -1) or the oldest entry kept is passed (then answers
   * the stream's trim mark: 0 when nothing was trimmed).
   */
  private static long walkBack(RuntimeCore core, StreamId stream, Visit visit) {
    StreamLog log = core.log();
    Serializer serializer = core.options().serializer();
    long tail = core.await(log.tails(List.of(stream))).streamTails().getOrDefault(stream, -1L);
    long floor = 0;
    long hi = tail;
    while (hi >= floor) {
      long lo = Math.max(floor, hi - PAGE + 1);
      List<StreamEntry> page;
      try {
        page = core.await(log.readStream(stream, lo, hi));
      } catch (TrimmedException t) {
        if (t.trimMark() <= floor) {
          throw t;
        }
        floor = t.trimMark();
        continue;
      }
      for (int i = page.size() - 1; i >= 0; i--) {
        StreamEntry e = page.get(i);
        if (!e.isHole()
            && !visit.next(e, () -> ObjectUpdates.decode(e, Set.of(stream), serializer))) {
          return -1;
        }
      }
      hi = lo - 1;
    }
    return floor;
  }

  private static <T> List<T> reversed(List<T> list) {
    List<T> out = new ArrayList<>(list);
    java.util.Collections.reverse(out);
    return out;
  }
}
