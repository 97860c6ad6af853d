package io.vcorfu.runtime.checkpoint;

import io.vcorfu.client.SnapshotFloor;
import io.vcorfu.client.Tails;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.Retention;
import io.vcorfu.runtime.smr.RuntimeCore;
import io.vcorfu.runtime.smr.SmrEngine;
import io.vcorfu.runtime.view.ObjectDirectory;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Automatic checkpoints and trims of the objects a runtime has open as live local views (the
 * remote-view host's objects included: it hosts them as live views of its runtime), as its {@link
 * Retention} says: once a view has played enough updates since its last checkpoint and the views
 * under its retention have gathered the retention's history budget in all, it is synced and
 * checkpointed without stopping its writers (the checkpoint names the stream position and the
 * global address it reflects); then the object's stream is trimmed below the newest checkpoint this
 * runtime wrote that leaves the retained history readable, and the checkpoint stream below that
 * checkpoint.
 *
 * <p>Invariant: a stream is trimmed only below the stream position of a checkpoint, written and
 * acknowledged before the trim, that reflects every update below that position, so the object's
 * state at every retained version is a checkpoint plus the stream after it; never below a
 * checkpoint newer than the oldest snapshot any client registered (running transactions and open
 * snapshot views, registered with the sequencer every pass under a lease, see {@code
 * SnapshotsRequest}), and not at all while the sequencer's registrations are incomplete; and never
 * below a checkpoint reflecting an address the log had not reached two seconds before the trim, so
 * a transaction or snapshot view that began since, not registered yet, finds its version.
 *
 * <p>Runs on one daemon thread per runtime, every second. Closing the runtime finishes the trims
 * its checkpoints already allow under the rules above (waiting at most {@link #CLOSE_WAIT_NANOS}
 * for the newest to become safe), so a client that writes and exits leaves no more of its objects'
 * streams behind than the retention and one checkpoint interval.
 */
public final class AutoCheckpoints implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AutoCheckpoints.class);

  /** How often the views are looked at. */
  static final long TICK_MILLIS = 1_000;

  /**
   * A snapshot this recent is never trimmed under, registered or not: it is registered at the
   * runtime's next pass, within a tick, and the trimming runtime learns of it at its own next pass.
   * A snapshot whose registration came later than this (a runtime paused for longer) can be trimmed
   * under: its reads then fail with the typed trimmed error (a transaction aborts and is retried),
   * never with another version's state. Each second of it holds a second of every busy object's
   * updates on disk.
   */
  static final long SAFE_NANOS = TimeUnit.SECONDS.toNanos(2);

  /**
   * How long closing waits, at most, for the trims this runtime's checkpoints allow once they are
   * safe (the safe window and a pass more); closing returns at once when none is waiting.
   */
  static final long CLOSE_WAIT_NANOS = SAFE_NANOS + TimeUnit.MILLISECONDS.toNanos(1_500);

  /** How often closing looks again while it waits. */
  private static final long CLOSE_POLL_MILLIS = 200;

  /** What a trim of one object found. */
  private enum Trim {
    DONE,
    /** A checkpoint the retention allows trimming below is not safe yet. */
    WAITING
  }

  /** The lease the runtime's snapshots are registered for, renewed every pass. */
  static final int SNAPSHOT_LEASE_MS = 10_000;

  /** Weight of an update when the view has not played any yet. */
  private static final long DEFAULT_UPDATE_BYTES = 1024;

  private final RuntimeCore core;
  private final ObjectDirectory directory;
  private final Retention retention;
  private final ScheduledExecutorService timer;
  private final Map<StreamId, Kept> kept = new HashMap<>();
  private final Deque<long[]> tailSamples = new ArrayDeque<>();
  private final AtomicLong written = new AtomicLong();
  private final AtomicLong trims = new AtomicLong();

  /** Set once {@link #close} began: a pass it interrupts is not a failure worth a warning. */
  private volatile boolean closing;

  /** Whether this runtime's last pass registered a snapshot (so an empty one must drop it). */
  private boolean registered;

  /** What this runtime knows of one object's checkpoints. */
  private static final class Kept {
    long checkpointedPos;
    long checkpointBytes;
    long trimmedTo;
    final List<Checkpoints.Written> mine = new ArrayList<>();
    final List<Long> writtenAtMillis = new ArrayList<>();

    Kept(long pos) {
      this.checkpointedPos = pos;
    }
  }

  public AutoCheckpoints(RuntimeCore core, ObjectDirectory directory, Retention retention) {
    this.core = core;
    this.directory = directory;
    this.retention = retention;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "vcorfu-checkpoints");
              t.setDaemon(true);
              return t;
            });
    timer.scheduleWithFixedDelay(this::tick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
  }

  /** Checkpoints this runtime wrote automatically, and trims it made, since it started. */
  public long[] counts() {
    return new long[] {written.get(), trims.get()};
  }

  private void tick() {
    try {
      runOnce();
    } catch (RuntimeException e) {
      if (closing) {
        LOG.debug("automatic checkpoints stopped by close: {}", e.toString());
      } else {
        LOG.warn("automatic checkpoints failed; tried again in a second: {}", e.toString());
      }
    }
  }

  /** One pass over the live views; returns how many checkpoints it wrote. */
  public synchronized int runOnce() {
    return pass(true);
  }

  /**
   * One pass: registers this runtime's snapshots, checkpoints the views that are due (when {@code
   * checkpoint}) and trims what is safe. Returns how many checkpoints it wrote; when not
   * checkpointing, how many views still wait for a trim to become safe.
   */
  private int pass(boolean checkpoint) {
    List<ObjectDirectory.LiveView> views = directory.liveViews();
    // The snapshots this runtime holds, registered; what every client holds bounds the trims too.
    long mine = Math.min(core.transactions().oldestOpenSnapshot(), directory.oldestSnapshotView());
    if (views.isEmpty() || !anyMayAct(views)) {
      if (mine != Long.MAX_VALUE || registered) {
        core.await(
            core.log().registerSnapshots(mine == Long.MAX_VALUE ? -1 : mine, SNAPSHOT_LEASE_MS));
        registered = mine != Long.MAX_VALUE;
      }
      return 0;
    }
    List<StreamId> streams = new ArrayList<>(views.size());
    views.forEach(v -> streams.add(v.stream()));
    Tails tails = core.await(core.log().tails(streams));
    long now = System.nanoTime();
    tailSamples.addLast(new long[] {now, tails.globalTail()});
    // The newest sample at least a second old bounds what a trim may pass.
    while (tailSamples.size() >= 2) {
      Iterator<long[]> it = tailSamples.iterator();
      it.next();
      if (now - it.next()[0] >= SAFE_NANOS) {
        tailSamples.pollFirst();
      } else {
        break;
      }
    }
    long[] oldest = tailSamples.peekFirst();
    long safeVersion = now - oldest[0] >= SAFE_NANOS ? oldest[1] : -1;
    SnapshotFloor floor =
        core.await(
            core.log().registerSnapshots(mine == Long.MAX_VALUE ? -1 : mine, SNAPSHOT_LEASE_MS));
    registered = mine != Long.MAX_VALUE;
    safeVersion = floor.complete() ? Math.min(safeVersion, floor.oldestRegistered()) : -1;
    Retention everyObject = retention.following(floor.retention());
    List<Candidate> candidates = new ArrayList<>(views.size());
    for (ObjectDirectory.LiveView v : views) {
      Retention r = v.retention() != null ? v.retention() : everyObject;
      if (!r.autoCheckpoint()) {
        continue;
      }
      long streamTail = tails.streamTails().getOrDefault(v.stream(), -1L);
      Kept k = kept.computeIfAbsent(v.stream(), s -> new Kept(v.engine().baseStreamPos()));
      long pending = pendingBytes(v.engine(), k, streamTail);
      boolean due = pending > 0 && pending >= Math.max(r.checkpointMinBytes(), k.checkpointBytes);
      candidates.add(new Candidate(v, r, k, streamTail, pending, due));
    }
    Set<Candidate> chosen = checkpoint ? chosen(candidates) : Set.of();
    int wrote = 0;
    int waiting = 0;
    for (Candidate c : candidates) {
      if (chosen.contains(c) && checkpoint(c.view(), c.kept())) {
        wrote++;
      }
      Retention r = c.retention();
      if (r.trim()
          && trim(r, c.view().stream(), c.kept(), c.streamTail(), safeVersion) == Trim.WAITING) {
        waiting++;
      }
    }
    return checkpoint ? wrote : waiting;
  }

  /** A live view this pass may checkpoint: its updates' weight since its last checkpoint. */
  private record Candidate(
      ObjectDirectory.LiveView view,
      Retention retention,
      Kept kept,
      long streamTail,
      long pending,
      boolean due) {}

  /**
   * The views to checkpoint: of the views under one retention, none while their updates since their
   * checkpoints weigh less than its history budget in all; else the due ones, the heaviest first,
   * until what is left weighs less than the budget (with no budget, every due view).
   */
  private static Set<Candidate> chosen(List<Candidate> candidates) {
    Map<Retention, List<Candidate>> byRetention = new HashMap<>();
    for (Candidate c : candidates) {
      byRetention.computeIfAbsent(c.retention(), r -> new ArrayList<>()).add(c);
    }
    Set<Candidate> chosen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Map.Entry<Retention, List<Candidate>> e : byRetention.entrySet()) {
      long budget = e.getKey().historyBudgetBytes();
      long left = 0;
      List<Candidate> due = new ArrayList<>();
      for (Candidate c : e.getValue()) {
        left += c.pending();
        if (c.due()) {
          due.add(c);
        }
      }
      due.sort(Comparator.comparingLong(Candidate::pending).reversed());
      for (Candidate c : due) {
        if (budget > 0 && left < budget) {
          break;
        }
        chosen.add(c);
        left -= c.pending();
      }
    }
    return chosen;
  }

  /**
   * Whether any of {@code views} may be checkpointed or trimmed: not when this runtime's retention
   * and every view's own turn both off (the cluster's retention changes only a runtime that keeps
   * {@link Retention#DEFAULT}'s history), so such a runtime asks for no tails.
   */
  private boolean anyMayAct(List<ObjectDirectory.LiveView> views) {
    if (retention.autoCheckpoint() || retention.trim()) {
      return true;
    }
    for (ObjectDirectory.LiveView v : views) {
      Retention r = v.retention();
      if (r != null && (r.autoCheckpoint() || r.trim())) {
        return true;
      }
    }
    return false;
  }

  /** The weight of the updates {@code engine}'s view has to play since its last checkpoint. */
  private static long pendingBytes(SmrEngine engine, Kept k, long streamTail) {
    long updates = streamTail + 1 - k.checkpointedPos;
    if (updates <= 0) {
      return 0;
    }
    long played = engine.playedEntries();
    long perUpdate =
        played == 0 ? DEFAULT_UPDATE_BYTES : Math.max(1, engine.playedBytes() / played);
    return updates * perUpdate;
  }

  private boolean checkpoint(ObjectDirectory.LiveView v, Kept k) {
    v.engine().sync();
    Checkpoints.Written w = Checkpoints.writeAndTell(core, v.proxy());
    if (w == null) {
      k.checkpointedPos = Long.MAX_VALUE; // its class cannot be checkpointed (logged once)
      return false;
    }
    k.checkpointedPos = w.streamPos();
    k.checkpointBytes = w.bytes();
    // Another writer's checkpoint, found as new as this one would have been, allows the same trims:
    // it was written and acknowledged before them.
    k.mine.add(w);
    k.writtenAtMillis.add(System.currentTimeMillis());
    if (!w.byThisCall()) {
      return false;
    }
    written.incrementAndGet();
    return true;
  }

  /**
   * Trims {@code stream} below the newest checkpoint of this runtime that keeps the retained
   * history readable, and its checkpoint stream below that checkpoint.
   */
  private Trim trim(
      Retention retention, StreamId stream, Kept k, long streamTail, long safeVersion) {
    long oldestKeptMillis = System.currentTimeMillis() - retention.retainTime().toMillis();
    int chosen = -1;
    int allowed = -1;
    for (int i = 0; i < k.mine.size(); i++) {
      Checkpoints.Written w = k.mine.get(i);
      boolean keepsVersions = streamTail + 1 - w.streamPos() >= retention.retainVersions();
      boolean keepsTime =
          retention.retainTime().isZero() || k.writtenAtMillis.get(i) <= oldestKeptMillis;
      if (keepsVersions && keepsTime) {
        allowed = i;
        if (w.version() <= safeVersion) {
          chosen = i;
        }
      }
    }
    Trim result =
        allowed > chosen && k.mine.get(allowed).streamPos() > k.trimmedTo
            ? Trim.WAITING
            : Trim.DONE;
    if (chosen < 0) {
      return result;
    }
    Checkpoints.Written w = k.mine.get(chosen);
    if (w.streamPos() > k.trimmedTo) {
      core.await(core.log().trimStream(stream, w.streamPos()));
      core.await(core.log().trimStream(Checkpoints.streamOf(stream), w.checkpointAddress()));
      k.trimmedTo = w.streamPos();
      trims.incrementAndGet();
    }
    Iterator<Checkpoints.Written> it = k.mine.iterator();
    Iterator<Long> at = k.writtenAtMillis.iterator();
    for (int i = 0; i < chosen; i++) {
      it.next();
      it.remove();
      at.next();
      at.remove();
    }
    return result;
  }

  /**
   * Stops the passes, then finishes the trims this runtime's checkpoints allow: passes without
   * checkpoints until no view waits for a trim to become safe, then withdraws this runtime's
   * snapshot registration. Returns at once, without a request, when no checkpoint of this runtime
   * lies above its object's trim and no snapshot is registered; otherwise takes at most {@link
   * #CLOSE_WAIT_NANOS} and a half second, also when the cluster does not answer (the passes run on
   * a thread of their own, left to end when the runtime's log closes): the next writer of each
   * object trims what is left.
   */
  @Override
  public void close() {
    closing = true;
    timer.shutdownNow();
    synchronized (this) {
      if (!registered && !anyCheckpointAboveItsTrim()) {
        return;
      }
    }
    Thread finishing = new Thread(this::finishTrims, "vcorfu-checkpoints-close");
    finishing.setDaemon(true);
    finishing.start();
    try {
      finishing.join(TimeUnit.NANOSECONDS.toMillis(CLOSE_WAIT_NANOS) + 500);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    finishing.interrupt();
  }

  private boolean anyCheckpointAboveItsTrim() {
    for (Kept k : kept.values()) {
      for (Checkpoints.Written w : k.mine) {
        if (w.streamPos() > k.trimmedTo) {
          return true;
        }
      }
    }
    return false;
  }

  private synchronized void finishTrims() {
    long deadline = System.nanoTime() + CLOSE_WAIT_NANOS;
    try {
      while (pass(false) > 0 && System.nanoTime() < deadline) {
        wait(CLOSE_POLL_MILLIS);
      }
      if (registered) {
        core.await(core.log().registerSnapshots(-1, SNAPSHOT_LEASE_MS));
        registered = false;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.debug("trims at close stopped: {}", e.toString());
    }
  }
}
