package io.vcorfu.logunit.internal;

import io.vcorfu.logunit.RecoveryStats;
import io.vcorfu.logunit.StorageMode;
import io.vcorfu.logunit.StorageOptions;
import io.vcorfu.protocol.ServerErrorException;
import io.vcorfu.protocol.StreamId;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The storage engine both replica kinds run on: records keyed by (namespace, address), each with
 * entry bytes and flags (committed, hole). In memory mode the bytes stay in the index; in durable
 * mode every change is appended as a checksummed record to the active segment by a {@link
 * SegmentWriter}, and the index keeps only positions.
 *
 * <p>Its parts: the {@link RecordIndex} (what each address holds), the segment lifecycle ({@link
 * SegmentRefs}: which segments are still live), the {@link ActiveSegment} (where records are
 * written; rolling to a new segment happens there, as it writes), reads of payloads from the
 * segment files ({@link SegmentReads}), compaction ({@link SegmentCompactor}, run in the background
 * by {@link BackgroundCompaction}), and recovery ({@link SegmentRecovery}, which rebuilds the index
 * from the segments on open). The engine itself is the entry to the write path and the monitor
 * every part is guarded by.
 *
 * <p>The engine does not enforce write-once: replicas check, then write, while holding this
 * engine's monitor (all methods here are synchronized on it). Mutations are visible at once; {@link
 * #barrier()} returns a future that completes when everything done so far is durable per the fsync
 * policy, and replicas complete every call through it, so nobody is told about state that a crash
 * could still take back.
 */
public final class StorageEngine implements AutoCloseable {
  public static final byte COMMITTED = 1;
  public static final byte HOLE = 2;

  // All fields below are guarded by this engine's monitor.
  private final StorageOptions options;
  private final boolean durable;
  private final SegmentRefs segments;
  private final RecordIndex index;
  private final ActiveSegment active;
  private final SegmentReads reads;

  /** Set once in {@link #open}, before the engine is shared. */
  private volatile SegmentWriter writer;

  private RecoveryStats recoveryStats = RecoveryStats.NONE;
  private boolean closed;

  /** Compacts sealed segments (durable mode); null in memory. */
  private SegmentCompactor compactor;

  /** Runs background compaction passes; null when off. */
  private BackgroundCompaction compaction;

  /** Serializes compaction passes (the background one and those asked for). */
  private final Object compactionLock = new Object();

  private StorageEngine(StorageOptions options) {
    this.options = options;
    this.durable = options.mode() == StorageMode.DURABLE;
    this.segments = new SegmentRefs(durable, this::activeSegment, () -> writer);
    this.index = new RecordIndex(durable, segments);
    this.active = new ActiveSegment(this, options, segments, index);
    this.reads = new SegmentReads(this, () -> writer);
  }

  /** The segment being written now (recovery replays with 0, before it knows). */
  private int activeSegment() {
    return active.segment();
  }

  /** Opens the engine; in durable mode recovers the data directory first. */
  public static StorageEngine open(StorageOptions options) throws IOException {
    StorageEngine engine = new StorageEngine(options);
    if (engine.durable) {
      synchronized (engine) {
        SegmentRecovery.Result r =
            new SegmentRecovery(options.directory(), options.directorySync(), engine).recover();
        engine.recoveryStats = r.stats();
        engine.writer =
            new SegmentWriter(
                options.directory(),
                options.directorySync(),
                options.fsyncPolicy(),
                options.fsyncInterval().toMillis(),
                r.activeSegment(),
                r.activeLength(),
                r.channels(),
                options.forceObserver(),
                options.segmentSize(),
                options.completionHome());
        engine.active.start(r.activeSegment(), r.activeLength(), r.activeNames(), engine.writer);
        engine.compactor = new SegmentCompactor(engine, options.compactionBytesPerSecond());
      }
      if (options.compactBelow() > 0) {
        engine.compaction = new BackgroundCompaction(engine);
      }
    }
    return engine;
  }

  /** Where the next record goes, as one number that grows with every record written. */
  synchronized long writePosition() {
    return active.position();
  }

  /**
   * Seals the active segment when it holds at least {@code minBytes} and at most half of that is
   * live, so that compaction can take it; true when it did.
   */
  synchronized boolean sealIfMostlyDead(long minBytes) {
    if (closed || !durable || active.writingMarks() || active.offset() < minBytes) {
      return false;
    }
    if (segments.liveBytes(active.segment()) * 2 > active.offset()) {
      return false;
    }
    active.roll();
    return true;
  }

  synchronized boolean isClosed() {
    return closed;
  }

  /**
   * Compacts every sealed segment whose live bytes are below {@code threshold} of its length (in
   * [0, 1]), at {@code nowNanos}; returns how many segments were deleted. A {@code background} pass
   * spares dying segments (see {@link SegmentCompactor}). Does nothing in memory mode.
   */
  public int compact(double threshold, long nowNanos, boolean background)
      throws InterruptedException {
    if (compactor == null) {
      return 0;
    }
    synchronized (compactionLock) {
      return compactor.pass(threshold, this::isClosed, nowNanos, background);
    }
  }

  /** What the segment files take, what of it is live, and what compaction did. */
  public synchronized io.vcorfu.logunit.SpaceReport space() {
    return durable
        ? segments.report(
            Math.max(active.offset(), writer.fileEnd(active.segment())),
            active.segment(),
            compactor.stats())
        : io.vcorfu.logunit.SpaceReport.NONE;
  }

  public StorageOptions options() {
    return options;
  }

  public synchronized RecoveryStats recoveryStats() {
    return recoveryStats;
  }

  /** The record at {@code address} of {@code ns}, or null when there is none (or it is trimmed). */
  public synchronized IndexedRecord lookup(StreamId ns, long address) {
    return index.lookup(ns, address);
  }

  /** The addresses of {@code ns}'s uncommitted DATA records above its trim mark, ascending. */
  public synchronized long[] uncommittedData(StreamId ns) {
    return index.uncommittedData(ns);
  }

  /** See {@link io.vcorfu.logunit.ReplicaStore#missing(StreamId, long, long)}. */
  public synchronized long missing(
      StreamId ns, long from, long to, java.util.function.LongPredicate counted) {
    return index.missing(ns, from, to, counted);
  }

  /** True once anything (a record or a trim) was ever stored for {@code ns}. */
  public synchronized boolean knows(StreamId ns) {
    return index.knows(ns);
  }

  public synchronized long trimMark(StreamId ns) {
    return index.trimMark(ns);
  }

  /** Highest address ever stored in {@code ns} (trimming does not lower it), or -1. */
  public synchronized long maxAddress(StreamId ns) {
    return index.maxAddress(ns);
  }

  /**
   * Global address of the highest-addressed DATA record ever stored in {@code ns} (holes after it
   * are skipped, and trimming it away does not forget it), or -1 when {@code ns} never held data. A
   * restarted sequencer rebuilds the stream's last global address from it.
   */
  public synchronized long lastGlobal(StreamId ns) {
    return index.lastGlobal(ns);
  }

  /**
   * The lowest global address the log keeps for the namespaces {@code streams} accepts that were
   * trimmed: above the last DATA record each one trimmed away; {@link Long#MAX_VALUE} when none was
   * trimmed. Counts them into {@code counts} ({streams, trimmed streams}).
   */
  public synchronized long neededFrom(
      java.util.function.Predicate<StreamId> streams, long[] counts) {
    return index.neededFrom(streams, counts);
  }

  /** Highest global address of any DATA record ever stored, or -1. */
  public synchronized long maxGlobal() {
    return index.maxGlobal();
  }

  public synchronized List<StreamId> namespaces() {
    return index.namespaces();
  }

  /**
   * Stores one record under every key (flattened (msb, lsb, address) triples) in one atomic record,
   * replacing what any of the keys held, with the entry's {@code digest} (see {@code ChainDigests};
   * computed by the caller from the bytes it received; ignored for a hole).
   */
  public synchronized void put(
      long[] keys, long global, int hash, byte flags, byte[] payload, byte[] digest) {
    put(keys, global, hash, flags, payload, digest, 0);
  }

  /**
   * {@link #put(long[], long, int, byte, byte[], byte[])} with the payload's CRC32C (0: not known).
   */
  public synchronized void put(
      long[] keys, long global, int hash, byte flags, byte[] payload, byte[] digest, int crc) {
    checkOpen();
    SegmentRecord op =
        SegmentRecord.entry(flags, global, hash, keys, payload)
            .digest((flags & HOLE) != 0 ? null : digest)
            .crc(crc);
    if (durable) {
      active.append(op, true);
    }
    apply(op, active.segment(), false);
  }

  /**
   * Indexes under {@code keys} the payload {@code stored} (a record found by {@link #lookup})
   * holds, without storing the bytes again: one small record naming where they are. The caller has
   * made sure the payload is exactly the bytes these keys must hold.
   */
  public synchronized void putShared(
      long[] keys, long global, int hash, byte flags, IndexedRecord stored) {
    checkOpen();
    byte[] digest = (flags & HOLE) != 0 ? null : stored.digest();
    if (!durable) {
      apply(
          SegmentRecord.entry(flags, global, hash, keys, stored.payload())
              .digest(digest)
              .crc(stored.crc()),
          active.segment(),
          false);
      return;
    }
    log(
        SegmentRecord.shared(flags, global, hash, keys, stored.pos(), stored.len())
            .digest(digest)
            .crc(stored.crc()));
  }

  /** Sets the committed flag of the records at {@code keys}. */
  public synchronized void commit(long[] keys) {
    checkOpen();
    log(SegmentRecord.commit(keys));
  }

  /**
   * Raises {@code ns}'s trim mark to {@code before}, or to the lowest of its pins when that is
   * lower ({@link StreamPins}); a mark never goes back, and a call that would not raise it writes
   * nothing. Returns the mark in force afterwards.
   */
  public synchronized long trim(StreamId ns, long before) {
    checkOpen();
    NamespaceIndex n = index.namespace(ns);
    before = StreamPins.clamp(n, before);
    return logMarks(ns, n, before, n.maxAddress, -1, null);
  }

  /**
   * Takes the trim mark {@code before} a chain holds for {@code ns} (with the global address of the
   * last DATA record below it, {@code floorGlobal}), whatever this engine holds: a replica rebuilt
   * from the chain adopts its marks. A mark never goes back. Returns the mark in force afterwards.
   */
  public synchronized long adoptTrim(StreamId ns, long before, long floorGlobal, byte[] anchor) {
    checkOpen();
    NamespaceIndex n = index.namespace(ns);
    return logMarks(ns, n, before, Math.max(n.maxAddress, before - 1), floorGlobal, anchor);
  }

  /**
   * Logs {@code ns}'s marks with the trim mark {@code before} when it raises it; the mark after.
   */
  private long logMarks(
      StreamId ns, NamespaceIndex n, long before, long maxAddress, long floor, byte[] anchor) {
    if (before > n.trimMark) {
      long lastBelow = Math.max(floor, RecordIndex.lastGlobalBelow(n, before));
      log(
          SegmentRecord.marks(ns.msb(), ns.lsb(), before, maxAddress, lastBelow, index.maxGlobal())
              .anchor(anchor != null ? anchor : ChainIndex.anchorBelow(n, before)));
    }
    return trimMark(ns);
  }

  /** The index, for {@link ChainIndex} to read and note under this engine's monitor. */
  RecordIndex index() {
    return index;
  }

  /** Global address of the last DATA record {@code ns} trimmed away, -1 when none is known. */
  public synchronized long floorGlobal(StreamId ns) {
    return index.knows(ns) ? index.namespace(ns).floorGlobal : -1;
  }

  void log(SegmentRecord op) {
    if (durable) {
      active.append(op, false);
    }
    apply(op, active.segment(), false);
  }

  /** Runs {@code body} under the engine's monitor and the writer's hold: one batch, one force. */
  public synchronized <T> T group(java.util.function.Supplier<T> body) {
    if (!durable) {
      return body.get();
    }
    checkOpen();
    writer.hold();
    try {
      return body.get();
    } finally {
      writer.release();
    }
  }

  /** {forces of the active segment so far, nanoseconds they took, records they covered}. */
  public long[] forceStats() {
    SegmentWriter w = writer;
    return w == null ? new long[3] : new long[] {w.forces(), w.forceNanos(), w.forcedAppends()};
  }

  /** {@link #barrier(boolean)} for a reader of {@code ns}: done once {@code ns}'s records are. */
  public synchronized CompletableFuture<Void> barrierFor(StreamId ns, boolean homed) {
    if (durable && !closed) {
      NamespaceIndex n = index.knows(ns) ? index.namespace(ns) : null;
      if (n == null || n.lastSeq <= writer.durableSeq()) {
        return CompletableFuture.completedFuture(null);
      }
    }
    return barrier(homed);
  }

  /** Completes when everything done so far is durable per the fsync policy. */
  public CompletableFuture<Void> barrier() {
    return barrier(true);
  }

  /**
   * {@link #barrier()}; {@code homed} false for a caller that waits for it on its own thread, never
   * answered on that thread's completion home (which the wait would block).
   */
  public synchronized CompletableFuture<Void> barrier(boolean homed) {
    if (!durable) {
      return closed
          ? CompletableFuture.failedFuture(closedError())
          : CompletableFuture.completedFuture(null);
    }
    checkOpen();
    return writer.barrier(homed);
  }

  /**
   * The bytes {@code ns} holds at {@code s}'s address, where {@code s} was found by {@link
   * #lookup}: call after a {@link #barrier()} taken after the lookup. When {@code s}'s segment is
   * gone (the slot was trimmed, or compaction moved it), looks the slot up again and reads it where
   * it is now; null when it was trimmed (or replaced) meanwhile.
   */
  public byte[] load(StreamId ns, IndexedRecord s) {
    return reads.load(ns, s);
  }

  /** {@link #load(StreamId, IndexedRecord)} with no second lookup (null when gone). */
  public byte[] load(IndexedRecord s) {
    return reads.load(s);
  }

  // ---------------------------------------------------------------- index maintenance

  /**
   * Applies one record to the index. Used for live changes and by recovery ({@code collectForIndex}
   * also collects the record for the active segment's future index file).
   */
  void apply(SegmentRecord op, int segment, boolean collectForIndex) {
    assert Thread.holdsLock(this) : "the index is changed only under the engine's monitor";
    if (collectForIndex) {
      active.collect(op);
    }
    index.apply(op, segment);
  }

  /** Sealed segments holding nothing live (recovery deletes them). */
  List<Integer> deadSegments(List<Integer> sealed) {
    return segments.dead(sealed);
  }

  // ---------------------------------------------------------------- space and compaction

  /** Every sealed segment that exists: its length and estimated live bytes. */
  synchronized List<SegmentRefs.Space> sealedSpace() {
    return segments.sealedSpace();
  }

  /** True while some live slot names {@code segment}. */
  synchronized boolean segmentLive(int segment) {
    return segments.live(segment);
  }

  /**
   * Every live slot that names {@code segment} (its payload, or the record that indexed or
   * committed it), listed a namespace at a time under the monitor.
   */
  List<SegmentCompactor.Slot> slotsNaming(int segment) {
    List<SegmentCompactor.Slot> out = new ArrayList<>();
    List<NamespaceIndex> all;
    synchronized (this) {
      all = new ArrayList<>(index.all());
    }
    for (NamespaceIndex n : all) {
      synchronized (this) {
        for (int s = 0; s < n.size(); s++) {
          boolean there = SegmentPosition.segment(n.pos[s]) == segment;
          if (there || n.keySegment[s] == segment || n.commitSegment[s] == segment) {
            int len = n.len[s] + (n.digest(s) == null ? 0 : 32); // the digest lies beside it
            out.add(new SegmentCompactor.Slot(n.id, n.address[s], n.pos[s], len, there));
          }
        }
      }
    }
    return out;
  }

  /**
   * The record at {@code address} of {@code ns} if its payload is still at {@code pos}, or null.
   */
  synchronized IndexedRecord lookupAt(StreamId ns, long address, long pos) {
    IndexedRecord r = index.lookup(ns, address);
    return r != null && r.pos() == pos ? r : null;
  }

  /** Recovery found sealed segment {@code id} of {@code length} bytes. */
  void sealedSegment(int id, long length) {
    segments.sealed(id, length);
  }

  /** Recovery deleted sealed segment {@code id}: it held nothing live. */
  void deletedSegment(int id) {
    segments.deleted(id);
  }

  private void checkOpen() {
    if (closed) {
      throw closedError();
    }
    Throwable failed = writer == null ? null : writer.failure();
    if (failed != null) {
      throw SegmentWriter.storageFailed(failed);
    }
  }

  private static ServerErrorException closedError() {
    return new ServerErrorException("This replica's storage is closed.");
  }

  /** Waits for everything written to be durable (forced, whatever the policy), then closes. */
  @Override
  public void close() throws IOException {
    SegmentWriter w;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      w = writer;
    }
    if (compaction != null) {
      compaction.stop();
    }
    if (w != null) {
      w.close();
    }
  }
}
