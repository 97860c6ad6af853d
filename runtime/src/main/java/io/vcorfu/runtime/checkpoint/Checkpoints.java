package io.vcorfu.runtime.checkpoint;

import io.vcorfu.client.AppendAbortedException;
import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ConflictKey;
import io.vcorfu.client.IssueCondition;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.Tails;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TokenRefusedException;
import io.vcorfu.protocol.VCorfuException;
import io.vcorfu.runtime.VersionCapturing;
import io.vcorfu.runtime.proxy.ClassModel;
import io.vcorfu.runtime.proxy.SmrProxy;
import io.vcorfu.runtime.serialization.BinaryReader;
import io.vcorfu.runtime.serialization.BinaryWriter;
import io.vcorfu.runtime.serialization.SerializationException;
import io.vcorfu.runtime.serialization.Serializer;
import io.vcorfu.runtime.serialization.UnsupportedTypeException;
import io.vcorfu.runtime.smr.RuntimeCore;
import io.vcorfu.runtime.smr.SmrEngine;
import io.vcorfu.runtime.smr.ViewBase;
import io.vcorfu.runtime.view.LocalViewHandle;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoints of objects: an object's fields as of a version, written to the object's checkpoint
 * stream, so a view opens from the latest checkpoint instead of replaying the stream from its
 * start.
 *
 * <p>The checkpoint stream of object stream S is {@code StreamId.of(S + "/checkpoint")} (S in its
 * UUID form). Each of its entries is one checkpoint (varints unsigned LEB128, "bytes" a varint
 * length then the bytes, "string" bytes of UTF-8):
 *
 * <pre>
 * checkpoint := format:byte(=1) stream.msb:fixed64 stream.lsb:fixed64 type:string
 *               version:fixed64   every update of S up to this global address is reflected
 *               streamPos:fixed64 the next stream address of S to play
 *               count:varint (field:string value:bytes){count}   see {@link CheckpointImage}
 * </pre>
 *
 * A {@link VersionCapturing} object's checkpoint holds one pair: its version's checkpoint form (see
 * {@link CheckpointImage}). Writing one holds the view's lock only to capture the version.
 *
 * <p>Invariant: the checkpoints of a checkpoint stream reflect versions that grow with their stream
 * addresses, so its last readable checkpoint is its newest, the one a view opens from. Several
 * writers checkpoint the same object (each runtime that has it open, automatically and when asked):
 * one whose capture is older than the stream's last checkpoint writes nothing, and one appends only
 * conditionally on the checkpoint stream not having been written since it read that last checkpoint
 * (conditional issuance, the whole checkpoint stream as the read set), so a slower writer cannot
 * put an older checkpoint after a newer one, which openers would then replay more from, and below
 * which another writer's trim may already have released the object's stream.
 *
 * <p>Thread-safe.
 */
public final class Checkpoints {
  private static final Logger LOG = LoggerFactory.getLogger(Checkpoints.class);
  static final int FORMAT = 1;

  /** How many trailing checkpoint-stream addresses are tried when the last ones are holes. */
  private static final int LOOKBACK = 8;

  /**
   * How many times a checkpoint's append is tried again after another writer appended to the
   * checkpoint stream first (each try reads the stream's last checkpoint again).
   */
  private static final int APPEND_TRIES = 8;

  private static final Set<String> REPORTED = ConcurrentHashMap.newKeySet();

  private Checkpoints() {}

  /** The checkpoint stream of object stream {@code object}. */
  public static StreamId streamOf(StreamId object) {
    return object.derive("/checkpoint");
  }

  /** The next stream address the local view behind {@code proxy} will play. */
  public static long position(Object proxy) {
    return liveView(proxy).view().inspect((state, version, pos) -> pos);
  }

  /** The global address the state of the local view behind {@code proxy} reflects. */
  public static long version(Object proxy) {
    return liveView(proxy).view().inspect((state, version, pos) -> version);
  }

  /**
   * Writes a checkpoint of the local view behind {@code proxy} (a live view opened by {@code
   * core}'s runtime) as of the view's current version, without syncing it first. Returns that
   * version (or the newer version of the checkpoint stream's last checkpoint, when another writer's
   * is already as new: nothing is written then), or empty when a field of the object's class cannot
   * be encoded by its serializer (logged once per class); nothing is written then either.
   */
  public static OptionalLong write(RuntimeCore core, Object proxy) {
    Written w = writeAndTell(core, proxy);
    return w == null ? OptionalLong.empty() : OptionalLong.of(w.version());
  }

  /**
   * A checkpoint written: the global address it reflects, the next stream address to play after it,
   * its encoded size, and its address in the checkpoint stream; {@code byThisCall} false when it is
   * another writer's, found as new or newer than the one this call captured (which it did not
   * write).
   */
  public record Written(
      long version, long streamPos, long bytes, long checkpointAddress, boolean byThisCall) {}

  /**
   * {@link #write}, telling what was written (or found newer); null when nothing was (see there).
   */
  public static Written writeAndTell(RuntimeCore core, Object proxy) {
    LocalViewHandle handle = liveView(proxy);
    if (handle.core() != core) {
      throw new IllegalArgumentException("the object was not opened by this runtime");
    }
    SmrEngine view = handle.view();
    Class<?> type = view.model().type();
    byte[] payload;
    long version;
    long streamPos;
    try {
      // A VersionCapturing object's state is captured in O(1) under the lock and encoded outside
      // it.
      Object[] captured =
          view.inspect(
              (state, v, pos) ->
                  new Object[] {
                    state instanceof VersionCapturing<?> vs
                        ? vs.captureVersion()
                        : CheckpointImage.capture(type, state, view.serializer()),
                    v,
                    pos
                  });
      version = (Long) captured[1];
      streamPos = (Long) captured[2];
      CheckpointImage image =
          proxy instanceof VersionCapturing<?>
              ? CheckpointImage.ofVersion(type, proxy, captured[0], view.serializer())
              : (CheckpointImage) captured[0];
      payload = encode(view.stream(), image, version, (Long) captured[2]);
    } catch (UnsupportedTypeException e) {
      if (REPORTED.add(type.getName())) {
        LOG.warn(
            "Objects of class {} are not checkpointed: a field's value cannot be encoded by the "
                + "object's serializer ({})",
            type.getName(),
            e.getMessage());
      }
      return null;
    }
    return appendInOrder(core, view.stream(), type.getName(), payload, version, streamPos);
  }

  /**
   * Appends {@code payload}, the checkpoint of {@code stream} as of {@code version}, unless the
   * checkpoint stream's last checkpoint is as new (that one is returned); conditionally on the
   * checkpoint stream not having been written since that last checkpoint was read, tried again when
   * it was (see the class's invariant).
   */
  private static Written appendInOrder(
      RuntimeCore core,
      StreamId stream,
      String typeName,
      byte[] payload,
      long version,
      long streamPos) {
    StreamId cp = streamOf(stream);
    for (int tries = 1; ; tries++) {
      long epoch = core.log().epoch();
      Tails tails = core.await(core.log().tails(List.of(cp)));
      Written last =
          lastCheckpoint(core, stream, typeName, tails.streamTails().getOrDefault(cp, -1L));
      if (last != null && last.version() >= version) {
        return last;
      }
      IssueCondition unwritten =
          new IssueCondition(
              tails.globalTail(), epoch, List.of(new ConflictKey(cp, new byte[0])), List.of());
      try {
        AppendResult r = core.await(core.log().appendConditional(List.of(cp), payload, unwritten));
        return new Written(version, streamPos, payload.length, r.streamAddresses().get(cp), true);
      } catch (TokenRefusedException | AppendAbortedException raced) {
        // Nothing of this try reached the log (refused, or decided a hole): look again.
        if (tries >= APPEND_TRIES) {
          throw new VCorfuException(
              "the checkpoint of stream "
                  + stream
                  + " lost "
                  + tries
                  + " races with other writers of its checkpoint stream; try again",
              raced);
        }
      }
    }
  }

  /**
   * The last readable checkpoint of {@code stream} of class {@code typeName} at or below checkpoint
   * stream address {@code tail} (past holes, {@link #LOOKBACK} addresses at most), or null.
   */
  private static Written lastCheckpoint(
      RuntimeCore core, StreamId stream, String typeName, long tail) {
    return walkBack(
            core,
            stream,
            tail,
            LOOKBACK,
            (pos, bytes, base) ->
                Optional.ofNullable(
                    base.image().typeName().equals(typeName)
                        ? new Written(base.version(), base.streamPos(), bytes, pos, false)
                        : null))
        .orElse(null);
  }

  /** What {@link #walkBack} makes of one decoded checkpoint. */
  private interface Visit<T> {
    /**
     * The answer ({@code empty}: none, stop looking), or null to look at the older checkpoints; an
     * exception skips this checkpoint as unreadable.
     */
    Optional<T> at(long pos, int bytes, ViewBase base);
  }

  /**
   * Walks {@code stream}'s checkpoint stream back from address {@code tail}, {@code lookback}
   * addresses at most or to its trim mark, past holes and unreadable checkpoints (logged), and
   * returns what {@code visit} first answers of a decoded one; empty when it answers nothing.
   */
  private static <T> Optional<T> walkBack(
      RuntimeCore core, StreamId stream, long tail, long lookback, Visit<T> visit) {
    StreamId cp = streamOf(stream);
    for (long pos = tail; pos >= 0 && tail - pos < lookback; pos--) {
      List<StreamEntry> entries;
      try {
        entries = core.await(core.log().readStream(cp, pos, pos));
      } catch (io.vcorfu.protocol.TrimmedException trimmed) {
        return Optional.empty(); // older checkpoints are gone
      }
      for (StreamEntry e : entries) {
        if (e.streamAddress() != pos || e.isHole()) {
          continue;
        }
        try {
          Optional<T> answer = visit.at(pos, e.payload().length, decode(e.payload(), stream));
          if (answer != null) {
            return answer;
          }
        } catch (RuntimeException ex) {
          skipped(pos, stream, ex);
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Logs that the checkpoint at {@code pos} of {@code stream}'s checkpoint stream is unreadable.
   */
  static void skipped(long pos, StreamId stream, RuntimeException why) {
    LOG.warn(
        "Skipping the checkpoint at stream address {} of stream {}: {}",
        pos,
        stream,
        why.getMessage());
  }

  /**
   * The base to build a view of {@code stream} as of global address {@code asOf} from: the newest
   * readable checkpoint of the same class reflecting no update after {@code asOf}, or the initial
   * state when there is none (the stream is then played from its start, which fails with a
   * TrimmedException when it was trimmed: that version is no longer retained). Found by bisecting
   * the checkpoint stream ({@link CheckpointSearch}): a snapshot of an old version reads about
   * log2(checkpoints) checkpoints, not every one written since.
   */
  public static ViewBase atOrBelow(
      RuntimeCore core, StreamId stream, ClassModel model, Serializer serializer, long asOf) {
    long tail = checkpointTail(core, stream);
    CheckpointSearch.Found found = CheckpointSearch.newestAtOrBelow(core, stream, tail, asOf);
    if (found == null) {
      return ViewBase.INITIAL;
    }
    try {
      return baseFrom(stream, model, serializer, asOf, found.base());
    } catch (RuntimeException e) {
      skipped(found.pos(), stream, e);
      // The older checkpoints, one by one, as a view of the latest state would.
      return newest(core, stream, model, serializer, asOf, found.pos() - 1, Long.MAX_VALUE);
    }
  }

  /**
   * The base to open {@code stream} from: its latest readable checkpoint of the same class, or the
   * initial state when there is none (or it cannot be restored, which is logged).
   */
  public static ViewBase latest(
      RuntimeCore core, StreamId stream, ClassModel model, Serializer serializer) {
    return newest(
        core, stream, model, serializer, Long.MAX_VALUE, checkpointTail(core, stream), LOOKBACK);
  }

  private static long checkpointTail(RuntimeCore core, StreamId stream) {
    StreamId cp = streamOf(stream);
    return core.await(core.log().tails(List.of(cp))).streamTails().getOrDefault(cp, -1L);
  }

  /**
   * The newest readable checkpoint of {@code stream} reflecting no update after {@code asOf}, among
   * the {@code lookback} addresses of its checkpoint stream from {@code tail} down; the initial
   * state when there is none, or when it holds another class.
   */
  private static ViewBase newest(
      RuntimeCore core,
      StreamId stream,
      ClassModel model,
      Serializer serializer,
      long asOf,
      long tail,
      long lookback) {
    return walkBack(
            core,
            stream,
            tail,
            lookback,
            (pos, bytes, base) -> {
              ViewBase from = baseFrom(stream, model, serializer, asOf, base);
              return from == null ? null : Optional.of(from);
            })
        .orElse(ViewBase.INITIAL);
  }

  /**
   * What a view of {@code stream} as of {@code asOf} opens from, given its checkpoint {@code base}:
   * null when the checkpoint reflects updates after {@code asOf} (an older one is needed); the
   * initial state when it holds another class (logged); else the checkpoint, once its image
   * restored.
   *
   * @throws RuntimeException when the image does not restore
   */
  private static ViewBase baseFrom(
      StreamId stream, ClassModel model, Serializer serializer, long asOf, ViewBase base) {
    if (base.version() > asOf) {
      return null;
    }
    if (!base.image().typeName().equals(model.type().getName())) {
      LOG.info(
          "Opening stream {} from its start: its checkpoint holds a {}, not a {}",
          stream,
          base.image().typeName(),
          model.type().getName());
      return ViewBase.INITIAL;
    }
    base.image().restoreInto(model.newState(), serializer);
    return base;
  }

  static byte[] encode(StreamId stream, CheckpointImage image, long version, long streamPos) {
    BinaryWriter w = new BinaryWriter();
    w.writeByte(FORMAT).writeFixedLong(stream.msb()).writeFixedLong(stream.lsb());
    w.writeString(image.typeName()).writeFixedLong(version).writeFixedLong(streamPos);
    w.writeVarLong(image.values().size());
    for (Map.Entry<String, byte[]> f : image.values().entrySet()) {
      w.writeString(f.getKey()).writeBytes(f.getValue());
    }
    return w.toByteArray();
  }

  static ViewBase decode(byte[] payload, StreamId expected) {
    BinaryReader r = new BinaryReader(payload);
    int format = r.readByte();
    if (format != FORMAT) {
      throw new SerializationException("unknown checkpoint format " + format);
    }
    StreamId stream = new StreamId(r.readFixedLong(), r.readFixedLong());
    if (!stream.equals(expected)) {
      throw new SerializationException(
          "the checkpoint is of stream " + stream + ", not " + expected);
    }
    String type = r.readString();
    long version = r.readFixedLong();
    long streamPos = r.readFixedLong();
    int n = r.readLength();
    Map<String, byte[]> values = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      values.put(r.readString(), r.readBytes());
    }
    r.expectEnd();
    return new ViewBase(version, streamPos, List.of(), new CheckpointImage(type, values));
  }

  private static LocalViewHandle liveView(Object proxy) {
    if (proxy instanceof SmrProxy p
        && p.getVcorfuHandle$() instanceof LocalViewHandle h
        && !h.snapshot()) {
      return h;
    }
    throw new IllegalArgumentException("only a live local view can be checkpointed, not " + proxy);
  }
}
