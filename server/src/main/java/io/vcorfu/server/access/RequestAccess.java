package io.vcorfu.server.access;

import io.vcorfu.protocol.PermissionDeniedException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.ChainStep;
import io.vcorfu.protocol.proto.ChainWriteRequest;
import io.vcorfu.protocol.proto.ConflictKey;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.proto.StreamIdMsg;
import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.protocol.proto.TokenRequest;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What each request needs of its caller's grants, checked before the node does anything of it.
 *
 * <ul>
 *   <li>Tails, layouts, pings, snapshot registrations and read leases: any principal the node's CA
 *       certified (they reveal addresses, never entries).
 *   <li>Tokens and sequenced writes: {@code write} on every stream written, {@code read} on every
 *       stream a transaction read; so a transaction over streams one of which the caller may not
 *       write is refused whole, before anything is issued.
 *   <li>Copies of data entries (log, stream and chain writes): {@code write} on every stream of the
 *       entry (writers write their own entries' copies). Holes and lost-entry marks written as
 *       entries: {@code node}.
 *   <li>Commits and fills (the repair every reader and writer does): {@code read} or {@code write}
 *       on the stream of each slot they name; those that name only global addresses, any principal
 *       that may read or write some stream. Neither can change what an entry holds: a commit marks
 *       an entry a writer wrote, a fill writes a hole only where nothing is committed.
 *   <li>Stream reads: {@code read} on the stream. Log reads: checked on the answer, {@code read} on
 *       some stream of every data entry returned ({@link #checkAnswer}). An entry written to
 *       several streams at once (a transaction) is one record in each of them: whoever may read one
 *       of its streams reads the whole entry.
 *   <li>Trims: {@code trim} on the stream; the global log's trim needs it on every stream (the
 *       empty prefix).
 *   <li>Remote-view calls: {@code view} on the object's stream; one that ships the object's classes
 *       (code the node runs) also {@code deploy} on it.
 *   <li>Layout changes (add, remove, replace a node) and compaction: {@code admin}. Seals and
 *       anything else: {@code node}.
 * </ul>
 *
 * The name directory's stream is read and written by every client (a name is registered before its
 * first write), so every certified principal may read and write it.
 */
final class RequestAccess {
  private final AccessList grants;
  private final StreamNames names;
  private final String who;

  private RequestAccess(AccessList grants, StreamNames names, String who) {
    this.grants = grants;
    this.names = names;
    this.who = who;
  }

  /** Why {@code who} may not send {@code r}, or null when it may. */
  static PermissionDeniedException check(
      Request r, String who, AccessList grants, StreamNames names) {
    if (grants.isNode(who)) {
      return null;
    }
    try {
      new RequestAccess(grants, names, who).require(r);
      return null;
    } catch (PermissionDeniedException e) {
      return e;
    }
  }

  /**
   * Why {@code who} may not see {@code answer} to a log read (some data entry none of whose streams
   * it may read), or null when it may.
   */
  static PermissionDeniedException checkAnswer(
      Response answer, String who, AccessList grants, StreamNames names) {
    if (!answer.hasLogRead() || grants.isNode(who)) {
      return null;
    }
    RequestAccess a = new RequestAccess(grants, names, who);
    try {
      for (ReadResult res : answer.getLogRead().getResultsList()) {
        LogEntryMsg e = res.getEntry();
        if (res.hasEntry() && e.getKind() == EntryKind.DATA) {
          a.readsSome(e.getSlotsList());
        }
      }
      return null;
    } catch (PermissionDeniedException e) {
      return e;
    }
  }

  private void require(Request r) {
    switch (r.getPayloadCase()) {
      case PING, GET_LAYOUT, SNAPSHOTS, TAIL, READ_LEASE, LOG_TAIL, STREAM_TAIL -> {}
      case ADD_NODE, REMOVE_NODE, COMPACT -> need(Permission.ADMIN, null);
      case TOKEN -> token(r.getToken());
      case SEQUENCED_WRITE -> token(r.getSequencedWrite().getToken());
      case LOG_WRITE -> entry(r.getLogWrite().getEntry(), List.of());
      case STREAM_WRITE -> entry(r.getStreamWrite().getEntry(), r.getStreamWrite().getSlotsList());
      case CHAIN_WRITE -> chain(r.getChainWrite());
      case LOG_COMMIT, LOG_FILL, LOG_READ -> repairer();
      case STREAM_FILL -> readsOrWrites(r.getStreamFill().getStream());
      case STREAM_COMMIT ->
          r.getStreamCommit().getSlotsList().forEach(s -> readsOrWrites(s.getStream()));
      case STREAM_READ -> need(Permission.READ, r.getStreamRead().getStream());
      case LOG_TRIM -> need(Permission.TRIM, null);
      case STREAM_TRIM -> need(Permission.TRIM, r.getStreamTrim().getStream());
      case STREAM_PIN -> need(Permission.TRIM, r.getStreamPin().getStream());
      case VERIFY -> {
        if (r.getVerify().getAll()) {
          need(Permission.ADMIN, null);
        } else {
          need(Permission.READ, r.getVerify().getStream());
        }
      }
      case VIEW_CALL -> {
        need(Permission.VIEW, r.getViewCall().getStream());
        if (r.getViewCall().getBundleCount() > 0) {
          need(Permission.DEPLOY, r.getViewCall().getStream());
        }
      }
      default -> need(Permission.NODE, null);
    }
  }

  private void token(TokenRequest t) {
    for (TokenRequest one : t.getBatchList()) {
      token(one);
    }
    for (StreamIdMsg s : t.getStreamsList()) {
      need(Permission.WRITE, s);
    }
    for (ConflictKey k : t.getTx().getReadSetList()) {
      need(Permission.READ, k.getStream());
    }
    for (ConflictKey k : t.getTx().getWriteSetList()) {
      need(Permission.WRITE, k.getStream());
    }
    if (!t.getPacked().isEmpty()) {
      packed(t);
    }
  }

  /** The streams of a packed request (the layout of {@code PackedTokens}), named by the names. */
  private void packed(TokenRequest t) {
    Map<StreamId, StreamIdMsg> named = new HashMap<>();
    for (StreamIdMsg m : t.getPackedNamesList()) {
      named.put(StreamId.fromMsg(m), m);
    }
    ByteBuffer b = t.getPacked().asReadOnlyByteBuffer();
    while (b.remaining() >= 8) {
      b.getInt();
      int n = b.getInt();
      for (int i = 0; i < n && b.remaining() >= 16; i++) {
        StreamId id = new StreamId(b.getLong(), b.getLong());
        StreamIdMsg m = named.get(id);
        need(Permission.WRITE, m != null ? m : id.toMsg());
      }
    }
  }

  private void entry(LogEntryMsg e, List<StreamSlot> slots) {
    if (e.getKind() != EntryKind.DATA) {
      need(Permission.NODE, null);
      return;
    }
    if (e.getSlotsCount() == 0 && slots.isEmpty()) {
      need(Permission.WRITE, null);
    }
    for (StreamSlot s : e.getSlotsList()) {
      need(Permission.WRITE, s.getStream());
    }
    for (StreamSlot s : slots) {
      need(Permission.WRITE, s.getStream());
    }
  }

  private void chain(ChainWriteRequest c) {
    for (ChainWriteRequest one : c.getBatchList()) {
      chain(one);
    }
    if (c.getCommitLogCount() > 0) {
      repairer();
    }
    for (StreamSlot s : c.getCommitSlotsList()) {
      readsOrWrites(s.getStream());
    }
    if (c.hasEntry() && c.getStepsCount() > 0) {
      List<StreamSlot> slots = new java.util.ArrayList<>();
      for (ChainStep s : c.getStepsList()) {
        slots.addAll(s.getSlotsList());
      }
      entry(c.getEntry(), slots);
    }
  }

  private void repairer() {
    if (!grants.readsOrWritesSomething(who)) {
      throw new PermissionDeniedException("read", null, who);
    }
  }

  /** {@code read} or {@code write} on {@code stream}: what a repair of one of its slots needs. */
  private void readsOrWrites(StreamIdMsg stream) {
    try {
      need(Permission.WRITE, stream);
    } catch (PermissionDeniedException e) {
      need(Permission.READ, stream);
    }
  }

  private void readsSome(List<StreamSlot> slots) {
    if (slots.isEmpty()) {
      need(Permission.READ, null);
      return;
    }
    PermissionDeniedException first = null;
    for (StreamSlot s : slots) {
      try {
        need(Permission.READ, s.getStream());
        return;
      } catch (PermissionDeniedException e) {
        first = first == null ? e : first;
      }
    }
    throw first;
  }

  private void need(Permission p, StreamIdMsg stream) {
    String name = null;
    if (stream != null) {
      StreamId id = new StreamId(stream.getMsb(), stream.getLsb());
      if (id.equals(StreamId.NAME_DIRECTORY) && (p == Permission.READ || p == Permission.WRITE)) {
        return;
      }
      name = names.nameOf(stream);
    }
    if (!grants.allows(who, p, name)) {
      StreamId shown =
          stream == null
              ? null
              : name != null
                  ? new StreamId(stream.getMsb(), stream.getLsb(), name)
                  : new StreamId(stream.getMsb(), stream.getLsb());
      throw new PermissionDeniedException(p.label(), shown, who);
    }
  }
}
