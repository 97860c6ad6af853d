package io.vcorfu.runtime.checkpoint;

import io.vcorfu.client.StreamEntry;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.runtime.smr.RuntimeCore;
import io.vcorfu.runtime.smr.ViewBase;
import java.util.List;

/**
 * Finds the newest checkpoint of an object reflecting no update after a given global address by
 * bisecting the object's checkpoint stream, so that a snapshot of an old version reads about
 * log2(checkpoints) of them instead of every checkpoint written since that version.
 *
 * <p>Relies on the invariant of {@link Checkpoints}: the versions of a checkpoint stream's readable
 * checkpoints grow with their stream addresses. Holes, unreadable checkpoints and the trimmed
 * prefix of the checkpoint stream are stepped over: a probe at address {@code mid} takes the
 * nearest readable checkpoint at or below it (down to the search's lower bound), and a trimmed
 * address means every address below it is trimmed too.
 */
final class CheckpointSearch {
  /** A readable checkpoint: its checkpoint-stream address and decoded base. */
  record Found(long pos, ViewBase base) {}

  private CheckpointSearch() {}

  /**
   * The newest readable checkpoint of {@code stream} at or below checkpoint-stream address {@code
   * tail} whose version is at most {@code asOf}, or null when there is none.
   */
  static Found newestAtOrBelow(RuntimeCore core, StreamId stream, long tail, long asOf) {
    StreamId cp = Checkpoints.streamOf(stream);
    Found best = null;
    long lo = 0;
    long hi = tail;
    while (lo <= hi) {
      long mid = lo + (hi - lo) / 2;
      Found probe = nearestReadable(core, cp, stream, mid, lo);
      if (probe == null) {
        // [lo, mid] holds nothing readable (holes, unreadable or trimmed checkpoints).
        lo = mid + 1;
      } else if (probe.base().version() <= asOf) {
        best = probe;
        lo = mid + 1;
      } else {
        hi = probe.pos() - 1;
      }
    }
    return best;
  }

  /**
   * The readable checkpoint nearest below or at {@code from}, not below {@code floor}; null when
   * there is none, or when the checkpoint stream is trimmed where the walk reaches.
   */
  private static Found nearestReadable(
      RuntimeCore core, StreamId cp, StreamId stream, long from, long floor) {
    for (long pos = from; pos >= floor; pos--) {
      List<StreamEntry> entries;
      try {
        entries = core.await(core.log().readStream(cp, pos, pos));
      } catch (TrimmedException trimmed) {
        return null; // everything below is trimmed too
      }
      for (StreamEntry e : entries) {
        if (e.streamAddress() != pos || e.isHole()) {
          continue;
        }
        try {
          return new Found(pos, Checkpoints.decode(e.payload(), stream));
        } catch (RuntimeException unreadable) {
          Checkpoints.skipped(pos, stream, unreadable);
        }
      }
    }
    return null;
  }
}
