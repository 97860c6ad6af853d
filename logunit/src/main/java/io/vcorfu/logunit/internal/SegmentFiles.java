package io.vcorfu.logunit.internal;

import io.vcorfu.logunit.DirectorySync;
import io.vcorfu.logunit.ForceObserver;
import io.vcorfu.logunit.FsyncPolicy;
import io.vcorfu.logunit.internal.WriteQueue.Roll;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the {@link SegmentWriter} does to the files: the active segment's buffered writes and
 * forces, the zeroes ahead of its records, seals, deletions and the directory's forces. Used only
 * by whoever holds the writer's lock (the writer's thread, or a caller writing its own records), so
 * its state needs no other guard; the volatile fields are read by other threads.
 *
 * <p>The invariants the writer states hold here: {@link #forcedPosition()} only ever names bytes a
 * completed force covered, a new segment's directory entry (and the index file renamed into place
 * when sealing the previous one) is forced before any record in it is written, and {@link
 * #markClosed} ends a segment written to with a FORCED record covering all of it.
 */
final class SegmentFiles {
  private static final Logger LOG = LoggerFactory.getLogger(SegmentFiles.class);
  private static final int BUFFER = 1 << 20;

  private final Path directory;
  private final DirectorySync directorySync;
  private final FsyncPolicy policy;
  private final long intervalNanos;
  private final ForceObserver forceObserver;
  private final Map<Integer, FileChannel> channels = new ConcurrentHashMap<>();
  private final ByteBuffer buffer = ByteBuffer.allocate(BUFFER);
  private FileChannel active;
  private int activeId;

  /** Bytes of the active segment handed to the operating system so far. */
  private long written;

  /** The zeroed bytes after them (none under {@link FsyncPolicy#NONE}, which never forces). */
  private final Preallocation preallocation;

  /** Something was appended since open, so close ends the segment with a FORCED record. */
  private boolean appended;

  /** The directory has entries created, renamed or deleted since it was last forced. */
  private boolean directoryDirty;

  private boolean dirty;
  private long lastForce = System.nanoTime();
  private volatile long forces;

  /** Time spent forcing the active segment, and the appends those forces covered. */
  private volatile long forceNanos;

  private volatile long forcedAppends;

  private long unforcedAppends;

  /** Segment and offset (a {@link SegmentPosition}) up to which the active segment is forced. */
  private volatile long forcedPosition;

  SegmentFiles(
      Path directory,
      DirectorySync directorySync,
      FsyncPolicy policy,
      long intervalNanos,
      int activeSegment,
      long activeLength,
      Map<Integer, FileChannel> openChannels,
      ForceObserver forceObserver,
      long segmentSize) {
    this.directory = directory;
    this.directorySync = directorySync;
    this.policy = policy;
    this.intervalNanos = intervalNanos;
    this.forceObserver = forceObserver;
    this.channels.putAll(openChannels);
    this.active = channels.get(activeSegment);
    this.activeId = activeSegment;
    this.written = activeLength;
    this.preallocation = new Preallocation(activeSegment, activeLength, segmentSize);
    this.forcedPosition = SegmentPosition.of(activeSegment, activeLength);
  }

  /**
   * How far the active segment is known forced, as a {@link SegmentPosition}: every byte of that
   * segment before that offset was covered by a completed force.
   */
  long forcedPosition() {
    return forcedPosition;
  }

  /** Where the next record goes, as a {@link SegmentPosition}. */
  long position() {
    return SegmentPosition.of(activeId, written);
  }

  /** Writes a record, preceded by the FORCED record {@code marker} unless it is null. */
  void append(byte[] marker, byte[] frame) throws IOException {
    if (marker != null) {
      write(marker);
    }
    write(frame);
    appended = true;
    unforcedAppends++;
  }

  /**
   * After a batch written from {@code batchStart} (a {@link #position()}): zeroes ahead of the
   * records as {@link Preallocation#keepAhead} says (never under {@link FsyncPolicy#NONE}).
   */
  void keepAhead(long batchStart) throws IOException {
    if (policy != FsyncPolicy.NONE) {
      boolean sameSegment = SegmentPosition.segment(batchStart) == activeId;
      long batchBytes = sameSegment ? written - SegmentPosition.offset(batchStart) : written;
      preallocation.keepAhead(active, written, batchBytes);
    }
  }

  /** True when {@link #keepAhead} would zero more now. */
  boolean zeroesDue() {
    return policy != FsyncPolicy.NONE && preallocation.due(written);
  }

  /** Nanoseconds until the interval's next force is due (at least 1). */
  long untilNextForce() {
    return Math.max(1, intervalNanos - (System.nanoTime() - lastForce));
  }

  /** Closes every segment's channel. */
  void closeChannels() throws IOException {
    for (FileChannel ch : channels.values()) {
      ch.close();
    }
    channels.clear();
  }

  static Path segmentPath(Path dir, int id) {
    return dir.resolve(String.format("segment-%06d.log", id));
  }

  static Path indexPath(Path dir, int id) {
    return dir.resolve(String.format("segment-%06d.idx", id));
  }

  /** Forces of the active segment so far (written by the writer thread only). */
  long forces() {
    return forces;
  }

  /** How far segment {@code id}'s file reaches with the zeroes after its records (any thread). */
  long fileEnd(int id) {
    return preallocation.fileEnd(id);
  }

  /** Nanoseconds spent in forces of the active segment so far. */
  long forceNanos() {
    return forceNanos;
  }

  /** Appends made durable by those forces: over {@link #forces}, the mean group-commit size. */
  long forcedAppends() {
    return forcedAppends;
  }

  /** The channel of a segment for positional reads, or null once it was deleted. */
  FileChannel channel(int segment) {
    return channels.get(segment);
  }

  void write(byte[] frame) throws IOException {
    if (frame.length > buffer.remaining()) {
      flush();
      if (frame.length > buffer.capacity()) {
        written += frame.length;
        writeFully(active, ByteBuffer.wrap(frame));
        dirty = true;
        return;
      }
    }
    buffer.put(frame);
  }

  void flush() throws IOException {
    if (buffer.position() > 0) {
      buffer.flip();
      written += buffer.remaining();
      writeFully(active, buffer);
      buffer.clear();
      dirty = true;
    }
  }

  static void writeFully(FileChannel ch, ByteBuffer b) throws IOException {
    while (b.hasRemaining()) {
      ch.write(b);
    }
  }

  void force() throws IOException {
    if (dirty) {
      long started = System.nanoTime();
      active.force(false);
      long took = System.nanoTime() - started;
      forceNanos += took;
      dirty = false;
      forces++;
      forcedAppends += unforcedAppends;
      long group = unforcedAppends;
      unforcedAppends = 0;
      try {
        forceObserver.forced(took, group);
      } catch (RuntimeException e) {
        // An observer's failure must never fail a write; it only loses a sample.
        LOG.warn("force observer failed", e);
      }
    }
    // Everything written is covered now (when nothing was dirty, an earlier force covered it).
    forcedPosition = SegmentPosition.of(activeId, written);
    lastForce = System.nanoTime();
  }

  void forceDirectory() throws IOException {
    directorySync.force(directory);
    directoryDirty = false;
  }

  /**
   * On close, after the final force: ends the active segment with a FORCED record covering all of
   * it (forced too), so damage anywhere in it is known to be corruption on the next start, and
   * forces the directory if an entry changed since it last was.
   */
  void markClosed() throws IOException {
    if (appended && written > 0) {
      write(RecordCodec.frame(SegmentRecord.forced(written)));
      flush();
    }
    // A closed segment ends at its last record, as a sealed one does.
    dirty |= preallocation.trim(active, written);
    force();
    if (directoryDirty) {
      forceDirectory();
    }
  }

  void forceIfIntervalElapsed() throws IOException {
    if (policy == FsyncPolicy.INTERVAL && System.nanoTime() - lastForce >= intervalNanos) {
      force();
    }
  }

  void seal(Roll r) throws IOException {
    flush();
    // Cut to its records, durably (the force below) before its index file says it is sealed.
    dirty |= preallocation.trim(active, written);
    if (active.size() != r.sealedLength()) {
      throw new IOException(
          "segment "
              + r.sealed()
              + " has "
              + active.size()
              + " bytes but the index expects "
              + r.sealedLength());
    }
    if (policy != FsyncPolicy.NONE) {
      force();
    }
    Path tmp = directory.resolve(indexPath(directory, r.sealed()).getFileName() + ".tmp");
    try (FileChannel ch =
        FileChannel.open(
            tmp,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      writeFully(ch, ByteBuffer.wrap(r.index()));
      if (policy != FsyncPolicy.NONE) {
        ch.force(true);
      }
    }
    Files.move(tmp, indexPath(directory, r.sealed()), StandardCopyOption.ATOMIC_MOVE);
    active =
        FileChannel.open(
            segmentPath(directory, r.next()),
            StandardOpenOption.CREATE_NEW,
            StandardOpenOption.READ,
            StandardOpenOption.WRITE);
    channels.put(r.next(), active);
    activeId = r.next();
    written = 0;
    preallocation.reset(r.next());
    dirty = true;
    directoryDirty = true;
    if (policy != FsyncPolicy.NONE) {
      // Before any record of the new segment is written, so before any is acknowledged.
      forceDirectory();
    }
    LOG.debug("Sealed segment {} ({} bytes) in {}", r.sealed(), r.sealedLength(), directory);
  }

  void deleteSegment(int segment) throws IOException {
    FileChannel ch = channels.remove(segment);
    if (ch != null) {
      ch.close();
    }
    Files.deleteIfExists(indexPath(directory, segment));
    Files.deleteIfExists(segmentPath(directory, segment));
    directoryDirty = true;
    LOG.debug("Deleted segment {} of {}: nothing in it is live", segment, directory);
  }
}
