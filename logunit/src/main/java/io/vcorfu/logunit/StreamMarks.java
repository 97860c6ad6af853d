package io.vcorfu.logunit;

import io.vcorfu.logunit.internal.StorageEngine;
import io.vcorfu.logunit.internal.StreamPins;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimBounds;
import io.vcorfu.protocol.UnknownStreamException;
import io.vcorfu.protocol.proto.StreamPinMsg;
import io.vcorfu.protocol.proto.StreamPinRequest;
import io.vcorfu.protocol.proto.StreamPinResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A stream replica's trims and pins (see {@link StreamPins}): what {@link StreamReplica#trim} and
 * {@link StreamReplica#pin} do, under the engine's monitor, answered once durable.
 */
final class StreamMarks {
  private StreamMarks() {}

  /**
   * Prefix trim of one stream: releases every stream address below {@code before}, or below the
   * stream's lowest pin when that is lower. The mark never goes back; UnknownStreamException for a
   * stream never held here.
   *
   * <p>A trim never makes the stream unwritable: the mark may be at most the next address after the
   * highest one held here (every token the sequencer issues later lies at or above it), and is at
   * least 0. A mark outside that range is refused with BadRequestException naming the stream, the
   * mark and the tail, and nothing is trimmed.
   *
   * <p>The name directory's stream ({@link StreamId#NAME_DIRECTORY}) is never trimmed: a mark above
   * 0 for it is refused with BadRequestException, so every name registered stays listed. A replica
   * rebuilding the stream's chain refuses trims with NotServing until it has taken the chain's
   * marks and pins (see {@link JoinState#checkTrims}).
   */
  static CompletableFuture<Long> trim(
      StorageEngine engine, JoinState join, StreamId stream, long before) {
    if (stream.equals(StreamId.NAME_DIRECTORY) && before > 0) {
      throw new BadRequestException(
          "the name directory (stream " + stream + ") is never trimmed: it lists every name");
    }
    join.checkTrims("stream replica", stream);
    long mark;
    CompletableFuture<Void> barrier;
    synchronized (engine) {
      if (!engine.knows(stream)) {
        throw new UnknownStreamException(stream);
      }
      TrimBounds.check("stream " + stream, before, engine.maxAddress(stream));
      mark = engine.trim(stream, before);
      barrier = engine.barrier();
    }
    return barrier.thenApply(v -> mark);
  }

  /**
   * Records (or with {@code release} drops) the pin the request names; answered, with the trim mark
   * and the pins held, once durable. A pin below the trim mark is refused with TrimmedException and
   * nothing is recorded; a negative position with BadRequestException.
   */
  static CompletableFuture<StreamPinResponse> pin(
      StorageEngine engine, StreamId stream, StreamPinRequest request) {
    StreamId name = StreamId.fromMsg(request.getPin());
    if (!request.getRelease() && request.getAt() < 0) {
      throw new BadRequestException(
          "a pin of stream " + stream + " holds a position of 0 or more, not " + request.getAt());
    }
    StreamPinResponse.Builder response = StreamPinResponse.newBuilder();
    CompletableFuture<Void> barrier;
    synchronized (engine) {
      long mark =
          request.getRelease()
              ? StreamPins.release(engine, stream, name)
              : StreamPins.pin(engine, stream, name, request.getAt());
      response.setTrimMark(mark).addAllPins(pins(engine, stream));
      barrier = engine.barrier();
    }
    return barrier.thenApply(v -> response.build());
  }

  /** The pins held on {@code stream}, for the wire. */
  static List<StreamPinMsg> pins(StorageEngine engine, StreamId stream) {
    Map<StreamId, Long> held = StreamPins.of(engine, stream);
    List<StreamPinMsg> out = new ArrayList<>(held.size());
    held.forEach(
        (name, at) -> out.add(StreamPinMsg.newBuilder().setPin(name.toMsg()).setAt(at).build()));
    return out;
  }
}
