package io.vcorfu.logunit.internal;

import io.vcorfu.logunit.RecoveryStats;
import io.vcorfu.logunit.StorageMode;
import io.vcorfu.logunit.StorageOptions;
import io.vcorfu.protocol.ServerErrorException;
import io.vcorfu.protocol.StreamId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
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
 * SegmentRefs}: which segments are still live; rolling to a new segment happens here, as it
 * writes), and recovery ({@link SegmentRecovery}, which rebuilds the index from the segments on
 * open). The engine itself is the write path and the monitor every part is guarded by.
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
  private int activeSegment;
  private long activeOffset;
  private IndexFile activeIndex = new IndexFile();
  private boolean writingMarks;

  /** The namespaces the active segment spelled out so far: its records name them by number. */
  private RecordCodec.Names activeNames = new RecordCodec.Names();

  /** The last {@link SegmentWriter#forcedPosition()} written into the segments, or -1. */
  private long markedForced = -1;

  /** Set once in {@link #open}, before the engine is shared. */
  private volatile SegmentWriter writer;

  private RecoveryStats recoveryStats = RecoveryStats.NONE;
  private boolean closed;

  /** Compacts sealed segments (durable mode); null in memory. */
  private SegmentCompactor compactor;

  /** Runs background compaction passes; null when off. */
  private java.util.concurrent.ScheduledExecutorService compaction;

  /** Serializes compaction passes (the background one and those asked for). */
  private final Object compactionLock = new Object();

  /** How often the background compaction looks for segments to compact. */
  static final long COMPACTION_CHECK_MILLIS = 1_000;

  /** Settles the files once the engine is idle; used by the compaction thread only. */
  private final IdleSettle idleSettle = new IdleSettle();

  private StorageEngine(StorageOptions options) {
    this.options = options;
    this.durable = options.mode() == StorageMode.DURABLE;
    this.segments = new SegmentRefs(durable, () -> activeSegment, () -> writer);
    this.index = new RecordIndex(durable, segments);
  }

  /** Opens the engine; in durable mode recovers the data directory first. */
  public static StorageEngine open(StorageOptions options) throws IOException {
    StorageEngine engine = new StorageEngine(options);
    if (engine.durable) {
      synchronized (engine) {
        SegmentRecovery.Result r =
            new SegmentRecovery(options.directory(), options.directorySync(), engine).recover();
        engine.activeSegment = r.activeSegment();
        engine.activeOffset = r.activeLength();
        engine.recoveryStats = r.stats();
        engine.activeNames = r.activeNames();
        engine.writer =
            new SegmentWriter(
                options.directory(),
                options.directorySync(),
                options.fsyncPolicy(),
                options.fsyncInterval().toMillis(),
                r.activeSegment(),
                r.activeLength(),
                r.channels(),
                options.forceObserver());
        engine.compactor = new SegmentCompactor(engine, options.compactionBytesPerSecond());
      }
      if (options.compactBelow() > 0) {
        engine.startCompaction();
      }
    }
    return engine;
  }

  private void startCompaction() {
    compaction =
        java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "compaction-" + options.directory().getFileName());
              t.setDaemon(true);
              return t;
            });
    compaction.scheduleWithFixedDelay(
        () -> {
          try {
            compact(options.compactBelow());
            idleSettle.check(this);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } catch (RuntimeException e) {
            if (!isClosed()) {
              org.slf4j.LoggerFactory.getLogger(StorageEngine.class)
                  .warn("Compaction of {} failed; it is tried again", options.directory(), e);
            }
          }
        },
        COMPACTION_CHECK_MILLIS,
        COMPACTION_CHECK_MILLIS,
        java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  /** Where the next record goes, as one number that grows with every record written. */
  synchronized long writePosition() {
    return ((long) activeSegment << 40) | activeOffset;
  }

  /**
   * Seals the active segment when it holds at least {@code minBytes} and at most half of that is
   * live, so that compaction can take it; true when it did.
   */
  synchronized boolean sealIfMostlyDead(long minBytes) {
    if (closed || !durable || writingMarks || activeOffset < minBytes) {
      return false;
    }
    if (segments.liveBytes(activeSegment) * 2 > activeOffset) {
      return false;
    }
    roll();
    return true;
  }

  private synchronized boolean isClosed() {
    return closed;
  }

  /**
   * Compacts every sealed segment whose live bytes are below {@code threshold} of its length (in
   * [0, 1]); returns how many segments were deleted. Does nothing in memory mode.
   */
  public int compact(double threshold) throws InterruptedException {
    if (compactor == null) {
      return 0;
    }
    synchronized (compactionLock) {
      return compactor.pass(threshold, this::isClosed);
    }
  }

  /** What the segment files take, what of it is live, and what compaction did. */
  public synchronized io.vcorfu.logunit.SpaceReport space() {
    if (!durable) {
      return io.vcorfu.logunit.SpaceReport.NONE;
    }
    long file = activeOffset;
    long live = segments.liveBytes(activeSegment);
    List<SegmentRefs.Space> sealed = segments.sealedSpace();
    for (SegmentRefs.Space sp : sealed) {
      file += sp.length();
      live += sp.liveBytes();
    }
    SegmentCompactor.Stats c = compactor.stats();
    return new io.vcorfu.logunit.SpaceReport(
        file,
        live,
        sealed.size() + 1,
        c.segmentsCompacted(),
        c.copiedBytes(),
        c.reclaimedBytes(),
        c.compacting());
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
    long needed = Long.MAX_VALUE;
    for (NamespaceIndex n : index.all()) {
      if (!streams.test(n.id)) {
        continue;
      }
      counts[0]++;
      if (n.trimMark > 0) {
        counts[1]++;
        needed = Math.min(needed, n.floorGlobal + 1);
      }
    }
    return needed;
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
   * replacing what any of the keys held.
   */
  public synchronized void put(long[] keys, long global, int hash, byte flags, byte[] payload) {
    checkOpen();
    SegmentRecord op = SegmentRecord.entry(flags, global, hash, keys, payload);
    if (durable) {
      byte[] frame = encode(op);
      long at = reserve(frame.length);
      byte[] marker = forcedMarker();
      if (marker != null) {
        at += marker.length;
        activeOffset += marker.length;
      }
      op.payloadPos = at + RecordCodec.payloadOffsetInFrame(op, frame);
      markWritten(op, writer.append(marker, frame));
      activeIndex.add(op);
    }
    apply(op, activeSegment, false);
  }

  /**
   * Indexes under {@code keys} the payload {@code stored} (a record found by {@link #lookup})
   * holds, without storing the bytes again: one small record naming where they are. The caller has
   * made sure the payload is exactly the bytes these keys must hold.
   */
  public synchronized void putShared(
      long[] keys, long global, int hash, byte flags, IndexedRecord stored) {
    checkOpen();
    if (!durable) {
      apply(SegmentRecord.entry(flags, global, hash, keys, stored.payload()), activeSegment, false);
      return;
    }
    log(SegmentRecord.shared(flags, global, hash, keys, stored.pos(), stored.len()));
  }

  /** Sets the committed flag of the records at {@code keys}. */
  public synchronized void commit(long[] keys) {
    checkOpen();
    log(SegmentRecord.commit(keys));
  }

  /**
   * Raises {@code ns}'s trim mark to {@code before}; a mark never goes back, and a call that would
   * not raise it writes nothing. Returns the mark in force afterwards.
   */
  public synchronized long trim(StreamId ns, long before) {
    checkOpen();
    NamespaceIndex n = index.namespace(ns);
    if (before > n.trimMark) {
      log(
          SegmentRecord.marks(
              ns.msb(),
              ns.lsb(),
              before,
              n.maxAddress,
              RecordIndex.lastGlobalBelow(n, before),
              index.maxGlobal()));
    }
    return trimMark(ns);
  }

  /**
   * Takes the trim mark {@code before} a chain holds for {@code ns} (with the global address of the
   * last DATA record below it, {@code floorGlobal}), whatever this engine holds: a replica rebuilt
   * from the chain adopts its marks. A mark never goes back. Returns the mark in force afterwards.
   */
  public synchronized long adoptTrim(StreamId ns, long before, long floorGlobal) {
    checkOpen();
    NamespaceIndex n = index.namespace(ns);
    if (before > n.trimMark) {
      log(
          SegmentRecord.marks(
              ns.msb(),
              ns.lsb(),
              before,
              Math.max(n.maxAddress, before - 1),
              Math.max(floorGlobal, RecordIndex.lastGlobalBelow(n, before)),
              index.maxGlobal()));
    }
    return trimMark(ns);
  }

  /** Global address of the last DATA record {@code ns} trimmed away, -1 when none is known. */
  public synchronized long floorGlobal(StreamId ns) {
    return index.knows(ns) ? index.namespace(ns).floorGlobal : -1;
  }

  private void log(SegmentRecord op) {
    if (durable) {
      byte[] frame = encode(op);
      reserve(frame.length);
      byte[] marker = forcedMarker();
      if (marker != null) {
        activeOffset += marker.length;
      }
      markWritten(op, writer.append(marker, frame));
      activeIndex.add(op);
    }
    apply(op, activeSegment, false);
  }

  /**
   * A FORCED record to write just before the next record of the active segment, when the writer
   * forced more of that segment since the last one; null otherwise. It goes in the same writer item
   * as the record, so it never costs a force of its own, and there is at most one per force.
   */
  private byte[] forcedMarker() {
    long forced = writer.forcedPosition();
    if (SegmentPosition.segment(forced) != activeSegment
        || SegmentPosition.offset(forced) == 0
        || forced <= markedForced) {
      return null;
    }
    markedForced = forced;
    return RecordCodec.frame(SegmentRecord.forced(SegmentPosition.offset(forced)));
  }

  /**
   * Runs {@code body} (which calls this engine) under the engine's monitor with the writer held, so
   * everything it writes is forced in one batch; in memory mode it just runs it.
   */
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

  /** How many times the active segment was forced to disk since the engine opened (0 in memory). */
  public long forcedWrites() {
    SegmentWriter w = writer;
    return w == null ? 0 : w.forces();
  }

  /** Nanoseconds those forces took in all (0 in memory). */
  public long forceNanos() {
    SegmentWriter w = writer;
    return w == null ? 0 : w.forceNanos();
  }

  /** Records those forces made durable (over {@link #forcedWrites}: the mean group commit). */
  public long forcedAppends() {
    SegmentWriter w = writer;
    return w == null ? 0 : w.forcedAppends();
  }

  /** Records that the namespaces {@code op} touches were last written by record {@code seq}. */
  private void markWritten(SegmentRecord op, long seq) {
    for (int i = 0; i + 2 < op.keys.length; i += 3) {
      index.namespace(op.keys[i], op.keys[i + 1]).lastSeq = seq;
    }
  }

  /**
   * Like {@link #barrier()}, for a reader of namespace {@code ns} only: completes at once when
   * every record that touched {@code ns} is already durable per the policy (and in the file), so a
   * read does not wait for other namespaces' pending writes.
   */
  public synchronized CompletableFuture<Void> barrierFor(StreamId ns) {
    if (durable && !closed) {
      NamespaceIndex n = index.knows(ns) ? index.namespace(ns) : null;
      if (n == null || n.lastSeq <= writer.durableSeq()) {
        return CompletableFuture.completedFuture(null);
      }
    }
    return barrier();
  }

  /** Completes when everything done so far is durable per the fsync policy. */
  public synchronized CompletableFuture<Void> barrier() {
    if (!durable) {
      return closed
          ? CompletableFuture.failedFuture(closedError())
          : CompletableFuture.completedFuture(null);
    }
    checkOpen();
    return writer.barrier();
  }

  /**
   * The bytes {@code ns} holds at {@code s}'s address, where {@code s} was found by {@link
   * #lookup}: call after a {@link #barrier()} taken after the lookup. When {@code s}'s segment is
   * gone (the slot was trimmed, or compaction moved it), looks the slot up again and reads it where
   * it is now; null when it was trimmed (or replaced) meanwhile.
   */
  public byte[] load(StreamId ns, IndexedRecord s) {
    IndexedRecord at = s;
    while (true) {
      byte[] bytes = load(at);
      if (bytes != null) {
        return bytes;
      }
      IndexedRecord now;
      synchronized (this) {
        now = index.lookup(ns, s.address());
      }
      if (now == null
          || now.pos() == at.pos()
          || now.global() != s.global()
          || now.hash() != s.hash()
          || now.hole() != s.hole()) {
        return null;
      }
      // Moved by compaction: the same bytes at a new position, durable before the old was deleted.
      at = now;
    }
  }

  /**
   * The bytes of a record found by {@link #lookup}; call after a {@link #barrier()} taken after the
   * lookup. Null when the record's segment was deleted meanwhile (see {@link #load(StreamId,
   * IndexedRecord)}).
   */
  public byte[] load(IndexedRecord s) {
    if (s.payload() != null) {
      return s.payload();
    }
    SegmentWriter w = writer;
    FileChannel ch = w == null ? null : w.channel(SegmentPosition.segment(s.pos()));
    if (ch == null) {
      return null;
    }
    ByteBuffer b = ByteBuffer.allocate(s.len());
    long at = SegmentPosition.offset(s.pos());
    try {
      while (b.hasRemaining()) {
        int n = ch.read(b, at + b.position());
        if (n < 0) {
          throw new ServerErrorException(
              "A segment file ended before a record it holds; "
                  + "the data directory was changed behind the replica's back.");
        }
      }
    } catch (ClosedChannelException e) {
      return null;
    } catch (IOException e) {
      throw new ServerErrorException(
          "Reading a record from its segment failed: " + e.getMessage(), e);
    }
    return b.array();
  }

  // ---------------------------------------------------------------- index maintenance

  /**
   * Applies one record to the index. Used for live changes and by recovery ({@code collectForIndex}
   * also collects the record for the active segment's future index file).
   */
  void apply(SegmentRecord op, int segment, boolean collectForIndex) {
    assert Thread.holdsLock(this) : "the index is changed only under the engine's monitor";
    if (collectForIndex) {
      activeIndex.add(op);
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
            out.add(new SegmentCompactor.Slot(n.id, n.address[s], n.pos[s], n.len[s], there));
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

  /**
   * The frame of {@code op} for the active segment, rolling first when it may not fit: a frame
   * names namespaces the way the segment it lands in does, so it must not roll after encoding.
   */
  private byte[] encode(SegmentRecord op) {
    int most = RecordCodec.maxFrameLength(op) + FORCED_FRAME;
    if (!writingMarks && activeOffset > 0 && activeOffset + most > options.segmentSize()) {
      roll();
    }
    return RecordCodec.frame(op, activeNames);
  }

  /** The length of a FORCED record's frame. */
  private static final int FORCED_FRAME = RecordCodec.frame(SegmentRecord.forced(0)).length;

  /** Reserves {@code length} bytes in the active segment ({@link #encode} rolled if needed). */
  private long reserve(int length) {
    long at = activeOffset;
    activeOffset += length;
    return at;
  }

  private void roll() {
    int sealed = activeSegment;
    writer.roll(sealed, activeOffset, activeIndex.finish(sealed, activeOffset), sealed + 1);
    segments.sealed(sealed, activeOffset);
    activeSegment = sealed + 1;
    activeOffset = 0;
    activeIndex = new IndexFile();
    activeNames = new RecordCodec.Names();
    if (!segments.live(sealed)) {
      segments.deleted(sealed);
      writer.delete(sealed);
    }
    // Trim marks must outlive the segments that recorded them: repeat them in every new segment.
    writingMarks = true;
    try {
      for (NamespaceIndex n : index.all()) {
        if (n.trimMark > 0) {
          log(
              SegmentRecord.marks(
                  n.id.msb(),
                  n.id.lsb(),
                  n.trimMark,
                  n.maxAddress,
                  n.floorGlobal,
                  index.maxGlobal()));
        }
      }
    } finally {
      writingMarks = false;
    }
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
      compaction.shutdownNow();
      try {
        compaction.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (w != null) {
      w.close();
    }
  }
}
