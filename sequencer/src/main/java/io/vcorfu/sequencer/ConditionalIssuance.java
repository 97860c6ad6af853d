package io.vcorfu.sequencer;

import com.google.protobuf.ByteString;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TokenRefusedException;
import io.vcorfu.protocol.proto.ConflictKey;
import io.vcorfu.protocol.proto.StreamIdMsg;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.protocol.proto.TxResolution;
import io.vcorfu.sequencer.internal.KeyWriteCache;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Conditional issuance (the paper's transaction resolution at the sequencer): decides whether a
 * transaction's read set conflicts with a write issued after its snapshot, and records the writes
 * of every issued request so later transactions can be checked against them.
 *
 * <p>Conflict rules: a read of a whole object (empty key) conflicts with any write to its stream
 * after the snapshot; a keyed read conflicts with a later write of the same key or a later
 * whole-object write of its stream. A non-transactional append is a whole-object write of each of
 * its streams; a transaction writes each key of its write set (empty key = whole object), and a
 * token stream the write set does not mention is a whole-object write. Keys evicted from the
 * bounded key cache raise their stream's eviction watermark, and a keyed read the cache no longer
 * knows conflicts with it (conservatively).
 *
 * <p>Thread-safety: none; confined like the {@link Sequencer} that owns it.
 */
final class ConditionalIssuance {
  private final KeyWriteCache keyWrites;
  private final Map<StreamId, StreamIssuance> streams;
  private final Function<StreamId, StreamIssuance> state;

  /**
   * Checks against at most {@code keyCacheCapacity} remembered key writes; {@code streams} is the
   * sequencer's per-stream state, read to check and updated to record, and {@code state} looks a
   * stream's state up, creating it when absent.
   */
  ConditionalIssuance(
      int keyCacheCapacity,
      Map<StreamId, StreamIssuance> streams,
      Function<StreamId, StreamIssuance> state) {
    this.streams = streams;
    this.state = state;
    this.keyWrites =
        new KeyWriteCache(
            keyCacheCapacity,
            (stream, address) -> {
              StreamIssuance s = state.apply(stream);
              s.evictedWatermark = Math.max(s.evictedWatermark, address);
            });
  }

  /** Forgets every recorded key write (a bootstrap replaces all state). */
  void clear() {
    keyWrites.clear();
  }

  /**
   * Refuses {@code tx} with {@link TokenRefusedException} when its read set conflicts with a write
   * after its snapshot, when its snapshot predates {@code bootstrapPoint}, or when it read anything
   * at an epoch older than {@code epoch}.
   */
  void check(TxResolution tx, long epoch, long bootstrapPoint) {
    long snapshot = tx.getSnapshot();
    if (tx.getReadSetCount() > 0 && tx.getSnapshotEpoch() < epoch) {
      throw TokenRefusedException.sequencerRestarted(
          StreamId.fromMsg(tx.getReadSet(0).getStream()));
    }
    for (ConflictKey read : tx.getReadSetList()) {
      StreamId stream = StreamId.fromMsg(read.getStream());
      ByteString key = read.getKey();
      if (snapshot < bootstrapPoint) {
        throw new TokenRefusedException(stream, key.toByteArray(), -1, true);
      }
      StreamIssuance s = streams.get(stream);
      if (s == null) {
        continue;
      }
      if (key.isEmpty()) {
        if (s.lastAnyWrite > snapshot) {
          throw new TokenRefusedException(stream, new byte[0], s.lastAnyWrite, false);
        }
        continue;
      }
      if (s.lastWholeWrite > snapshot) {
        throw new TokenRefusedException(stream, new byte[0], s.lastWholeWrite, false);
      }
      long keyWrite = keyWrites.lastWrite(stream, key);
      if (keyWrite > snapshot) {
        throw new TokenRefusedException(stream, key.toByteArray(), keyWrite, false);
      }
      if (keyWrite == -1 && s.evictedWatermark > snapshot) {
        throw new TokenRefusedException(stream, key.toByteArray(), -1, true);
      }
    }
  }

  /**
   * Records the writes of {@code request}, whose tokens end at global {@code address}; {@code
   * states} are its token streams' states, in request order.
   */
  void record(TokenRequest request, StreamIssuance[] states, long address) {
    if (!request.hasTx()) {
      for (StreamIssuance s : states) {
        s.lastAnyWrite = address;
        s.lastWholeWrite = address;
      }
      return;
    }
    List<ConflictKey> writeSet = request.getTx().getWriteSetList();
    Set<StreamId> mentioned = new HashSet<>();
    for (ConflictKey w : writeSet) {
      StreamId stream = StreamId.fromMsg(w.getStream());
      mentioned.add(stream);
      StreamIssuance s = state.apply(stream);
      s.lastAnyWrite = address;
      if (w.getKey().isEmpty()) {
        s.lastWholeWrite = address;
      } else {
        keyWrites.recordWrite(stream, w.getKey(), address);
      }
    }
    List<StreamIdMsg> msgs = request.getStreamsList();
    for (int i = 0; i < states.length; i++) {
      states[i].lastAnyWrite = address;
      if (!mentioned.contains(StreamId.fromMsg(msgs.get(i)))) {
        states[i].lastWholeWrite = address;
      }
    }
  }
}
