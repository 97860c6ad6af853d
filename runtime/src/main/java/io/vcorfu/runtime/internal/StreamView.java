package io.vcorfu.runtime.internal;

import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.Tails;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.VCorfuException;
import io.vcorfu.runtime.Versioned;
import io.vcorfu.runtime.serialization.SerializationException;
import io.vcorfu.runtime.serialization.Serializer;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SMR engine of one view of one stream: a state instance (the view's proxy) and the position it
 * has been played to.
 *
 * <p><b>Positions.</b> {@code version} is a global address such that every update of the stream
 * with an address up to it has been applied (and none after it); {@code streamPos} is the next
 * stream address to read. Both only move forward, so an upcall never runs twice for one address in
 * one view.
 *
 * <p><b>Old versions.</b> The view starts from a {@link Base} (the class's initial state at address
 * -1, or a checkpoint: a state and the address it reflects). Snapshot reads ({@link #readAt}),
 * transaction private copies ({@link #freshAt}) and snapshot views ({@link #buildInto}) need the
 * state as of an older address:
 *
 * <ul>
 *   <li>For a class implementing {@link Versioned}, the view captures a version after the base and
 *       after every entry it applies ({@link CapturedVersions}, bounded by {@code
 *       RuntimeOptions.retainedVersions} and {@code retainedHistoryBytes}); an old version is then
 *       a new instance restored to the captured version at or below the address: O(1) to set up,
 *       nothing replayed or copied, whatever the object's size.
 *   <li>Otherwise (and for addresses older than every captured version) its {@link ViewHistory}
 *       replays retained updates (or, for objects that outgrew the retention bound, the stream from
 *       the log) onto a fresh instance brought to the base, with a small cache of rebuilt versions.
 * </ul>
 *
 * <p>Thread-safe: one lock guards the state and positions; upcalls and accessors on the live state
 * run under it, so no reader sees a half-applied update.
 */
public final class StreamView {
  private static final Logger LOG = LoggerFactory.getLogger(StreamView.class);
  static final long TAIL = Long.MAX_VALUE;
  private static final int READ_BATCH = 1024;

  /**
   * Where a view starts: the state that reflects every update of the stream up to global address
   * {@code version}, given as the updates that rebuild it from the class's initial state, or as a
   * checkpoint {@code image} of the object's fields (restored first) followed by those updates,
   * with the stream already consumed below stream address {@code streamPos}. Versions older than
   * the base cannot be served.
   */
  public record Base(
      long version, long streamPos, List<SmrRecord.Update> state, CheckpointImage image) {
    /** The class's initial state, before any write. */
    public static final Base INITIAL = new Base(-1, 0, List.of());

    /** A base given as updates only; with an {@code image}, its fields are restored before them. */
    public Base(long version, long streamPos, List<SmrRecord.Update> state) {
      this(version, streamPos, state, null);
    }
  }

  /** Reads a view's live state together with the positions it reflects. */
  interface StateReader<R> {
    R read(Object state, long version, long streamPos);
  }

  private record Outcome(Object value, Exception failure) {}

  private final RuntimeCore core;
  private final StreamId stream;
  private final ClassModel model;
  private final Serializer serializer;
  private final long limit;
  private final ReentrantLock lock = new ReentrantLock();
  // Guarded by lock:
  private final ViewHistory history;
  private final CapturedVersions captured;
  private Object live;
  // Written under lock; volatile so a reader can see without the lock that it needs no tail query.
  private volatile long version;
  private long streamPos;
  private long lastApplied;
  // Callers of a mutator-accessor waiting for their outcome, by the view's version when they
  // registered (their entry's address is above it); outcomes at or below the lowest are dropped.
  private final TreeMap<Long, Integer> waiterFloors = new TreeMap<>();
  private final TreeMap<Long, Outcome> outcomes = new TreeMap<>();

  /**
   * A view that plays {@code stream} up to {@code limit} ({@link #TAIL} for a live local view, the
   * as-of address for a snapshot view), starting from {@code base}.
   */
  StreamView(
      RuntimeCore core,
      StreamId stream,
      ClassModel model,
      Serializer serializer,
      long limit,
      Base base) {
    this.core = core;
    this.stream = stream;
    this.model = model;
    this.serializer = serializer;
    this.limit = limit;
    this.history = new ViewHistory(core, stream, model, serializer, base);
    this.captured =
        Versioned.class.isAssignableFrom(model.type())
            ? new CapturedVersions(
                core.options().retainedVersions(), core.options().retainedHistoryBytes())
            : null;
    this.version = base.version();
    this.lastApplied = base.version();
    this.streamPos = base.streamPos();
  }

  /**
   * Sets the live state instance (the proxy, in the class's initial state) and brings it to the
   * base; called once, before the view is used.
   */
  void attach(Object proxy) {
    lock.lock();
    try {
      this.live = proxy;
      history.applyBase(proxy);
      if (captured != null) {
        captured.capture(history.baseVersion(), proxy, 0);
      }
    } finally {
      lock.unlock();
    }
  }

  public StreamId stream() {
    return stream;
  }

  Serializer serializer() {
    return serializer;
  }

  ClassModel model() {
    return model;
  }

  /**
   * Runs {@code reader} on the live state and its positions, under the view's lock, without
   * syncing.
   */
  <R> R inspect(StateReader<R> reader) {
    lock.lock();
    try {
      return reader.read(live, version, streamPos);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Syncs to the tail (or the view's limit) and runs {@code body} on the live state.
   *
   * <p>The tails are queried before the lock is taken, so concurrent readers of this view (and of
   * other views) share tail requests; the answer still comes from a request sent after this call
   * began, so the state read reflects at least every update issued before the call: the read is
   * linearizable. A view already at its limit makes no query.
   */
  Object access(Callable<Object> body) throws Exception {
    Tails tails = limit <= version ? null : core.await(core.log().tails(List.of(stream)));
    lock.lock();
    try {
      if (tails != null) {
        syncWith(limit, tails);
      }
      return Upcalls.run(live, body);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Appends one update made outside a transaction; returns its global address. An update with a
   * conflict key counts at the sequencer as a write of that key only (see {@link
   * Calls#appendAlone}).
   */
  long append(SmrRecord.Update update) {
    return Calls.appendAlone(core, update).globalAddress();
  }

  /** Appends one update, syncs to its address and returns what its upcall produced there. */
  Object appendAndApply(SmrRecord.Update update) throws Exception {
    long floor;
    lock.lock();
    try {
      floor = version;
      waiterFloors.merge(floor, 1, Integer::sum);
    } finally {
      lock.unlock();
    }
    try {
      long address = append(update);
      Outcome o;
      lock.lock();
      try {
        syncTo(address);
        o = outcomes.remove(address);
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
        if (waiterFloors.merge(floor, -1, Integer::sum) == 0) {
          waiterFloors.remove(floor);
        }
        if (waiterFloors.isEmpty()) {
          outcomes.clear();
        } else {
          outcomes.headMap(waiterFloors.firstKey(), true).clear();
        }
      } finally {
        lock.unlock();
      }
    }
  }

  /**
   * Runs an accessor on the state as of global address {@code snapshot}: the live state when it
   * reflects exactly that address, otherwise a restored captured version (a {@code Versioned}
   * class: O(1), no replay) or a rebuilt read-only version.
   *
   * @throws TrimmedException when the view cannot go back to {@code snapshot}
   */
  Object readAt(long snapshot, MethodModel m, Object[] args, Callable<Object> body)
      throws Exception {
    lock.lock();
    try {
      requireServable(snapshot);
      if (version < snapshot) {
        syncTo(snapshot);
      }
      if (lastApplied <= snapshot && version >= snapshot) {
        return Upcalls.run(live, body);
      }
      if (captured != null) {
        Object state = model.newState();
        if (captured.restoreInto(state, snapshot)) {
          return Upcalls.apply(state, m, args);
        }
      }
      return Upcalls.apply(history.versionAt(snapshot, streamPos, version), m, args);
    } finally {
      lock.unlock();
    }
  }

  /**
   * A new plain instance holding the state as of {@code snapshot}, owned by the caller: for a
   * {@code Versioned} class a restored captured version (O(1); the persistent structures keep the
   * captured version intact whatever the caller does to the instance), otherwise rebuilt by replay.
   *
   * @throws TrimmedException when the view cannot go back to {@code snapshot}
   */
  Object freshAt(long snapshot) {
    lock.lock();
    try {
      requireServable(snapshot);
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
   * snapshot view's proxy), to the state as of {@code snapshot}; syncs this view up to {@code
   * snapshot} first if it is behind. A {@code Versioned} class's target is restored to the captured
   * version at or below {@code snapshot} when one is kept (O(1)); otherwise the base and the
   * updates up to {@code snapshot} are replayed onto it. Returns false, leaving {@code target}
   * untouched, when {@code snapshot} is below the base or beyond the log's tail.
   */
  boolean buildInto(Object target, long snapshot) {
    lock.lock();
    try {
      if (snapshot < history.baseVersion()) {
        return false;
      }
      if (version < snapshot) {
        syncTo(snapshot);
      }
      if (version < snapshot) {
        return false;
      }
      if (captured == null || !captured.restoreInto(target, snapshot)) {
        history.replayInto(target, snapshot, streamPos, version);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Applies a serialized update to a plain instance; returns the upcall's result or throws its
   * failure.
   */
  Object applyTo(Object state, MethodModel m, byte[][] args) throws Exception {
    return history.applyTo(state, m, args);
  }

  private void requireServable(long snapshot) {
    if (snapshot < history.baseVersion()) {
      throw new TrimmedException(history.baseVersion(), stream);
    }
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
    if (bound <= version) {
      return;
    }
    long streamTail = t.streamTails().getOrDefault(stream, -1L);
    reading:
    while (streamPos <= streamTail) {
      long to = Math.min(streamTail, streamPos + READ_BATCH - 1);
      List<StreamEntry> entries = core.await(core.log().readStream(stream, streamPos, to));
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

  private void apply(StreamEntry e) {
    boolean applied = false;
    long argumentBytes = 0;
    for (ViewHistory.Applied a : history.updatesOf(e)) {
      Object[] args;
      try {
        args = Calls.decodeArgs(a.args(), serializer);
      } catch (SerializationException ex) {
        LOG.warn(
            "Skipping update {} at global address {} of stream {}: {}",
            a.method().signature(),
            e.globalAddress(),
            stream,
            ex.getMessage());
        continue;
      }
      history.retain(a);
      Object value = null;
      Exception failure = null;
      try {
        value = Upcalls.apply(live, a.method(), args);
      } catch (Exception ex) {
        failure = ex;
      }
      if (!waiterFloors.isEmpty() && a.method().kind() == MethodKind.MUTATOR_ACCESSOR) {
        outcomes.put(e.globalAddress(), new Outcome(value, failure));
      } else if (failure != null) {
        LOG.debug("Upcall {} at {} threw", a.method().signature(), e.globalAddress(), failure);
      }
      lastApplied = e.globalAddress();
      applied = true;
      for (byte[] arg : a.args()) {
        argumentBytes += arg.length;
      }
    }
    if (applied && captured != null) {
      captured.capture(e.globalAddress(), live, argumentBytes);
    }
  }
}
