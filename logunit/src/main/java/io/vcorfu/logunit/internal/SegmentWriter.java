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
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The order and the threads of the storage writes: one thread that appends records to the active
 * segment, forces it, seals segments (with their index file) and deletes dead ones. Work items are
 * executed strictly in queue order, so a barrier completes only after every record queued before it
 * is written (and, under {@link FsyncPolicy#ALWAYS}, forced).
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
 * <p>What each step does to the files is {@link SegmentFiles}'s; this class decides who does it and
 * when.
 *
 * <p>Callers enqueue under the engine's monitor, which fixes the file order. Whoever writes holds
 * {@link #writing} from taking items off the queue until they are in the file, so the file order is
 * the queue order whichever thread writes. Under {@link FsyncPolicy#ALWAYS} only the writer's
 * thread writes, and barrier futures are completed on a separate thread so that callbacks never
 * stall it. Under the other policies an acknowledgement needs no force, so a caller that asks for a
 * barrier writes what is queued itself when no one else is writing and only records and barriers
 * are queued (a {@code write} call into the page cache, as the writer's thread would make), and
 * completes its own barriers: no hand-off to the writer's thread and back. The writer's thread
 * still does everything that forces or changes the directory (interval forces, rolls, deletions,
 * the zeroes ahead of the records, close), and what a caller found busy.
 */
final class SegmentWriter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SegmentWriter.class);

  private final Path directory;
  private final FsyncPolicy policy;
  private final WriteQueue queue = new WriteQueue();

  /** Held by whoever takes items off the queue, until they are written (see the class comment). */
  private final ReentrantLock writing = new ReentrantLock();

  /** Where a barrier asked for on the calling thread completes (see {@link StorageOptions}). */
  private final Supplier<Executor> completionHome;

  /** Callers write what they queued themselves (every policy but {@link FsyncPolicy#ALWAYS}). */
  private final boolean callersWrite;

  private final SegmentFiles files;
  private final ExecutorService completer;
  private final Thread thread;
  private volatile Throwable failure;

  /** Every record with a sequence number up to this is in the file and durable per the policy. */
  private volatile long durableSeq;

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
      long segmentSize,
      Supplier<Executor> completionHome) {
    this.completionHome = completionHome;
    this.directory = directory;
    this.policy = policy;
    this.callersWrite = policy != FsyncPolicy.ALWAYS;
    this.files =
        new SegmentFiles(
            directory,
            directorySync,
            policy,
            TimeUnit.MILLISECONDS.toNanos(intervalMillis),
            activeSegment,
            activeLength,
            openChannels,
            forceObserver,
            segmentSize);
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

  /** Forces of the active segment so far. */
  long forces() {
    return files.forces();
  }

  /** Nanoseconds spent in forces of the active segment so far. */
  long forceNanos() {
    return files.forceNanos();
  }

  /** Appends made durable by those forces: over {@link #forces}, the mean group-commit size. */
  long forcedAppends() {
    return files.forcedAppends();
  }

  /** How far segment {@code id}'s file reaches with the zeroes after its records (any thread). */
  long fileEnd(int id) {
    return files.fileEnd(id);
  }

  /** The channel of a segment for positional reads, or null once it was deleted. */
  FileChannel channel(int segment) {
    return files.channel(segment);
  }

  /** Why the writer stopped, or null while it works. */
  Throwable failure() {
    return failure;
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
    return files.forcedPosition();
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

  /** Ends a hold; at the last one, under a policy that lets callers write, writes what it held. */
  void release() {
    List<Item> released = queue.release();
    if (!released.isEmpty()) {
      callerWrites(released);
    }
  }

  private void enqueue(Item item) {
    queue.add(item);
    if (!(item instanceof Append) || !callersWrite) {
      queue.signal();
    }
  }

  /**
   * Completes once everything queued before it is durable per the policy; {@code homed}: under
   * group commit, on the calling thread's completion home when it has one.
   */
  CompletableFuture<Void> barrier(boolean homed) {
    CompletableFuture<Void> f = new CompletableFuture<>();
    Throwable failed = failure;
    if (failed != null) {
      f.completeExceptionally(storageFailed(failed));
      return f;
    }
    Barrier b = new Barrier(f, callersWrite || !homed ? null : completionHome.get());
    queue.add(b);
    if (!queue.holding()) {
      callerWrites(List.of(b));
    }
    return f;
  }

  /**
   * Right after {@code own} (items this caller just queued) were queued: under {@link
   * FsyncPolicy#ALWAYS}, wakes the writer's thread. Otherwise writes everything queued in this
   * thread when no one else is writing and it is all records and barriers, completing the barriers
   * among {@code own} here (they have no callbacks yet: the caller is about to return them) and
   * handing any other barrier's completion to the completion thread; when that cannot be done,
   * wakes the writer's thread.
   */
  private void callerWrites(List<Item> own) {
    if (failure != null) {
      failQueued(); // the writer stopped: nothing queued now would ever be written or answered
      return;
    }
    if (!callersWrite || !writing.tryLock()) {
      queue.signal();
      return;
    }
    List<Item> batch = new ArrayList<>();
    List<Barrier> done = new ArrayList<>();
    boolean zeroesDue;
    try {
      // A failure since the check above drained the queue, this caller's items with it.
      if (!queue.drainPlain(batch)) {
        queue.signal();
        return;
      }
      if (batch.isEmpty()) {
        return;
      }
      process(batch, done, true);
      zeroesDue = files.zeroesDue();
    } catch (Throwable t) {
      failed(t, batch);
      queue.signal(); // the writer's thread sees the failure and stops
      return;
    } finally {
      writing.unlock();
    }
    if (zeroesDue) {
      queue.wake();
    }
    List<Barrier> others = new ArrayList<>();
    for (Barrier b : done) {
      if (owns(own, b)) {
        b.future().complete(null);
      } else {
        others.add(b);
      }
    }
    complete(others);
  }

  private static boolean owns(List<Item> own, Barrier barrier) {
    for (Item item : WriteQueue.flatten(own)) {
      if (item == barrier) {
        return true;
      }
    }
    return false;
  }

  /**
   * Completes {@code barriers}' futures away from the writing thread: each on its home executor
   * when it has one (a task that only completes it), the rest together on the completion thread.
   */
  private void complete(List<Barrier> barriers) {
    List<CompletableFuture<Void>> here = new ArrayList<>();
    for (Barrier b : barriers) {
      if (b.home() == null) {
        here.add(b.future());
        continue;
      }
      try {
        b.home().execute(() -> b.future().complete(null));
      } catch (RejectedExecutionException e) {
        here.add(b.future()); // the home is shutting down: its future still completes
      }
    }
    if (!here.isEmpty()) {
      completer.execute(() -> here.forEach(f -> f.complete(null)));
    }
  }

  private void run() {
    List<Item> batch = new ArrayList<>();
    List<Barrier> done = new ArrayList<>();
    boolean stop = false;
    try {
      while (!stop) {
        queue.await(policy == FsyncPolicy.INTERVAL ? files.untilNextForce() : -1);
        if (failure != null) {
          return; // a caller's write failed: failed() has failed every barrier queued
        }
        writing.lock();
        try {
          queue.drainTo(batch, 8192);
          if (batch.isEmpty()) {
            // Woken by the interval or for the zeroes: what callers wrote themselves needs both.
            files.forceIfIntervalElapsed();
            files.keepAhead(files.position());
            continue;
          }
          stop = process(batch, done, false);
        } finally {
          writing.unlock();
        }
        complete(done);
        done.clear();
        batch.clear();
      }
    } catch (Throwable t) {
      failed(t, batch);
    }
  }

  /**
   * Records the writer's failure and fails every barrier of {@code batch} and of the queue. The
   * failure is set before the queue is drained, so a barrier queued after the drain finds it (see
   * {@link #callerWrites}) and is failed there: none waits for ever.
   */
  private void failed(Throwable t, List<Item> batch) {
    failure = t;
    LOG.error("Storage writer for {} failed; the replica stops accepting writes", directory, t);
    failAll(new ArrayList<>(batch));
  }

  private void failQueued() {
    failAll(new ArrayList<>());
  }

  private void failAll(List<Item> items) {
    queue.drainTo(items);
    for (Item item : WriteQueue.flatten(items)) {
      if (item instanceof Barrier b) {
        b.future().completeExceptionally(storageFailed(failure));
      }
    }
  }

  /**
   * Writes one batch, adding its barriers to {@code done} for the caller to complete; true when it
   * contained the stop item. {@code byCaller}: a caller writes it (records and barriers only),
   * leaving the interval's force and the zeroes to the writer's thread.
   */
  private boolean process(List<Item> batch, List<Barrier> done, boolean byCaller)
      throws IOException {
    long batchStart = files.position();
    List<Integer> deletes = new ArrayList<>();
    boolean stop = false;
    long highestSeq = 0;
    for (Item item : WriteQueue.flatten(batch)) {
      if (item instanceof Append a) {
        files.append(a.marker(), a.frame());
        highestSeq = a.seq();
      } else if (item instanceof Roll r) {
        files.seal(r);
      } else if (item instanceof Delete d) {
        deletes.add(d.segment());
      } else if (item instanceof Barrier b) {
        done.add(b);
      } else {
        stop = true;
      }
    }
    files.flush();
    if (byCaller) {
      if (highestSeq > 0) {
        durableSeq = highestSeq;
      }
      return false;
    }
    if (policy == FsyncPolicy.ALWAYS || stop || !deletes.isEmpty()) {
      // Deletions wait for a force whatever the policy: the trim that killed a segment must be
      // durable before the segment is gone (a deletion is rare: once per segment).
      files.force();
    } else {
      files.forceIfIntervalElapsed();
    }
    for (int segment : deletes) {
      files.deleteSegment(segment);
    }
    if (!deletes.isEmpty()) {
      files.forceDirectory();
    }
    if (stop) {
      files.markClosed();
    }
    if (highestSeq > 0) {
      durableSeq = highestSeq;
    }
    if (!stop && policy != FsyncPolicy.NONE) {
      // After the batch is answered: the zeroes reach the disk with the next batch's force.
      files.keepAhead(batchStart);
    }
    return stop;
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
    files.closeChannels();
  }
}
