package io.vcorfu.runtime.internal;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.VCorfuException;
import io.vcorfu.runtime.serialization.SerializationException;
import io.vcorfu.runtime.serialization.Serializer;
import io.vcorfu.runtime.stream.AppendResult;
import io.vcorfu.runtime.stream.StreamEntry;
import io.vcorfu.runtime.stream.Tails;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SMR engine of one view of one stream: a state instance (the view's proxy), the position it
 * has been played to, and the decoded history since its base.
 *
 * <p><b>Positions.</b> {@code version} is a global address such that every update of the stream
 * with an address up to it has been applied (and none after it); {@code streamPos} is the next
 * stream address to read. Both only move forward, so an upcall never runs twice for one address
 * in one view.
 *
 * <p><b>Old versions.</b> The view starts from a {@link Base}: a state, written as the updates that
 * rebuild it from the class's initial state, that reflects every update up to a global address
 * (the initial state at -1, or a checkpoint), and keeps the serialized history of updates applied
 * since the base. The state as of an older address S is
 * rebuilt by replaying that history onto a fresh base instance up to S; the last {@value
 * #CACHED_VERSIONS} rebuilt read-only versions are kept, so repeated reads of one old version
 * (transactions sharing a snapshot) rebuild once. Replay reads nothing from the log. The history
 * grows with the object's updates until a checkpoint moves the base forward.
 *
 * <p>Thread-safe: one lock guards the state and positions; upcalls and accessors on the live state
 * run under it, so no reader sees a half-applied update.
 */
public final class StreamView {
  private static final Logger LOG = LoggerFactory.getLogger(StreamView.class);
  static final long TAIL = Long.MAX_VALUE;
  private static final int READ_BATCH = 1024;
  static final int CACHED_VERSIONS = 4;

  private record Applied(long address, MethodModel method, byte[][] args) {}

  /**
   * Where a view starts: the state that reflects every update of the stream up to global address
   * {@code version}, given as the updates that rebuild it from the class's initial state (a
   * checkpoint's form), with the stream already consumed below stream address {@code streamPos}.
   * Versions older than the base cannot be served.
   */
  public record Base(long version, long streamPos, List<SmrRecord.Update> state) {
    /** The class's initial state, before any write. */
    public static final Base INITIAL = new Base(-1, 0, List.of());
  }

  private record Version(Object state, long from, long until) {}

  private record Outcome(Object value, Exception failure) {}

  private final RuntimeCore core;
  private final StreamId stream;
  private final ClassModel model;
  private final Serializer serializer;
  private final long limit;
  private final Base base;
  private final long baseVersion;
  private final ReentrantLock lock = new ReentrantLock();
  // Guarded by lock:
  private Object live;
  private long version;
  private long streamPos;
  private long lastApplied = -1;
  private final List<Applied> history = new ArrayList<>();
  private final ArrayDeque<Version> versions = new ArrayDeque<>();
  // Callers of a mutator-accessor waiting for their outcome, by the view's version when they
  // registered (their entry's address is above it); outcomes at or below the lowest are dropped.
  private final TreeMap<Long, Integer> waiterFloors = new TreeMap<>();
  private final TreeMap<Long, Outcome> outcomes = new TreeMap<>();

  /**
   * A view that plays {@code stream} up to {@code limit} ({@link #TAIL} for a live local view, the
   * as-of address for a snapshot view), starting from {@code base}.
   */
  StreamView(RuntimeCore core, StreamId stream, ClassModel model, Serializer serializer, long limit, Base base) {
    this.core = core;
    this.stream = stream;
    this.model = model;
    this.serializer = serializer;
    this.limit = limit;
    this.base = base;
    this.baseVersion = base.version();
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
      applyBase(proxy);
    } finally {
      lock.unlock();
    }
  }

  /** A new plain instance holding the base state. */
  private Object newBaseState() {
    Object state = model.newState();
    applyBase(state);
    return state;
  }

  private void applyBase(Object state) {
    for (SmrRecord.Update u : base.state()) {
      MethodModel m = model.method(u.signature());
      if (m == null || !m.writes()) {
        throw new IllegalArgumentException("the base state of stream " + stream + " calls " + u.signature()
            + ", which is not a mutator of " + model.type().getName());
      }
      try {
        applyTo(state, m, u.args());
      } catch (Exception e) {
        LOG.debug("Base update {} threw", u.signature(), e);
      }
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

  /** Syncs to the tail (or the view's limit) and runs {@code body} on the live state. */
  Object access(Callable<Object> body) throws Exception {
    lock.lock();
    try {
      syncTo(TAIL);
      return Upcalls.run(live, body);
    } finally {
      lock.unlock();
    }
  }

  /** Appends one update to the stream. */
  long append(SmrRecord.Update update) {
    AppendResult r = core.await(core.log().append(List.of(stream), SmrRecord.encode(List.of(update))));
    return r.globalAddress();
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
        throw new VCorfuException("the update appended at global address " + address + " to stream "
            + stream + " was not applied by this view");
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
   * reflects exactly that address, otherwise a rebuilt read-only version.
   *
   * @throws TrimmedException when the view cannot go back to {@code snapshot}
   */
  Object readAt(long snapshot, MethodModel m, Object[] args, Callable<Object> body) throws Exception {
    lock.lock();
    try {
      requireServable(snapshot);
      if (version < snapshot) {
        syncTo(snapshot);
      }
      if (lastApplied <= snapshot && version >= snapshot) {
        return Upcalls.run(live, body);
      }
      return Upcalls.apply(versionAt(snapshot), m, args);
    } finally {
      lock.unlock();
    }
  }

  /** A new plain instance holding the state as of {@code snapshot}, owned by the caller. */
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
   * Brings {@code target}, a new instance of the class in its initial state (a plain instance or
   * a snapshot view's proxy), to the state as of {@code snapshot}, from this view's base and
   * retained history; syncs this view up to {@code snapshot} first if it is behind. Returns false,
   * leaving {@code target} untouched, when {@code snapshot} is below the base or beyond the log's
   * tail.
   */
  boolean buildInto(Object target, long snapshot) {
    lock.lock();
    try {
      if (snapshot < baseVersion) {
        return false;
      }
      if (version < snapshot) {
        syncTo(snapshot);
      }
      if (version < snapshot) {
        return false;
      }
      applyBase(target);
      int end = firstAfter(snapshot);
      for (int i = 0; i < end; i++) {
        replay(target, history.get(i));
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Applies a serialized update to a plain instance; the upcall's result or failure is returned. */
  Object applyTo(Object state, MethodModel m, byte[][] args) throws Exception {
    return Upcalls.apply(state, m, Calls.decodeArgs(args, serializer));
  }

  private void requireServable(long snapshot) {
    if (snapshot < baseVersion) {
      throw new TrimmedException(baseVersion, stream);
    }
  }

  private Object versionAt(long snapshot) {
    for (Version v : versions) {
      if (v.from() <= snapshot && snapshot < v.until()) {
        return v.state();
      }
    }
    Object state = newBaseState();
    int end = firstAfter(snapshot);
    for (int i = 0; i < end; i++) {
      replay(state, history.get(i));
    }
    long from = end == 0 ? baseVersion : history.get(end - 1).address();
    long until = end < history.size() ? history.get(end).address() : version + 1;
    if (versions.size() == CACHED_VERSIONS) {
      versions.removeFirst();
    }
    versions.addLast(new Version(state, from, until));
    return state;
  }

  /** Index of the first history entry with an address above {@code snapshot}. */
  private int firstAfter(long snapshot) {
    int lo = 0;
    int hi = history.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (history.get(mid).address() <= snapshot) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private void replay(Object state, Applied a) {
    try {
      applyTo(state, a.method(), a.args());
    } catch (Exception e) {
      LOG.debug("Upcall {} at {} threw during replay", a.method().signature(), a.address(), e);
    }
  }

  /** Brings the live state up to min(target, limit, global tail). Caller holds the lock. */
  private void syncTo(long target) {
    long bound = Math.min(target, limit);
    if (bound <= version) {
      return;
    }
    Tails t = core.await(core.log().tails(List.of(stream)));
    bound = Math.min(bound, t.globalTail());
    long streamTail = t.streamTails().getOrDefault(stream, -1L);
    reading:
    while (streamPos <= streamTail) {
      long to = Math.min(streamTail, streamPos + READ_BATCH - 1);
      List<StreamEntry> entries = core.await(core.log().readStream(stream, streamPos, to));
      if (entries.isEmpty()) {
        throw new VCorfuException("stream " + stream + " returned nothing for addresses " + streamPos + ".." + to);
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
    List<SmrRecord.Update> updates;
    try {
      updates = SmrRecord.decode(e.payload());
    } catch (SerializationException ex) {
      LOG.warn("Skipping the entry at global address {} of stream {}: not an SMR entry ({})",
          e.globalAddress(), stream, ex.getMessage());
      return;
    }
    for (SmrRecord.Update u : updates) {
      if (!u.stream().equals(stream)) {
        continue;
      }
      MethodModel m = model.method(u.signature());
      if (m == null || !m.writes()) {
        LOG.warn("Skipping update {} at global address {} of stream {}: {} has no such mutator",
            u.signature(), e.globalAddress(), stream, model.type().getName());
        continue;
      }
      Object[] args;
      try {
        args = Calls.decodeArgs(u.args(), serializer);
      } catch (SerializationException ex) {
        LOG.warn("Skipping update {} at global address {} of stream {}: {}",
            u.signature(), e.globalAddress(), stream, ex.getMessage());
        continue;
      }
      history.add(new Applied(e.globalAddress(), m, u.args()));
      Object value = null;
      Exception failure = null;
      try {
        value = Upcalls.apply(live, m, args);
      } catch (Exception ex) {
        failure = ex;
      }
      if (!waiterFloors.isEmpty() && m.kind() == MethodKind.MUTATOR_ACCESSOR) {
        outcomes.put(e.globalAddress(), new Outcome(value, failure));
      } else if (failure != null) {
        LOG.debug("Upcall {} at {} threw", m.signature(), e.globalAddress(), failure);
      }
      lastApplied = e.globalAddress();
    }
  }
}
