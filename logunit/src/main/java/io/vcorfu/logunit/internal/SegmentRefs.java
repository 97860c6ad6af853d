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
 * the commit record of a slot committed in a later segment). A sealed segment left with nothing
 * live is deleted at once; the active segment never is. In memory mode there are no segments and
 * every call does nothing.
 *
 * <p>Not thread-safe: guarded by the owning {@link StorageEngine}'s monitor.
 */
final class SegmentRefs {
  private final boolean durable;
  private final Map<Integer, int[]> liveRecords = new HashMap<>();
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

  /** One more live slot in {@code segment}. */
  void retain(int segment) {
    if (durable) {
      liveRecords.computeIfAbsent(segment, x -> new int[1])[0]++;
    }
  }

  /** Forgets what slot {@code s} of {@code n} keeps alive; deletes segments left with nothing. */
  void release(NamespaceIndex n, int s) {
    if (!durable) {
      return;
    }
    unref(SegmentPosition.segment(n.pos[s]));
    if (n.commitSegment[s] >= 0) {
      unref(n.commitSegment[s]);
    }
    if (n.keySegment[s] >= 0) {
      unref(n.keySegment[s]);
    }
  }

  private void unref(int segment) {
    int[] c = liveRecords.get(segment);
    if (c != null && --c[0] <= 0) {
      liveRecords.remove(segment);
      SegmentWriter w = writer.get();
      if (segment != activeSegment.getAsInt() && w != null) {
        w.delete(segment);
      }
    }
  }

  /** True while some live slot points into {@code segment}. */
  boolean live(int segment) {
    return liveRecords.containsKey(segment);
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
}
