package io.vcorfu.logunit.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * The segment lifecycle of a durable engine: how many live index slots each segment keeps alive
 * (the payload a slot points at, the record that indexed it when that lies in another segment, and
 * the commit record of a slot committed in a later segment), and about how many of its bytes are
 * live. A sealed segment left with nothing live is deleted at once; the active segment never is. In
 * memory mode there are no segments and every call does nothing.
 *
 * <p>Live bytes are an estimate that errs low: a payload indexed under several keys in one record
 * counts its share under each stream's key (nothing under the log's beside them; see {@link
 * RecordIndex}), and a payload indexed again by a SHARED record counts nothing more. Compaction
 * picks segments by the estimate and counts exactly before it copies (see {@link
 * SegmentCompactor}).
 *
 * <p>Not thread-safe: guarded by the owning {@link StorageEngine}'s monitor.
 */
final class SegmentRefs {
  private final boolean durable;

  /** Per segment with live slots: {live slots, estimated live payload bytes}. */
  private final Map<Integer, long[]> live = new HashMap<>();

  /** Lengths of the sealed segments that exist (the active one is not listed). */
  private final Map<Integer, Long> sealedLength = new HashMap<>();

  private final IntSupplier activeSegment;
  private final Supplier<SegmentWriter> writer;

  /**
   * @param activeSegment the segment being written now, which is never deleted
   * @param writer the writer that deletes segments; null while recovery replays them
   */
  SegmentRefs(boolean durable, IntSupplier activeSegment, Supplier<SegmentWriter> writer) {
    this.durable = durable;
    this.activeSegment = activeSegment;
    this.writer = writer;
  }

  /** One more live slot in {@code segment}, whose payload there counts {@code bytes}. */
  void retain(int segment, long bytes) {
    if (durable) {
      long[] c = live.computeIfAbsent(segment, x -> new long[2]);
      c[0]++;
      c[1] += bytes;
    }
  }

  /** Forgets what slot {@code s} of {@code n} keeps alive; deletes segments left with nothing. */
  void release(NamespaceIndex n, int s) {
    if (!durable) {
      return;
    }
    unref(SegmentPosition.segment(n.pos[s]), n.charge[s]);
    if (n.commitSegment[s] >= 0) {
      unref(n.commitSegment[s], 0);
    }
    if (n.keySegment[s] >= 0) {
      unref(n.keySegment[s], 0);
    }
  }

  private void unref(int segment, long bytes) {
    long[] c = live.get(segment);
    if (c == null) {
      return;
    }
    c[1] -= bytes;
    if (--c[0] <= 0) {
      live.remove(segment);
      SegmentWriter w = writer.get();
      if (segment != activeSegment.getAsInt() && w != null) {
        sealedLength.remove(segment);
        w.delete(segment);
      }
    }
  }

  /** Records that {@code segment} was sealed (or found sealed on open) at {@code length} bytes. */
  void sealed(int segment, long length) {
    if (durable) {
      sealedLength.put(segment, length);
    }
  }

  /** Forgets a sealed segment deleted without going through {@link #release} (recovery). */
  void deleted(int segment) {
    sealedLength.remove(segment);
  }

  /** True while some live slot points into {@code segment}. */
  boolean live(int segment) {
    return live.containsKey(segment);
  }

  /** Sealed segments holding nothing live (recovery deletes them). */
  List<Integer> dead(List<Integer> sealed) {
    List<Integer> dead = new ArrayList<>();
    for (int id : sealed) {
      if (!live(id)) {
        dead.add(id);
      }
    }
    return dead;
  }

  /** Estimated live payload bytes in {@code segment}. */
  long liveBytes(int segment) {
    long[] c = live.get(segment);
    return c == null ? 0 : Math.max(0, c[1]);
  }

  /** One sealed segment: its length and (estimated) live payload bytes. */
  record Space(int segment, long length, long liveBytes, long liveSlots) {}

  /** Every sealed segment that exists, in segment order. */
  List<Space> sealedSpace() {
    List<Space> out = new ArrayList<>();
    for (Map.Entry<Integer, Long> e : sealedLength.entrySet()) {
      long[] c = live.get(e.getKey());
      out.add(
          new Space(
              e.getKey(), e.getValue(), c == null ? 0 : Math.max(0, c[1]), c == null ? 0 : c[0]));
    }
    out.sort((a, b) -> Integer.compare(a.segment(), b.segment()));
    return out;
  }

  /**
   * What the segment files take and hold live, with the active segment {@code activeSegment} of
   * {@code activeOffset} bytes, and what compaction did ({@code c}).
   */
  io.vcorfu.logunit.SpaceReport report(
      long activeOffset, int activeSegment, SegmentCompactor.Stats c) {
    long file = activeOffset;
    long live = liveBytes(activeSegment);
    List<Space> sealed = sealedSpace();
    for (Space sp : sealed) {
      file += sp.length();
      live += sp.liveBytes();
    }
    return new io.vcorfu.logunit.SpaceReport(
        file,
        live,
        sealed.size() + 1,
        c.segmentsCompacted(),
        c.copiedBytes(),
        c.reclaimedBytes(),
        c.compacting());
  }
}
