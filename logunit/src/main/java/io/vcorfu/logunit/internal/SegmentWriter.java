package io.vcorfu.logunit.internal;

import io.vcorfu.logunit.DirectorySync;
import io.vcorfu.logunit.ForceObserver;
import io.vcorfu.logunit.FsyncPolicy;
import io.vcorfu.logunit.internal.WriteQueue.Append;
import io.vcorfu.logunit.internal.WriteQueue.Barrier;
import io.vcorfu.logunit.internal.WriteQueue.Delete;
import io.vcorfu.logunit.internal.WriteQueue.Item;
import io.vcorfu.logunit.internal.WriteQueue.Roll;
import io.vcorfu.logunit.internal.WriteQueue.Stop;
import io.vcorfu.protocol.ServerErrorException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single thread that appends records to the active segment, forces it, seals segments (with
 * their index file) and deletes dead ones. Work items are executed strictly in queue order, so a
 * barrier completes only after every record queued before it is written (and, under {@link
 * FsyncPolicy#ALWAYS}, forced).
 *
 * <p>Safety invariants, whatever the policy:
 *
 * <ul>
 *   <li>A segment is deleted only after a force that covers every record queued before the
 *       deletion, so it never disappears before the trim that killed it is durable; the data
 *       directory is forced after the deletions of a batch.
 *   <li>A new segment's directory entry (and the index file renamed into place when sealing the
 *       previous one) is forced before any record in the new segment is written, so before any
 *       write in it is acknowledged ({@link FsyncPolicy#NONE}: at close).
 *   <li>{@link #forcedPosition()} only ever names bytes that a completed force covered; the engine
 *       writes it into the segment as {@link SegmentRecord#FORCED} records, and {@link #close} ends
 *       a segment it wrote to with one covering all of it, so recovery knows which damage is a torn
 *       tail and which is corruption.
 * </ul>
 *
 * <p>Callers enqueue under the engine's monitor, which fixes the file order; barrier futures are
 * completed on a separate thread so that callbacks never stall the writer.
 */
final class SegmentWriter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SegmentWriter.class);
  private static final int BUFFER = 1 << 20;

  private final Path directory;
  private final DirectorySync directorySync;
  private final FsyncPolicy policy;
  private final long intervalNanos;
  private final WriteQueue queue = new WriteQueue();
  private final Map<Integer, FileChannel> channels = new ConcurrentHashMap<>();
  private final ExecutorService completer;
  private final Thread thread;
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
  private volatile Throwable failure;
  private volatile long forces;

  /** Time spent forcing the active segment, and the appends those forces covered (writer only). */
  private volatile long forceNanos;

  private volatile long forcedAppends;

  private long unforcedAppends;

  private final ForceObserver forceObserver;

  /** Every record with a sequence number up to this is in the file and durable per the policy. */
  private volatile long durableSeq;

  /** Segment and offset (a {@link SegmentPosition}) up to which the active segment is forced. */
  private volatile long forcedPosition;

  // Producer side, guarded by the engine's monitor.
  private long lastSeq;

  /**
   * Starts the writer on {@code activeSegment}, whose first {@code activeLength} bytes recovery has
   * already forced.
   */
  SegmentWriter(
      Path directory,
      DirectorySync directorySync,
      FsyncPolicy policy,
      long intervalMillis,
      int activeSegment,
      long activeLength,
      Map<Integer, FileChannel> openChannels,
      ForceObserver forceObserver,
      long segmentSize) {
    this.forceObserver = forceObserver;
    this.directory = directory;
    this.directorySync = directorySync;
    this.policy = policy;
    this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(intervalMillis);
    this.channels.putAll(openChannels);
    this.active = channels.get(activeSegment);
    this.activeId = activeSegment;
    this.written = activeLength;
    this.preallocation = new Preallocation(activeSegment, activeLength, segmentSize);
    this.forcedPosition = SegmentPosition.of(activeSegment, activeLength);
    String name = "vcorfu-segments-" + directory.getFileName();
    this.completer = Executors.newSingleThreadExecutor(r -> daemon(r, name + "-complete"));
    this.thread = daemon(this::run, name);
    thread.start();
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
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

  /** Why the writer stopped, or null while it works. */
  Throwable failure() {
    return failure;
  }

  /** The channel of a segment for positional reads, or null once it was deleted. */
  FileChannel channel(int segment) {
    return channels.get(segment);
  }

  /**
   * Queues a record, preceded by the FORCED record {@code marker} unless it is null (both go in one
   * item, so they are written and forced together); returns its sequence number (see {@link
   * #durableSeq}).
   */
  long append(byte[] marker, byte[] frame) {
    long seq = ++lastSeq;
    enqueue(new Append(marker, frame, seq));
    return seq;
  }

  /**
   * How far the active segment is known forced, as a {@link SegmentPosition}: every byte of that
   * segment before that offset was covered by a completed force.
   */
  long forcedPosition() {
    return forcedPosition;
  }

  /**
   * The highest record sequence number such that it and every record before it are written to the
   * file and durable per the policy (what a barrier completing would promise).
   */
  long durableSeq() {
    return durableSeq;
  }

  void roll(int sealed, long sealedLength, byte[] index, int next) {
    enqueue(new Roll(sealed, sealedLength, index, next));
  }

  void delete(int segment) {
    enqueue(new Delete(segment));
  }

  /**
   * Holds back what is queued from now until the matching {@link #release}, then hands it to the
   * writer at once, so records made together (the steps of one chain write) are forced together
   * instead of the writer waking for the first and forcing the rest again. Holds nest.
   */
  void hold() {
    queue.hold();
  }

  void release() {
    queue.release();
  }

  private void enqueue(Item item) {
    queue.add(item);
  }

  /** Completes once everything queued before it is durable per the policy. */
  CompletableFuture<Void> barrier() {
    CompletableFuture<Void> f = new CompletableFuture<>();
    Throwable failed = failure;
    if (failed != null) {
      f.completeExceptionally(storageFailed(failed));
    } else {
      enqueue(new Barrier(f));
    }
    return f;
  }

  private void run() {
    List<Item> batch = new ArrayList<>();
    try {
      while (true) {
        Item first = policy == FsyncPolicy.INTERVAL ? queue.poll(intervalNanos) : queue.take();
        if (first == null) {
          forceIfIntervalElapsed();
          continue;
        }
        batch.add(first);
        queue.drainTo(batch, 8192);
        if (process(batch)) {
          return;
        }
        batch.clear();
      }
    } catch (Throwable t) {
      failure = t;
      LOG.error("Storage writer for {} failed; the replica stops accepting writes", directory, t);
      List<Item> rest = new ArrayList<>(batch);
      queue.drainTo(rest);
      for (Item item : WriteQueue.flatten(rest)) {
        if (item instanceof Barrier b) {
          b.future().completeExceptionally(storageFailed(t));
        }
      }
    }
  }

  /** Runs one batch; true when it contained the stop item. */
  private boolean process(List<Item> batch) throws IOException {
    int segmentFrom = activeId;
    long batchFrom = written;
    List<CompletableFuture<Void>> done = new ArrayList<>();
    List<Integer> deletes = new ArrayList<>();
    boolean stop = false;
    long highestSeq = 0;
    for (Item item : WriteQueue.flatten(batch)) {
      if (item instanceof Append a) {
        if (a.marker() != null) {
          write(a.marker());
        }
        write(a.frame());
        appended = true;
        unforcedAppends++;
        highestSeq = a.seq();
      } else if (item instanceof Roll r) {
        seal(r);
      } else if (item instanceof Delete d) {
        deletes.add(d.segment());
      } else if (item instanceof Barrier b) {
        done.add(b.future());
      } else {
        stop = true;
      }
    }
    flush();
    if (policy == FsyncPolicy.ALWAYS || stop || !deletes.isEmpty()) {
      // Deletions wait for a force whatever the policy: the trim that killed a segment must be
      // durable before the segment is gone (a deletion is rare: once per segment).
      force();
    } else {
      forceIfIntervalElapsed();
    }
    for (int segment : deletes) {
      deleteSegment(segment);
    }
    if (!deletes.isEmpty()) {
      forceDirectory();
    }
    if (stop) {
      markClosed();
    }
    if (highestSeq > 0) {
      durableSeq = highestSeq;
    }
    if (!done.isEmpty()) {
      completer.execute(() -> done.forEach(f -> f.complete(null)));
    }
    if (!stop && policy != FsyncPolicy.NONE) {
      // After the batch is answered: the zeroes reach the disk with the next batch's force.
      preallocation.keepAhead(
          active, written, activeId == segmentFrom ? written - batchFrom : written);
    }
    return stop;
  }

  private void write(byte[] frame) throws IOException {
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

  private void flush() throws IOException {
    if (buffer.position() > 0) {
      buffer.flip();
      written += buffer.remaining();
      writeFully(active, buffer);
      buffer.clear();
      dirty = true;
    }
  }

  private static void writeFully(FileChannel ch, ByteBuffer b) throws IOException {
    while (b.hasRemaining()) {
      ch.write(b);
    }
  }

  private void force() throws IOException {
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

  private void forceDirectory() throws IOException {
    directorySync.force(directory);
    directoryDirty = false;
  }

  /**
   * On close, after the final force: ends the active segment with a FORCED record covering all of
   * it (forced too), so damage anywhere in it is known to be corruption on the next start, and
   * forces the directory if an entry changed since it last was.
   */
  private void markClosed() throws IOException {
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

  private void forceIfIntervalElapsed() throws IOException {
    if (policy == FsyncPolicy.INTERVAL && System.nanoTime() - lastForce >= intervalNanos) {
      force();
    }
  }

  private void seal(Roll r) throws IOException {
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

  private void deleteSegment(int segment) throws IOException {
    FileChannel ch = channels.remove(segment);
    if (ch != null) {
      ch.close();
    }
    Files.deleteIfExists(indexPath(directory, segment));
    Files.deleteIfExists(segmentPath(directory, segment));
    directoryDirty = true;
    LOG.debug("Deleted segment {} of {}: nothing in it is live", segment, directory);
  }

  static ServerErrorException storageFailed(Throwable t) {
    return new ServerErrorException(
        "The storage of this replica failed and it accepts no more " + "writes: " + t.getMessage(),
        t);
  }

  /** Writes and forces everything queued, then stops the thread and closes all files. */
  @Override
  public void close() throws IOException {
    queue.addNow(new Stop());
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    completer.shutdown();
    for (FileChannel ch : channels.values()) {
      ch.close();
    }
    channels.clear();
  }
}
