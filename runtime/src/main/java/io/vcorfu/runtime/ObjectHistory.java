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
    StreamLog log = core.log();
    Serializer serializer = core.options().serializer();
    long tail = core.await(log.tails(List.of(stream))).streamTails().getOrDefault(stream, -1L);
    List<T> items = new ArrayList<>();
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
        if (e.isHole() || e.globalAddress() >= before) {
          continue;
        }
        ObjectUpdates u = ObjectUpdates.decode(e, Set.of(stream), serializer);
        T item = u == null ? null : version.apply(u);
        if (item != null) {
          items.add(item);
          if (items.size() == limit) {
            long next = e.streamAddress() == 0 ? -1 : e.globalAddress();
            return new ObjectHistory<>(List.copyOf(items), next, false);
          }
        }
      }
      hi = lo - 1;
    }
    return new ObjectHistory<>(List.copyOf(items), -1, floor > 0);
  }

  /**
   * The decoded updates of {@code stream}'s entries whose global addresses lie above {@code after}
   * and at or below {@code upTo}, oldest first: read back from the stream's tail until an entry at
   * or below {@code after}. Fails with {@link TrimmedException} when part of that range was
   * trimmed.
   */
  static List<ObjectUpdates> between(RuntimeCore core, StreamId stream, long after, long upTo) {
    StreamLog log = core.log();
    Serializer serializer = core.options().serializer();
    long tail = core.await(log.tails(List.of(stream))).streamTails().getOrDefault(stream, -1L);
    List<ObjectUpdates> newestFirst = new ArrayList<>();
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
        if (e.isHole() || e.globalAddress() > upTo) {
          continue;
        }
        if (e.globalAddress() <= after) {
          return reversed(newestFirst);
        }
        ObjectUpdates u = ObjectUpdates.decode(e, Set.of(stream), serializer);
        if (u != null) {
          newestFirst.add(u);
        }
      }
      hi = lo - 1;
    }
    if (floor > 0) {
      throw new TrimmedException(floor, stream);
    }
    return reversed(newestFirst);
  }

  private static <T> List<T> reversed(List<T> list) {
    List<T> out = new ArrayList<>(list);
    java.util.Collections.reverse(out);
    return out;
  }
}
