package io.vcorfu.client.rpc;

import com.google.protobuf.ByteString;
import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ConflictKey;
import io.vcorfu.client.GlobalEntry;
import io.vcorfu.client.IssueCondition;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.Tails;
import io.vcorfu.client.ViewCall;
import io.vcorfu.client.ViewCallResult;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.protocol.proto.TxResolution;
import io.vcorfu.protocol.proto.ViewCallRequest;
import io.vcorfu.protocol.proto.ViewCallResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Conversion between the client's API types and the wire's protobuf messages. Stateless. */
public final class Messages {
  private Messages() {}

  /** The wire form of a conditional append's condition; null stays null (no condition). */
  public static TxResolution toMsg(IssueCondition condition) {
    if (condition == null) {
      return null;
    }
    TxResolution.Builder b =
        TxResolution.newBuilder()
            .setSnapshot(condition.snapshot())
            .setSnapshotEpoch(condition.snapshotEpoch());
    condition.readSet().forEach(k -> b.addReadSet(toMsg(k)));
    condition.writeSet().forEach(k -> b.addWriteSet(toMsg(k)));
    return b.build();
  }

  public static io.vcorfu.protocol.proto.ConflictKey toMsg(ConflictKey key) {
    return io.vcorfu.protocol.proto.ConflictKey.newBuilder()
        .setStream(key.stream().toMsg())
        .setKey(ByteString.copyFrom(key.key()))
        .build();
  }

  public static ViewCallRequest toMsg(ViewCall call) {
    ViewCallRequest.Builder b =
        ViewCallRequest.newBuilder()
            .setStream(call.stream().toMsg())
            .setType(call.type())
            .setMethod(call.method())
            .setAsOf(call.asOf());
    call.args().forEach(a -> b.addArgs(ByteString.copyFrom(a)));
    call.pending().forEach(p -> b.addPending(ByteString.copyFrom(p)));
    if (call.bundle() != null) {
      b.setBundleDigest(ByteString.copyFrom(call.bundle().digest()));
    }
    return b.build();
  }

  /** {@code request} carrying the class files of {@code bundle} (the host asked for them). */
  public static ViewCallRequest withClasses(
      ViewCallRequest request, io.vcorfu.client.ClassBundle bundle) {
    ViewCallRequest.Builder b = request.toBuilder().clearBundle();
    bundle
        .classes()
        .forEach(
            (name, file) ->
                b.addBundle(
                    io.vcorfu.protocol.proto.ClassFileMsg.newBuilder()
                        .setName(name)
                        .setBytes(ByteString.copyFrom(file))));
    return b.build();
  }

  public static ViewCallResult fromMsg(ViewCallResponse r) {
    return new ViewCallResult(
        r.getResult().toByteArray(), r.getVersion(), r.getFailureType(), r.getFailureMessage());
  }

  /** Where a committed entry landed: its global address and its slot in each stream. */
  public static AppendResult appendResult(LogEntryMsg entry) {
    Map<StreamId, Long> addresses = new LinkedHashMap<>();
    for (StreamSlot slot : entry.getSlotsList()) {
      addresses.put(StreamId.fromMsg(slot.getStream()), slot.getStreamAddress());
    }
    return new AppendResult(entry.getGlobalAddress(), addresses);
  }

  /**
   * Decided slots of {@code stream} as read from its replicas; fails with {@link
   * io.vcorfu.protocol.DataLossException} at a slot marked lost.
   */
  public static List<StreamEntry> streamEntries(StreamId stream, List<ReadResult> results) {
    List<StreamEntry> out = new ArrayList<>(results.size());
    for (ReadResult r : results) {
      LogEntryMsg e = r.getEntry();
      if (e.getKind() == EntryKind.LOST) {
        throw new io.vcorfu.protocol.DataLossException(stream, r.getAddress());
      }
      boolean hole = e.getKind() != EntryKind.DATA;
      out.add(
          new StreamEntry(
              stream,
              r.getAddress(),
              hole ? -1 : e.getGlobalAddress(),
              hole,
              hole ? new byte[0] : e.getPayload().toByteArray()));
    }
    return out;
  }

  /**
   * Decided global addresses as read from the log replicas; fails with {@link
   * io.vcorfu.protocol.DataLossException} at an address whose entry was lost with its log chain.
   */
  /** The tails of {@code streams} in the sequencer's answer to a request for them, in order. */
  public static Tails tails(List<StreamId> streams, io.vcorfu.protocol.proto.TailResponse r) {
    if (r.getStreamTailsCount() != streams.size()
        || r.getStreamLastGlobalCount() != streams.size()) {
      throw new io.vcorfu.protocol.ServerErrorException(
          "the sequencer answered a tail request for "
              + streams.size()
              + " streams with "
              + r.getStreamTailsCount()
              + " stream tails and "
              + r.getStreamLastGlobalCount()
              + " last global addresses");
    }
    Map<StreamId, Long> tails = new LinkedHashMap<>();
    Map<StreamId, Long> lastGlobal = new LinkedHashMap<>();
    for (int i = 0; i < streams.size(); i++) {
      tails.put(streams.get(i), r.getStreamTails(i));
      lastGlobal.put(streams.get(i), r.getStreamLastGlobal(i));
    }
    return new Tails(r.getGlobalTail(), tails, lastGlobal);
  }

  public static List<GlobalEntry> globalEntries(List<ReadResult> results) {
    List<GlobalEntry> out = new ArrayList<>(results.size());
    for (ReadResult r : results) {
      LogEntryMsg e = r.getEntry();
      if (e.getKind() == EntryKind.LOST) {
        throw new io.vcorfu.protocol.DataLossException(r.getAddress());
      }
      boolean hole = e.getKind() != EntryKind.DATA;
      Map<StreamId, Long> slots = new LinkedHashMap<>();
      for (StreamSlot s : e.getSlotsList()) {
        slots.put(StreamId.fromMsg(s.getStream()), s.getStreamAddress());
      }
      out.add(
          new GlobalEntry(
              r.getAddress(),
              hole,
              hole ? Map.of() : slots,
              hole ? new byte[0] : e.getPayload().toByteArray()));
    }
    return out;
  }
}
