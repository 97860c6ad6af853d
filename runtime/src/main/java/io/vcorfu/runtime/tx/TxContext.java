package io.vcorfu.runtime.tx;

import com.google.protobuf.ByteString;
import io.vcorfu.client.ConflictKey;
import io.vcorfu.client.IssueCondition;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.runtime.TransactionAbortedException;
import io.vcorfu.runtime.TransactionStateException;
import io.vcorfu.runtime.proxy.MethodKind;
import io.vcorfu.runtime.proxy.MethodModel;
import io.vcorfu.runtime.smr.SmrEngine;
import io.vcorfu.runtime.smr.SmrRecord;
import io.vcorfu.runtime.smr.UpcallRunner;
import io.vcorfu.runtime.smr.UpdateCodec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One open transaction of one thread: its snapshot, read and write sets, buffered writes, and the
 * private copies of objects it wrote and then read (read-own-writes). Confined to its thread.
 *
 * <p>Every read uses the snapshot (opacity). A read of an object the transaction has written runs
 * on a private copy: the object's state as of the snapshot, rebuilt by its view, with the buffered
 * writes applied in order. The copy is built when first needed and kept up to date with later
 * writes, so objects whose state is expensive to rebuild cost one rebuild per transaction.
 *
 * <p><b>Levels.</b> A nested {@code TXBegin} opens an inner level, which keeps a write set of its
 * own: the writes buffered since it began. Ending it hands them to the level around it; aborting it
 * drops exactly them (and the private copies they changed, rebuilt from the snapshot and the
 * remaining writes when next read), and the level around it goes on. Invariant: the buffered writes
 * and the write set are always those of the outermost level plus the inner levels still open or
 * ended into it, in call order, never any of an aborted level. Reads of an aborted level stay in
 * the read set: the levels around it may have acted on what they saw, so the commit is judged on
 * them too (opacity holds for every level).
 */
public final class TxContext {
  private static final Logger LOG = LoggerFactory.getLogger(TxContext.class);

  record Key(StreamId stream, ByteString key) {
    ConflictKey toConflictKey() {
      return new ConflictKey(stream, key.toByteArray());
    }
  }

  /** A buffered write; {@code view} is null for a write made through a remote view. */
  private record Pending(SmrEngine view, MethodModel method, SmrRecord.Update update) {}

  final Thread owner;
  final long snapshot;

  /**
   * The log's epoch when the snapshot was taken (see {@link io.vcorfu.client.StreamLog#epoch()}).
   */
  final long snapshotEpoch;

  boolean readOnly;
  private final Set<Key> readSet = new LinkedHashSet<>();
  private final Set<Key> writeSet = new LinkedHashSet<>();

  /**
   * For each open inner level, innermost last: how many buffered writes and write-set additions
   * there were when it began.
   */
  private final List<int[]> levels = new ArrayList<>();

  /** The write-set keys first added while an inner level was open, in order (for its abort). */
  private final List<Key> addedInLevels = new ArrayList<>();

  private final List<Pending> writes = new ArrayList<>();
  private final Map<SmrEngine, Object> privateStates = new HashMap<>();

  TxContext(Thread owner, long snapshot, long snapshotEpoch, boolean readOnly) {
    this.owner = owner;
    this.snapshot = snapshot;
    this.snapshotEpoch = snapshotEpoch;
    this.readOnly = readOnly;
  }

  /** The global address every read of the transaction sees the objects as of. */
  public long snapshot() {
    return snapshot;
  }

  boolean hasWrites() {
    return !writes.isEmpty();
  }

  /** How many levels are open: 1 for the outermost alone. */
  int depth() {
    return levels.size() + 1;
  }

  /** Opens an inner level. */
  void beginLevel() {
    levels.add(new int[] {writes.size(), addedInLevels.size()});
  }

  /** Ends the innermost level: its writes become the writes of the level around it. */
  void endLevel() {
    levels.remove(levels.size() - 1);
    if (levels.isEmpty()) {
      addedInLevels.clear();
    }
  }

  /** Aborts the innermost level: drops its writes; the level around it goes on. */
  void abortLevel() {
    int[] mark = levels.remove(levels.size() - 1);
    List<Pending> dropped = writes.subList(mark[0], writes.size());
    for (Pending p : dropped) {
      if (p.view() != null) {
        privateStates.remove(p.view());
      }
    }
    dropped.clear();
    List<Key> added = addedInLevels.subList(mark[1], addedInLevels.size());
    added.forEach(writeSet::remove);
    added.clear();
  }

  /** Adds {@code k} to the write set, remembering it for an inner level's abort. */
  private void wrote(Key k) {
    if (writeSet.add(k) && !levels.isEmpty()) {
      addedInLevels.add(k);
    }
  }

  /** An accessor call inside the transaction. */
  public Object read(SmrEngine view, MethodModel m, Object[] args, Callable<Object> body)
      throws Exception {
    readSet.add(key(view, m, args));
    if (privateStates.containsKey(view) || wrote(view)) {
      return UpcallRunner.apply(privateState(view), m, args);
    }
    try {
      return view.readAt(snapshot, m, args, body);
    } catch (TrimmedException e) {
      throw trimmed(view, e);
    }
  }

  /**
   * A mutator or mutator-accessor call inside the transaction: buffered; a mutator-accessor runs on
   * the private copy and returns its result.
   */
  public Object write(SmrEngine view, MethodModel m, SmrRecord.Update update) throws Exception {
    if (readOnly) {
      throw new TransactionStateException(
          "mutator " + m.signature() + " was called inside a read-only transaction");
    }
    Object state = null;
    if (m.kind() == MethodKind.MUTATOR_ACCESSOR) {
      readSet.add(new Key(view.stream(), keyOf(update)));
      state = privateState(view);
    } else {
      state = privateStates.get(view);
    }
    writes.add(new Pending(view, m, update));
    wrote(new Key(view.stream(), keyOf(update)));
    if (state == null) {
      return null;
    }
    try {
      return view.applyTo(state, m, update.args());
    } catch (Exception e) {
      if (m.kind() == MethodKind.MUTATOR_ACCESSOR) {
        throw e;
      }
      LOG.debug("Buffered upcall {} threw on the transaction's copy", m.signature(), e);
      return null;
    }
  }

  /**
   * A mutator or mutator-accessor call on a remote view inside the transaction: buffered like a
   * local view's, with no private copy here (the host applies the buffered updates on its side).
   */
  public void writeRemote(MethodModel m, SmrRecord.Update update) {
    if (readOnly) {
      throw new TransactionStateException(
          "mutator " + m.signature() + " was called inside a read-only transaction");
    }
    if (m.kind() == MethodKind.MUTATOR_ACCESSOR) {
      readSet.add(new Key(update.stream(), keyOf(update)));
    }
    writes.add(new Pending(null, m, update));
    wrote(new Key(update.stream(), keyOf(update)));
  }

  /** Records a read of a remote view on {@code stream} conflicting on {@code key}. */
  public void readRemote(StreamId stream, byte[] key) {
    readSet.add(new Key(stream, ByteString.copyFrom(key)));
  }

  /** The buffered updates to {@code stream}, in the order they were made. */
  public List<SmrRecord.Update> bufferedFor(StreamId stream) {
    List<SmrRecord.Update> out = new ArrayList<>();
    for (Pending p : writes) {
      if (p.update().stream().equals(stream)) {
        out.add(p.update());
      }
    }
    return out;
  }

  private boolean wrote(SmrEngine view) {
    for (Pending p : writes) {
      if (p.view() == view) {
        return true;
      }
    }
    return false;
  }

  private Object privateState(SmrEngine view) {
    Object state = privateStates.get(view);
    if (state != null) {
      return state;
    }
    try {
      state = view.freshAt(snapshot);
    } catch (TrimmedException e) {
      throw trimmed(view, e);
    }
    for (Pending p : writes) {
      if (p.view() == view) {
        try {
          view.applyTo(state, p.method(), p.update().args());
        } catch (Exception e) {
          LOG.debug(
              "Buffered upcall {} threw on the transaction's copy", p.method().signature(), e);
        }
      }
    }
    privateStates.put(view, state);
    return state;
  }

  private static ByteString keyOf(SmrRecord.Update u) {
    return u.conflictKeys().isEmpty()
        ? ByteString.EMPTY
        : ByteString.copyFrom(u.conflictKeys().get(0));
  }

  private static Key key(SmrEngine view, MethodModel m, Object[] args) {
    return new Key(
        view.stream(), ByteString.copyFrom(UpdateCodec.conflictKey(m, args, view.serializer())));
  }

  private TransactionAbortedException trimmed(SmrEngine view, TrimmedException e) {
    return new TransactionAbortedException(
        TransactionAbortedException.Reason.TRIMMED,
        snapshot,
        view.stream(),
        null,
        -1,
        "the transaction aborted: stream "
            + view.stream()
            + " cannot be read as of its snapshot "
            + snapshot
            + " (trimmed below "
            + e.trimMark()
            + ")",
        e);
  }

  /** Streams written, in first-write order. */
  List<StreamId> writeStreams() {
    Map<StreamId, Boolean> streams = new LinkedHashMap<>();
    for (Pending p : writes) {
      streams.put(p.update().stream(), Boolean.TRUE);
    }
    return new ArrayList<>(streams.keySet());
  }

  /** The commit entry's payload: every buffered update in order. */
  byte[] commitPayload() {
    List<SmrRecord.Update> updates = new ArrayList<>(writes.size());
    for (Pending p : writes) {
      updates.add(p.update());
    }
    return SmrRecord.encode(updates);
  }

  /** What the sequencer needs to judge the commit. */
  IssueCondition resolution() {
    return new IssueCondition(
        snapshot,
        snapshotEpoch,
        readSet.stream().map(Key::toConflictKey).toList(),
        writeSet.stream().map(Key::toConflictKey).toList());
  }
}
