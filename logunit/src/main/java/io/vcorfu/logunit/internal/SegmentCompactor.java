package io.vcorfu.logunit.internal;

import io.vcorfu.logunit.SpaceReport;
import io.vcorfu.protocol.StreamId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compaction of a durable engine's sealed segments: a segment whose live bytes fell below a share
 * of its length (streams interleave in segments, so trimming one rarely frees a whole segment) has
 * its live records written again at the end of the active segment, after which nothing points into
 * it and it is deleted.
 *
 * <p>Invariant: compaction never changes what any key holds, only where. Each live slot is written
 * again with the bytes, global address, content hash and flags it holds at that moment, checked
 * under the engine's monitor right before (a slot that changed since it was listed is left alone);
 * the old segment is deleted only when its last live slot is released, by the segment writer after
 * a force that covers every record written before (see {@link SegmentWriter}), so a crash at any
 * step finds each slot either in the old segment, or in the old and the new (the newer wins on
 * replay, with the same content), never in neither. A payload indexed by several keys is written
 * once and indexed again by all of them. Readers that planned a read in the old segment find the
 * slot where it moved ({@link StorageEngine#load(StreamId, IndexedRecord)}).
 *
 * <p>Which segments: those below the threshold asked for (half live, by default), and, while the
 * sealed segments take more than one and a half times what they hold live, those below two thirds
 * live (see {@link #crowded}). The background passes spare a segment that is still dying (its live
 * bytes fell by a sixteenth of its length or more within the last {@link #DYING_NANOS}) while the
 * segment files take at most {@link #DYING_AMPLIFICATION} times what they hold live, and past that
 * compact only as many dying segments as bring them back within it, the emptiest first: what a
 * dying segment still holds is mostly history that trims release seconds later, so copying it now
 * is work the trims would have saved (on a small, hot data set whose history is checkpointed and
 * trimmed, about half of every segment otherwise went through compaction on its way to dying).
 *
 * <p>Paced: at most {@code bytesPerSecond} of payload copied, in batches of about 64 KiB, each
 * under the monitor only for the index checks and the appends; payloads are read outside it.
 */
final class SegmentCompactor {
  private static final Logger LOG = LoggerFactory.getLogger(SegmentCompactor.class);

  /**
   * Payload bytes read and written again per step under the monitor: small, because every write of
   * the foreground waits for the monitor while a step holds it.
   */
  static final int BATCH_BYTES = 64 << 10;

  private final StorageEngine engine;
  private final long bytesPerSecond;
  private final AtomicLong copiedBytes = new AtomicLong();
  private final AtomicLong reclaimedBytes = new AtomicLong();
  private final AtomicLong segmentsCompacted = new AtomicLong();
  private volatile int compacting = -1;

  /**
   * Segments a pass left live, with the estimate they had then, when, and the threshold of that
   * pass (as double bits): not retried until the estimate falls further, a pass asks for a higher
   * threshold, or {@link #RETRY_NANOS} has passed (an estimate that erred low may not fall any more
   * while what is live there dies).
   */
  private final Map<Integer, long[]> leftAt = new HashMap<>();

  /** A segment left live is looked at again after this long, whatever its estimate says. */
  static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(30);

  /** The window over which a sealed segment's fall in live bytes tells whether it is dying. */
  static final long DYING_NANOS = TimeUnit.SECONDS.toNanos(10);

  /** A fall of at least this share of a segment's length within the window: it is dying. */
  static final double DYING_FALL = 1.0 / 16;

  /**
   * While the segment files take more than this times what they hold live, the background passes
   * compact dying segments too, the emptiest first, until the files are back within it: the disk's
   * bound comes before the copies it saves.
   */
  static final double DYING_AMPLIFICATION = 2.0;

  /**
   * By sealed segment: {start of its current window, its live bytes then, 1 when it fell by {@link
   * #DYING_FALL} within the previous window}; used by the compaction thread only.
   */
  private final Map<Integer, long[]> falls = new HashMap<>();

  SegmentCompactor(StorageEngine engine, long bytesPerSecond) {
    this.engine = engine;
    this.bytesPerSecond = bytesPerSecond;
  }

  /** Totals since the engine opened. */
  record Stats(long segmentsCompacted, long copiedBytes, long reclaimedBytes, int compacting) {}

  Stats stats() {
    return new Stats(segmentsCompacted.get(), copiedBytes.get(), reclaimedBytes.get(), compacting);
  }

  /**
   * Compacts every sealed segment whose estimated live bytes are below {@code threshold} of its
   * length, lowest share first (with {@code spareDying}, a background pass at {@code now}, those
   * still dying only as far as the disk's bound needs, see the class); returns how many segments
   * were deleted.
   */
  int pass(double threshold, java.util.function.BooleanSupplier stop, long now, boolean spareDying)
      throws InterruptedException {
    List<SegmentRefs.Space> candidates = new ArrayList<>();
    List<SegmentRefs.Space> sealed = engine.sealedSpace();
    Set<Integer> dying = dying(sealed, now);
    // The whole store, the active segment with it: what a copy frees stays counted where it goes.
    SpaceReport total = engine.space();
    long files = total.fileBytes();
    long live = total.liveBytes();
    threshold = crowded(sealed, threshold);
    for (SegmentRefs.Space s : sealed) {
      long[] left = leftAt.get(s.segment());
      boolean fellSince =
          left == null
              || s.liveBytes() < left[0] - s.length() / 20
              || now - left[1] >= RETRY_NANOS
              || threshold > Double.longBitsToDouble(left[2]);
      if (s.length() > 0 && s.liveBytes() < threshold * s.length() && fellSince) {
        candidates.add(s);
      }
    }
    candidates.sort(
        (a, b) ->
            Double.compare(
                (double) a.liveBytes() / a.length(), (double) b.liveBytes() / b.length()));
    int deleted = 0;
    for (SegmentRefs.Space s : candidates) {
      if (stop.getAsBoolean()) {
        break;
      }
      if (spareDying && dying.contains(s.segment()) && files <= DYING_AMPLIFICATION * live) {
        continue;
      }
      files -= s.length() - s.liveBytes(); // what it holds live is written again
      compacting = s.segment();
      try {
        if (compact(s.segment(), (long) (threshold * s.length()), stop)) {
          deleted++;
          segmentsCompacted.incrementAndGet();
          reclaimedBytes.addAndGet(s.length());
          leftAt.remove(s.segment());
        } else {
          leftAt.put(
              s.segment(), new long[] {s.liveBytes(), now, Double.doubleToLongBits(threshold)});
        }
      } finally {
        compacting = -1;
      }
    }
    return deleted;
  }

  /**
   * The threshold to compact below: {@code threshold}, raised to {@link #CROWDED_BELOW} while the
   * sealed segments take more than {@link #SPACE_AMPLIFICATION} times the live bytes they hold.
   * Segments just above half live would otherwise stay forever, and the files settle at about twice
   * what is live; this bounds them nearer one and a half times, copying at most two bytes for each
   * byte it frees.
   */
  static double crowded(List<SegmentRefs.Space> sealed, double threshold) {
    return threshold > 0 && threshold < CROWDED_BELOW && amplification(sealed) > SPACE_AMPLIFICATION
        ? CROWDED_BELOW
        : threshold;
  }

  /** What the sealed segments take against what they hold live (infinite: nothing live). */
  static double amplification(List<SegmentRefs.Space> sealed) {
    long files = 0;
    long live = 0;
    for (SegmentRefs.Space s : sealed) {
      files += s.length();
      live += s.liveBytes();
    }
    return files == 0 ? 0 : live == 0 ? Double.POSITIVE_INFINITY : (double) files / live;
  }

  /**
   * Records each sealed segment's live bytes at {@code now} and returns the dying ones: fallen by
   * {@link #DYING_FALL} of their length within their current window or their previous one (a
   * segment that stops dying is compacted as others within two windows). Forgets segments gone.
   */
  Set<Integer> dying(List<SegmentRefs.Space> sealed, long now) {
    Set<Integer> out = new HashSet<>();
    Set<Integer> present = new HashSet<>();
    for (SegmentRefs.Space s : sealed) {
      present.add(s.segment());
      long[] f = falls.get(s.segment());
      if (f == null) {
        falls.put(s.segment(), new long[] {now, s.liveBytes(), 0});
        continue;
      }
      boolean fell = f[1] - s.liveBytes() >= DYING_FALL * s.length();
      if (now - f[0] >= DYING_NANOS) {
        f[0] = now;
        f[1] = s.liveBytes();
        f[2] = fell ? 1 : 0;
      }
      if (fell || f[2] == 1) {
        out.add(s.segment());
      }
    }
    falls.keySet().retainAll(present);
    return out;
  }

  /** What the sealed segments may take against what is live in them before they count crowded. */
  static final double SPACE_AMPLIFICATION = 1.5;

  /** The threshold compaction works to while the sealed segments are crowded. */
  static final double CROWDED_BELOW = 2.0 / 3;

  /**
   * One live slot that names a segment, as listed: its payload's position, the bytes live with it
   * (payload and digest), and whether the payload lies in that segment (else only the record that
   * indexed or committed it does).
   */
  record Slot(StreamId ns, long address, long pos, int len, boolean payloadThere) {}

  /**
   * Writes again every live slot that names {@code victim}, when the live payload bytes in it,
   * counted exactly (each payload once, whatever number of keys index it), are below {@code
   * belowBytes}; true once it is gone.
   */
  boolean compact(int victim, long belowBytes, java.util.function.BooleanSupplier stop)
      throws InterruptedException {
    List<Slot> slots = engine.slotsNaming(victim);
    Set<Long> counted = new HashSet<>();
    long live = 0;
    for (Slot s : slots) {
      if (s.payloadThere() && counted.add(s.pos())) {
        live += s.len();
      }
    }
    if (live >= belowBytes) {
      return false; // the estimate erred low: more of it is live than it said
    }
    // Payloads in the victim, by position, with every key that indexes each.
    Map<Long, List<Slot>> byPayload = new LinkedHashMap<>();
    List<Slot> elsewhere = new ArrayList<>();
    for (Slot s : slots) {
      if (s.payloadThere()) {
        byPayload.computeIfAbsent(s.pos(), p -> new ArrayList<>()).add(s);
      } else {
        elsewhere.add(s);
      }
    }
    List<Long> positions = new ArrayList<>(byPayload.keySet());
    positions.sort(null);
    long started = System.nanoTime();
    long copied = 0;
    int step = 0;
    int i = 0;
    while (i < positions.size()) {
      if (stop.getAsBoolean()) {
        return false;
      }
      Map<Long, byte[]> batch = new LinkedHashMap<>();
      long batchBytes = 0;
      while (i < positions.size() && batchBytes < BATCH_BYTES) {
        long pos = positions.get(i++);
        Slot first = byPayload.get(pos).get(0);
        IndexedRecord listed = engine.lookupAt(first.ns(), first.address(), pos);
        byte[] bytes = listed == null ? null : engine.load(listed);
        if (bytes != null) {
          batch.put(pos, bytes);
          batchBytes += bytes.length;
        }
      }
      engine.group(
          () -> {
            for (Map.Entry<Long, byte[]> e : batch.entrySet()) {
              rewrite(byPayload.get(e.getKey()), e.getKey(), e.getValue());
            }
            return null;
          });
      copied += batchBytes;
      copiedBytes.addAndGet(batchBytes);
      engine.options().compactionObserver().stepped(victim, step++);
      pace(started, copied);
    }
    engine.group(
        () -> {
          for (Slot s : elsewhere) {
            IndexedRecord now = engine.lookupAt(s.ns(), s.address(), s.pos());
            if (now != null) {
              engine.putShared(
                  EntryRecords.key(s.ns(), s.address()),
                  now.global(),
                  now.hash(),
                  now.flags(),
                  now);
            }
          }
          return null;
        });
    engine.options().compactionObserver().stepped(victim, step++);
    engine.barrier(false).join();
    boolean gone = !engine.segmentLive(victim);
    engine.options().compactionObserver().stepped(victim, step);
    if (gone) {
      LOG.info(
          "Compacted segment {} of {}: {} live records written again ({} bytes)",
          victim,
          engine.options().directory(),
          slots.size(),
          copied);
    }
    return gone;
  }

  /**
   * Under the engine's monitor: writes the payload at {@code pos} again for every key of {@code
   * keys} that still holds it, in one record per (flags, global, hash), the first with the bytes
   * and the others sharing them.
   */
  private void rewrite(List<Slot> keys, long pos, byte[] bytes) {
    Map<Held, List<long[]>> groups = new LinkedHashMap<>();
    for (Slot s : keys) {
      IndexedRecord now = engine.lookupAt(s.ns(), s.address(), pos);
      if (now != null) {
        groups
            .computeIfAbsent(
                new Held(now.flags(), now.global(), now.hash(), now.digest()),
                g -> new ArrayList<>())
            .add(EntryRecords.key(s.ns(), s.address()));
      }
    }
    IndexedRecord written = null;
    for (Map.Entry<Held, List<long[]>> g : groups.entrySet()) {
      // The digest the replica stored moves with the bytes; it is never computed again from them.
      Held h = g.getKey();
      long[] flat = EntryRecords.flatten(g.getValue());
      if (written == null) {
        engine.put(flat, h.global(), h.hash(), h.flags(), bytes, h.digest());
        long[] first = g.getValue().get(0);
        written = engine.lookup(new StreamId(first[0], first[1]), first[2]);
      } else {
        engine.putShared(flat, h.global(), h.hash(), h.flags(), written);
      }
    }
  }

  /**
   * What a key holds besides the payload: keys holding the same are written again as one record.
   * Equal by the digest's bytes (null when the record has none).
   */
  private record Held(byte flags, long global, int hash, byte[] digest) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Held h
          && flags == h.flags
          && global == h.global
          && hash == h.hash
          && Arrays.equals(digest, h.digest);
    }

    @Override
    public int hashCode() {
      return (Long.hashCode(global) * 31 + hash) * 31 + flags + Arrays.hashCode(digest);
    }
  }

  private void pace(long startedNanos, long copied) throws InterruptedException {
    if (bytesPerSecond <= 0) {
      return;
    }
    long dueNanos = startedNanos + TimeUnit.SECONDS.toNanos(1) * copied / bytesPerSecond;
    long wait = dueNanos - System.nanoTime();
    if (wait > 0) {
      TimeUnit.NANOSECONDS.sleep(wait);
    }
  }
}
