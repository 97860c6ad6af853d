package io.vcorfu.runtime.smr;

import io.vcorfu.client.StreamEntry;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.VCorfuException;
import io.vcorfu.runtime.proxy.ClassModel;
import io.vcorfu.runtime.proxy.MethodModel;
import io.vcorfu.runtime.serialization.SerializationException;
import io.vcorfu.runtime.serialization.Serializer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a view rebuilds old versions of its object: the base it started from, the serialized updates
 * applied since (retained while the runtime's {@link HistoryBudget} allows), and the last {@value
 * #CACHED_VERSIONS} rebuilt read-only versions.
 *
 * <p>A version as of global address S is a fresh instance of the class brought to the base, then
 * every update up to S replayed onto it: from the retained history (no log reads), or, once the
 * object outgrew the retention bound and the history was dropped, from the stream on the log.
 * Cached versions make repeated reads of one old version (transactions sharing a snapshot) cost one
 * rebuild.
 *
 * <p>Objects of a {@link io.vcorfu.runtime.VersionCapturing} class are served from their view's
 * {@link CapturedVersions} instead (O(1), no replay); this history serves them only for addresses
 * older than every captured version they still keep.
 *
 * <p>Not thread-safe: used under its {@link SmrEngine}'s lock.
 */
final class UpdateHistory {
  private static final Logger LOG = LoggerFactory.getLogger(UpdateHistory.class);
  static final int CACHED_VERSIONS = 4;
  private static final int READ_BATCH = 1024;

  /** One update applied at a global address, its arguments still serialized. */
  record Applied(long address, MethodModel method, byte[][] args) {}

  private record Version(Object state, long from, long until) {}

  private final RuntimeCore core;
  private final StreamId stream;
  private final ClassModel model;
  private final Serializer serializer;
  private final ViewBase base;
  private final HistoryBudget budget;
  private List<Applied> retained = new ArrayList<>();
  private boolean complete = true;
  private long retainedBytes;
  private final ArrayDeque<Version> versions = new ArrayDeque<>();

  UpdateHistory(
      RuntimeCore core,
      StreamId stream,
      ClassModel model,
      Serializer serializer,
      ViewBase base,
      HistoryBudget budget) {
    this.core = core;
    this.stream = stream;
    this.model = model;
    this.serializer = serializer;
    this.base = base;
    this.budget = budget;
  }

  long baseVersion() {
    return base.version();
  }

  /**
   * The updates of a log entry addressed to this stream, in order; malformed ones are skipped with
   * a warning.
   */
  List<Applied> updatesOf(StreamEntry e) {
    List<SmrRecord.Update> updates;
    try {
      updates = SmrRecord.decode(e.payload());
    } catch (SerializationException ex) {
      LOG.warn(
          "Skipping the entry at global address {} of stream {}: not an SMR entry ({})",
          e.globalAddress(),
          stream,
          ex.getMessage());
      return List.of();
    }
    List<Applied> out = new ArrayList<>(updates.size());
    for (SmrRecord.Update u : updates) {
      if (!u.stream().equals(stream)) {
        continue;
      }
      MethodModel m = model.method(u.signature());
      if (m == null || !m.writes()) {
        LOG.warn(
            "Skipping update {} at global address {} of stream {}: {} has no such mutator",
            u.signature(),
            e.globalAddress(),
            stream,
            model.type().getName());
        continue;
      }
      out.add(new Applied(e.globalAddress(), m, u.args()));
    }
    return out;
  }

  /**
   * Applies a serialized update to {@code state}; returns the upcall's result or throws its
   * failure.
   */
  Object applyTo(Object state, MethodModel m, byte[][] args) throws Exception {
    return UpcallRunner.apply(state, m, UpdateCodec.decodeArgs(args, serializer));
  }

  /** Brings a new instance in the class's initial state to the base. */
  void applyBase(Object state) {
    if (base.image() != null) {
      base.image().restoreInto(state, serializer);
    }
    for (SmrRecord.Update u : base.state()) {
      MethodModel m = model.method(u.signature());
      if (m == null || !m.writes()) {
        throw new IllegalArgumentException(
            "the base state of stream "
                + stream
                + " calls "
                + u.signature()
                + ", which is not a mutator of "
                + model.type().getName());
      }
      replay(state, new Applied(base.version(), m, u.args()));
    }
  }

  /**
   * Records an update the live state applied; drops the whole history once it outgrows the bound.
   */
  void retain(Applied a) {
    if (!complete) {
      return;
    }
    retained.add(a);
    long added = 48;
    for (byte[] arg : a.args()) {
      added += arg.length + 16;
    }
    retainedBytes += added;
    budget.add(added);
    if (budget.spent()) {
      LOG.debug(
          "Stream {} gives back its retained history ({} bytes): the runtime's live views hold"
              + " more than {} bytes of old versions; its old versions will be replayed from the"
              + " log",
          stream,
          retainedBytes,
          budget.limit());
      release();
    }
  }

  /** Gives the retained updates' bytes back to the budget and forgets them. */
  void release() {
    budget.add(-retainedBytes);
    retainedBytes = 0;
    retained = new ArrayList<>();
    complete = false;
  }

  /**
   * A read-only instance holding the state as of {@code snapshot}, cached. The live view must have
   * reached {@code snapshot}: it has consumed the stream below {@code streamPos} and every update
   * up to {@code version}.
   */
  Object versionAt(long snapshot, long streamPos, long version) {
    for (Version v : versions) {
      if (v.from() <= snapshot && snapshot < v.until()) {
        return v.state();
      }
    }
    Object state = model.newState();
    long[] range = replayInto(state, snapshot, streamPos, version);
    if (versions.size() == CACHED_VERSIONS) {
      versions.removeFirst();
    }
    versions.addLast(new Version(state, range[0], range[1]));
    return state;
  }

  /**
   * Plays the base and every update up to {@code snapshot} onto {@code target} (a new instance in
   * the class's initial state). Returns the address of the last update applied (the base's if none)
   * and of the first update after {@code snapshot} ({@code version + 1} if none): the addresses the
   * result is valid for.
   */
  long[] replayInto(Object target, long snapshot, long streamPos, long version) {
    applyBase(target);
    long from = base.version();
    long until = version + 1;
    if (complete) {
      int end = firstAfter(snapshot);
      for (int i = 0; i < end; i++) {
        replay(target, retained.get(i));
      }
      if (end > 0) {
        from = retained.get(end - 1).address();
      }
      if (end < retained.size()) {
        until = retained.get(end).address();
      }
      return new long[] {from, until};
    }
    long pos = base.streamPos();
    scanning:
    while (pos < streamPos) {
      long to = Math.min(streamPos - 1, pos + READ_BATCH - 1);
      List<StreamEntry> entries = core.await(core.log().readStream(stream, pos, to));
      if (entries.isEmpty()) {
        throw new VCorfuException(
            "stream " + stream + " returned nothing for addresses " + pos + ".." + to);
      }
      for (StreamEntry e : entries) {
        if (e.streamAddress() < pos) {
          continue;
        }
        pos = e.streamAddress() + 1;
        if (e.isHole()) {
          continue;
        }
        if (e.globalAddress() > snapshot) {
          until = e.globalAddress();
          break scanning;
        }
        for (Applied a : updatesOf(e)) {
          replay(target, a);
          from = a.address();
        }
      }
    }
    return new long[] {from, until};
  }

  /** Index of the first retained update with an address above {@code snapshot}. */
  private int firstAfter(long snapshot) {
    int lo = 0;
    int hi = retained.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (retained.get(mid).address() <= snapshot) {
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
}
