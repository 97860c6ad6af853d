package io.vcorfu.runtime.smr;

import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.Tails;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.VCorfuException;
import io.vcorfu.runtime.Version;
import io.vcorfu.runtime.proxy.ClassModel;
import io.vcorfu.runtime.proxy.MethodKind;
import io.vcorfu.runtime.proxy.MethodModel;
import io.vcorfu.runtime.serialization.SerializationException;
import io.vcorfu.runtime.serialization.Serializer;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SMR engine of one view of one stream: plays the stream's updates onto a state instance (the
 * view's proxy) as upcalls, and keeps the position it has been played to. Its other jobs live in
 * their own classes: serving old versions ({@link OldVersions}) and handing a mutator-accessor's
 * outcome to its caller ({@link MutatorAccessorRendezvous}).
 *
 * <p><b>Positions.</b> {@code version} is a global address such that every update of the stream
 * with an address up to it has been applied (and none after it); {@code streamPos} is the next
 * stream address to read. Both only move forward, so an upcall never runs twice for one address in
 * one view.
 *
 * <p><b>A sequencer that restarts.</b> A new sequencer rebuilds its global tail from what the
 * replicas hold, so addresses an earlier one issued but nobody wrote (a tail this view synced to)
 * can be issued again, in a later epoch: an update written there lands at or below {@code version},
 * and still after every update this view applied (those were written, so the rebuilt tail covers
 * them). The stream address is the view's guide, not the global one: a sync reads every stream
 * address from {@code streamPos} up to the tail it was given, even when that tail's global address
 * is not past {@code version}, so such an update is applied like any other.
 *
 * <p><b>Old versions.</b> The engine starts from a {@link ViewBase} (the class's initial state at
 * address -1, or a checkpoint: a state and the address it reflects). Snapshot reads ({@link
 * #readAt}), transaction private copies ({@link #freshAt}) and snapshot views ({@link #buildInto})
 * need the state as of an older address; {@link OldVersions} serves them.
 *
 * <p>Thread-safe: one lock guards the state and positions; upcalls and accessors on the live state
 * run under it, so no reader sees a half-applied update.
 */
public final class SmrEngine {
  private static final Logger LOG = LoggerFactory.getLogger(SmrEngine.class);
  private static final int READ_BATCH = 1024;

  /** Reads a view's live state together with the positions it reflects. */
  public interface StateReader<R> {
    R read(Object state, long version, long streamPos);
  }

  private final RuntimeCore core;
  private final StreamId stream;
  private final ClassModel model;
  private final Serializer serializer;
  private final long limit;
  private final ReentrantLock lock = new ReentrantLock();
  // Guarded by lock:
  private OldVersions old;
  private final HistoryBudget budget;
  private final MutatorAccessorRendezvous rendezvous = new MutatorAccessorRendezvous();
  private Object live;
  // Written under lock; volatile so a reader can see without the lock that it needs no tail query.
  private volatile long version;
  private long streamPos;
  private long lastApplied;

  /**
   * The log's epoch when {@code version} was last checked against the stream's own tail: in a later
   * epoch the sequencer may have restarted and issued addresses at or below {@code version} again
   * (see the class comment), so a read at an old version first reads the stream up to its tail.
   */
  private long checkedEpoch;

  private final long baseStreamPos;

  /** Entries applied and their payload bytes since the engine started (for checkpoint pacing). */
  private volatile long playedEntries;

  private volatile long playedBytes;

  /**
   * Where a live view starts again when its stream was trimmed above its position (the stream's
   * latest checkpoint); null for views that cannot (snapshot views).
   */
  private volatile java.util.function.Supplier<ViewBase> rebaseFrom;

  /**
   * An engine that plays {@code stream} up to {@code until} ({@link Version#LIVE} for a live local
   * view, the as-of version for a snapshot view), starting from {@code base}.
   */
  public SmrEngine(
      RuntimeCore core,
      StreamId stream,
      ClassModel model,
      Serializer serializer,
      Version until,
      ViewBase base) {
    this.core = core;
    this.stream = stream;
    this.model = model;
    this.serializer = serializer;
    this.limit = until.playUntil();
    // Live views share their runtime's budget; a snapshot view, dropped when unreachable, has its
    // own.
    this.budget =
        until.isLive()
            ? core.historyBudget()
            : new HistoryBudget(core.options().retainedHistoryBytes());
    this.old = new OldVersions(core, stream, model, serializer, base, budget);
    this.version = base.version();
    this.lastApplied = base.version();
    this.checkedEpoch = core.log().epoch();
    this.streamPos = base.streamPos();
    this.baseStreamPos = base.streamPos();
  }

  /** The stream position the view started from (its checkpoint's, 0 from the initial state). */
  public long baseStreamPos() {
    return baseStreamPos;
  }

  /**
   * Sets the live state instance (the proxy, in the class's initial state) and brings it to the
   * base; called once, before the engine is used.
   */
  public void attach(Object proxy) {
    lock.lock();
    try {
      this.live = proxy;
      old.start(proxy);
    } finally {
      lock.unlock();
    }
  }

  public StreamId stream() {
    return stream;
  }

  /**
   * Lets this live view start again from {@code from} (the stream's latest checkpoint) when it
   * finds its stream trimmed above its position: its state is restored from the checkpoint (every
   * field replaced), so it goes on at the checkpoint's positions instead of failing every read.
   */
  public void rebaseFrom(java.util.function.Supplier<ViewBase> from) {
    this.rebaseFrom = from;
  }

  /** Entries this engine applied since it started. */
  public long playedEntries() {
    return playedEntries;
  }

  /** Payload bytes of the entries this engine applied since it started. */
  public long playedBytes() {
    return playedBytes;
  }

  /** Syncs the view to the stream's tail (or its limit). */
  public void sync() {
    lock.lock();
    try {
      syncTo(limit);
    } finally {
      lock.unlock();
    }
  }

  public Serializer serializer() {
    return serializer;
  }

  public ClassModel model() {
    return model;
  }

  /**
   * Runs {@code reader} on the live state and its positions, under the engine's lock, without
   * syncing.
   */
  public <R> R inspect(StateReader<R> reader) {
    lock.lock();
    try {
      return reader.read(live, version, streamPos);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Syncs to the tail (or the engine's limit) and runs {@code body} on the live state.
   *
   * <p>The tails are queried before the lock is taken, so concurrent readers of this view (and of
   * other views) share tail requests; the answer still comes from a request sent after this call
   * began, so the state read reflects at least every update issued before the call: the read is
   * linearizable. An engine already at its limit makes no query.
   */
  public Object access(Callable<Object> body) throws Exception {
    Tails tails = limit <= version ? null : core.await(core.log().tails(List.of(stream)));
    lock.lock();
    try {
      if (tails != null) {
        syncWith(limit, tails);
      }
      return UpcallRunner.run(live, body);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Appends one update made outside a transaction; returns its global address. An update with a
   * conflict key counts at the sequencer as a write of that key only (see {@link
   * UpdateCodec#appendAlone}).
   */
  public long append(SmrRecord.Update update) {
    return UpdateCodec.appendAlone(core, update).globalAddress();
  }

  /** Appends one update, syncs to its address and returns what its upcall produced there. */
  public Object appendAndApply(SmrRecord.Update update) throws Exception {
    long floor;
    lock.lock();
    try {
      floor = version;
      rendezvous.register(floor);
    } finally {
      lock.unlock();
    }
    try {
      long address = append(update);
      MutatorAccessorRendezvous.Outcome o;
      lock.lock();
      try {
        syncTo(address);
        o = rendezvous.take(address);
        if (o == null && address <= version) {
          // An address this view's version had covered, issued again by a restarted sequencer
          // (see the class comment): read the stream up to its tail.
          syncWith(address, core.await(core.log().tails(List.of(stream))));
          o = rendezvous.take(address);
        }
      } finally {
        lock.unlock();
      }
      if (o == null) {
        throw new VCorfuException(
            "the update appended at global address "
                + address
                + " to stream "
                + stream
                + " was not applied by this view");
      }
      if (o.failure() != null) {
        throw o.failure();
      }
      return o.value();
    } finally {
      lock.lock();
      try {
        rendezvous.unregister(floor);
      } finally {
        lock.unlock();
      }
    }
  }

  /**
   * Runs an accessor on the state as of global address {@code snapshot}: the live state when it
   * reflects exactly that address, otherwise an old version (see {@link OldVersions}).
   *
   * @throws TrimmedException when the engine cannot go back to {@code snapshot}
   */
  public Object readAt(long snapshot, MethodModel m, Object[] args, Callable<Object> body)
      throws Exception {
    lock.lock();
    try {
      old.requireServable(snapshot);
      recheckAfterEpochChange();
      if (version < snapshot) {
        syncTo(snapshot);
      }
      if (lastApplied <= snapshot && version >= snapshot) {
        return UpcallRunner.run(live, body);
      }
      return UpcallRunner.apply(old.readOnlyAt(snapshot, streamPos, version), m, args);
    } finally {
      lock.unlock();
    }
  }

  /**
   * A new plain instance holding the state as of {@code snapshot}, owned by the caller: for a
   * {@code VersionCapturing} class a restored captured version (O(1); the persistent structures
   * keep the captured version intact whatever the caller does to the instance), otherwise rebuilt
   * by replay.
   *
   * @throws TrimmedException when the engine cannot go back to {@code snapshot}
   */
  public Object freshAt(long snapshot) {
    lock.lock();
    try {
      old.requireServable(snapshot);
      Object state = model.newState();
      if (!buildInto(state, snapshot)) {
        throw new IllegalStateException("stream " + stream + " cannot be played to " + snapshot);
      }
      return state;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Brings {@code target}, a new instance of the class in its initial state (a plain instance or a
   * snapshot view's proxy), to the state as of {@code snapshot}; syncs this engine up to {@code
   * snapshot} first if it is behind. Returns false, leaving {@code target} untouched, when {@code
   * snapshot} is below the base or beyond the log's tail.
   */
  public boolean buildInto(Object target, long snapshot) {
    lock.lock();
    try {
      if (snapshot < old.baseVersion()) {
        return false;
      }
      recheckAfterEpochChange();
      if (version < snapshot) {
        syncTo(snapshot);
      }
      if (version < snapshot) {
        return false;
      }
      old.buildInto(target, snapshot, streamPos, version);
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Applies a serialized update to a plain instance; returns the upcall's result or throws its
   * failure.
   */
  public Object applyTo(Object state, MethodModel m, byte[][] args) throws Exception {
    return old.history().applyTo(state, m, args);
  }

  /**
   * In a later epoch than the last check, reads the stream from {@code streamPos} up to its tail
   * and plays the updates at or below {@code version}: a restarted sequencer may have issued such
   * addresses again. Caller holds the lock.
   */
  private void recheckAfterEpochChange() {
    long epoch = core.log().epoch();
    if (epoch == checkedEpoch) {
      return;
    }
    syncWith(version, core.await(core.log().tails(List.of(stream))));
    checkedEpoch = epoch;
  }

  /** Brings the live state up to min(target, limit, global tail). Caller holds the lock. */
  private void syncTo(long target) {
    long bound = Math.min(target, limit);
    if (bound <= version) {
      return;
    }
    syncWith(bound, core.await(core.log().tails(List.of(stream))));
  }

  /**
   * Brings the live state up to min(target, limit, {@code t}'s global tail), reading the stream up
   * to {@code t}'s tail of it. {@code t} may be older than the view (another caller synced further
   * meanwhile): positions never move back, and every entry of the stream past {@code t}'s stream
   * tail has a global address past {@code t}'s global tail (the sequencer issues both together), so
   * nothing the bound covers is missed. Caller holds the lock.
   */
  private void syncWith(long target, Tails t) {
    long bound = Math.min(Math.min(target, limit), t.globalTail());
    long streamTail = t.streamTails().getOrDefault(stream, -1L);
    if (bound <= version && streamTail < streamPos) {
      return; // nothing new: the stream has no address this view has not read
    }
    reading:
    while (streamPos <= streamTail) {
      long to = Math.min(streamTail, streamPos + READ_BATCH - 1);
      List<StreamEntry> entries;
      try {
        entries = core.await(core.log().readStream(stream, streamPos, to));
      } catch (TrimmedException trimmed) {
        if (rebase(trimmed)) {
          continue;
        }
        throw trimmed;
      }
      if (entries.isEmpty()) {
        throw new VCorfuException(
            "stream " + stream + " returned nothing for addresses " + streamPos + ".." + to);
      }
      for (StreamEntry e : entries) {
        if (e.streamAddress() < streamPos) {
          continue;
        }
        if (e.streamAddress() != streamPos) {
          throw new VCorfuException("stream " + stream + " skipped address " + streamPos);
        }
        if (!e.isHole()) {
          if (e.globalAddress() > bound) {
            break reading;
          }
          apply(e);
        }
        streamPos = e.streamAddress() + 1;
      }
    }
    if (bound > version) {
      version = bound;
    }
  }

  /**
   * The stream was trimmed above this live view's position: starts again from the stream's latest
   * checkpoint when it lies at or past the trim mark. Caller holds the lock.
   */
  private boolean rebase(TrimmedException trimmed) {
    java.util.function.Supplier<ViewBase> from = rebaseFrom;
    if (from == null || live == null) {
      return false;
    }
    ViewBase b = from.get();
    if (b.image() == null || b.streamPos() <= streamPos || b.version() < version) {
      return false;
    }
    old.release();
    OldVersions fresh = new OldVersions(core, stream, model, serializer, b, budget);
    fresh.start(live);
    old = fresh;
    version = b.version();
    lastApplied = b.version();
    streamPos = b.streamPos();
    LOG.info(
        "Live view of stream {} started again from its checkpoint at {} (the stream was trimmed"
            + " below {} while the view was behind)",
        stream,
        b.version(),
        trimmed.trimMark());
    return true;
  }

  private void apply(StreamEntry e) {
    playedEntries++;
    playedBytes += e.payload() == null ? 0 : e.payload().length;
    boolean applied = false;
    long argumentBytes = 0;
    for (UpdateHistory.Applied a : old.history().updatesOf(e)) {
      Object[] args;
      try {
        args = UpdateCodec.decodeArgs(a.args(), serializer);
      } catch (SerializationException ex) {
        LOG.warn(
            "Skipping update {} at global address {} of stream {}: {}",
            a.method().signature(),
            e.globalAddress(),
            stream,
            ex.getMessage());
        continue;
      }
      old.retain(a);
      Object value = null;
      Exception failure = null;
      try {
        value = UpcallRunner.apply(live, a.method(), args);
      } catch (Exception ex) {
        failure = ex;
      }
      if (rendezvous.anyWaiting() && a.method().kind() == MethodKind.MUTATOR_ACCESSOR) {
        rendezvous.offer(e.globalAddress(), value, failure);
      } else if (failure != null) {
        LOG.debug("Upcall {} at {} threw", a.method().signature(), e.globalAddress(), failure);
      }
      lastApplied = e.globalAddress();
      applied = true;
      for (byte[] arg : a.args()) {
        argumentBytes += arg.length;
      }
    }
    if (applied) {
      old.captureAfter(e.globalAddress(), live, argumentBytes);
    }
  }
}
