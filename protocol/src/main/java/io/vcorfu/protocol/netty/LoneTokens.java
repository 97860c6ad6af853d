package io.vcorfu.protocol.netty;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.CorruptedFrameException;
import io.vcorfu.protocol.PackedTokens;
import io.vcorfu.protocol.proto.Header;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.proto.StreamIdMsg;
import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.protocol.proto.Token;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.protocol.proto.TokenResponse;

/**
 * The fixed layout of the commonest request there is, one token for one stream, and of its answer:
 * a frame of fixed fields that both ends read and write without a protobuf message, so that the
 * sequencer's busiest request costs neither side a parse, an encoding or a message per request.
 *
 * <p>A fixed frame begins with a 0 byte, which no protobuf frame does (a protobuf message's first
 * byte is a field's tag, and field 0 does not exist; an empty message is an empty frame), then a
 * kind byte, then big-endian fields:
 *
 * <ul>
 *   <li>{@link #ASK} ({@value #ASK_BYTES} bytes): request id, epoch, client id (16 bytes), protocol
 *       version (4 bytes), stream id (16 bytes). It stands for the {@code TokenRequest} with that
 *       one stream, {@code count} 1 and nothing else, with those header fields; the stream's name
 *       and the header's cluster id, which only a node that authorizes by stream name or nothing at
 *       all reads, are not carried.
 *   <li>{@link #ANSWER} ({@value #ANSWER_BYTES} bytes): request id, the answer header's epoch, the
 *       token response's epoch, global address, stream address, backpointer. It stands for the
 *       {@code TokenResponse} with that one token of one slot (the requested stream).
 * </ul>
 *
 * <p><b>Who sends them.</b> A node that takes fixed asks (one that does not authorize requests by
 * stream name: {@link io.vcorfu.protocol.RpcHandler#takesLoneTokens}) says so on its first answer
 * on each connection ({@code Header.features} bit {@link #FEATURE}); a client sends fixed asks on a
 * connection only after that. A fixed ask becomes the very {@code Request} it stands for and is
 * served exactly as that request would be (principal, epoch, seal, role and every other check); its
 * answer goes back fixed only when the answer is a plain token response the layout holds ({@link
 * #answerFor}), else as the protobuf response, with the same request id either way. So the layout
 * changes only how bytes travel, never what is decided.
 */
public final class LoneTokens {
  /** The {@code Header.features} bit of a node that takes fixed asks. */
  public static final int FEATURE = 1;

  /** The first byte of every fixed frame. */
  static final byte MARK = 0;

  /** Kind byte of an ask. */
  static final byte ASK = 1;

  /** Kind byte of an answer. */
  static final byte ANSWER = 2;

  /** Bytes of an ask frame (without the length prefix). */
  static final int ASK_BYTES = 2 + 8 + 8 + 16 + 4 + 16;

  /** Bytes of an answer frame (without the length prefix). */
  static final int ANSWER_BYTES = 2 + 8 * 6;

  private LoneTokens() {}

  /** Something written as one fixed frame. */
  public interface Frame {
    /** The frame's bytes, without the length prefix. */
    int bytes();

    /** Writes the frame with its length prefix. */
    void writeTo(ByteBuf out);
  }

  /** An ask as it travels; {@link #request} is the request it stands for. */
  public record Ask(
      long requestId,
      long epoch,
      long clientMsb,
      long clientLsb,
      int protocolVersion,
      long streamMsb,
      long streamLsb)
      implements Frame {
    @Override
    public int bytes() {
      return ASK_BYTES;
    }

    @Override
    public void writeTo(ByteBuf out) {
      out.writeInt(ASK_BYTES).writeByte(MARK).writeByte(ASK);
      out.writeLong(requestId).writeLong(epoch).writeLong(clientMsb).writeLong(clientLsb);
      out.writeInt(protocolVersion).writeLong(streamMsb).writeLong(streamLsb);
    }

    /** The request this ask stands for. */
    public Request request() {
      return Request.newBuilder()
          .setHeader(askHeader(requestId, epoch, clientMsb, clientLsb, protocolVersion))
          .setToken(
              TokenRequest.newBuilder()
                  .addStreams(StreamIdMsg.newBuilder().setMsb(streamMsb).setLsb(streamLsb))
                  .setCount(1))
          .build();
    }
  }

  /** A fixed answer as a client reads it: a lone one or a packed one. */
  public interface Answered {
    /** The id of the request it answers. */
    long requestId();

    /** The response it stands for, as the answer to {@code asked}, the request the client sent. */
    Response response(Request asked);
  }

  /** A fixed answer as it travels. */
  public record Answer(
      long requestId,
      long headerEpoch,
      long tokenEpoch,
      long globalAddress,
      long streamAddress,
      long backpointer)
      implements Frame, Answered {
    @Override
    public int bytes() {
      return ANSWER_BYTES;
    }

    @Override
    public void writeTo(ByteBuf out) {
      out.writeInt(ANSWER_BYTES).writeByte(MARK).writeByte(ANSWER);
      out.writeLong(requestId).writeLong(headerEpoch).writeLong(tokenEpoch);
      out.writeLong(globalAddress).writeLong(streamAddress).writeLong(backpointer);
    }

    /**
     * The response this answer stands for, as the answer to {@code asked} (the request the client
     * sent, whose stream the slot names and whose protocol version the header echoes).
     */
    @Override
    public Response response(Request asked) {
      return Response.newBuilder()
          .setHeader(answerHeader(requestId, headerEpoch, asked))
          .setToken(
              TokenResponse.newBuilder()
                  .setEpoch(tokenEpoch)
                  .addTokens(
                      Token.newBuilder()
                          .setGlobalAddress(globalAddress)
                          .addSlots(
                              StreamSlot.newBuilder()
                                  .setStream(asked.getToken().getStreams(0))
                                  .setStreamAddress(streamAddress)
                                  .setBackpointer(backpointer))))
          .build();
    }
  }

  /** A request that arrived as a fixed ask, to be answered fixed when the answer allows. */
  public record Asked(Request request) {}

  /** True when {@code frame} (without its length prefix) is a fixed frame. */
  static boolean isFixed(ByteBuf frame) {
    return frame.isReadable() && frame.getByte(frame.readerIndex()) == MARK;
  }

  /**
   * Reads the fixed frame {@code frame} holds, which must be one that {@code side}'s peer sends:
   * for {@link #ASK} (a node reading) a lone or packed ask, read as the {@link Asked} it stands
   * for; for {@link #ANSWER} (a client reading) a lone {@link Answer} or a {@link
   * PackedTokenFrames.Answer}.
   *
   * @throws CorruptedFrameException for another kind or a frame of the wrong size
   */
  static Object read(ByteBuf frame, byte side) {
    int length = frame.readableBytes();
    byte got = length >= 2 ? frame.getByte(frame.readerIndex() + 1) : -1;
    byte packed = side == ASK ? PackedTokenFrames.ASK : PackedTokenFrames.ANSWER;
    if (got == packed) {
      Object read = PackedTokenFrames.read(frame, got);
      if (read != null) {
        return read;
      }
    }
    int expected = side == ASK ? ASK_BYTES : ANSWER_BYTES;
    if (got != side || length != expected) {
      throw new CorruptedFrameException(
          "a "
              + length
              + "-byte fixed frame of kind "
              + got
              + " is not a vcorfu fixed "
              + (side == ASK ? "token ask" : "token answer")
              + " ("
              + expected
              + " bytes of kind "
              + side
              + ", or at least "
              + (side == ASK
                  ? PackedTokenFrames.ASK_FIXED_BYTES + PackedTokens.REQUEST_HEADER_BYTES
                  : PackedTokenFrames.ANSWER_FIXED_BYTES + PackedTokens.ANSWER_HEADER_BYTES)
              + " of kind "
              + packed
              + ")");
    }
    frame.skipBytes(2);
    if (side == ASK) {
      return new Asked(
          new Ask(
                  frame.readLong(),
                  frame.readLong(),
                  frame.readLong(),
                  frame.readLong(),
                  frame.readInt(),
                  frame.readLong(),
                  frame.readLong())
              .request());
    }
    return new Answer(
        frame.readLong(),
        frame.readLong(),
        frame.readLong(),
        frame.readLong(),
        frame.readLong(),
        frame.readLong());
  }

  /**
   * The fixed ask standing for {@code request} sent with id {@code requestId}, or null when the
   * layout cannot hold it: only an unconditional request for one token of one stream, from a client
   * with an id, qualifies.
   */
  public static Ask askFor(Request request, long requestId) {
    if (request.getPayloadCase() != Request.PayloadCase.TOKEN) {
      return null;
    }
    TokenRequest t = request.getToken();
    Header h = request.getHeader();
    if (t.getStreamsCount() != 1
        || t.getCount() != 1
        || t.hasTx()
        || t.getBatchCount() != 0
        || !t.getPacked().isEmpty()
        || t.getPackedNamesCount() != 0
        || !h.hasClientId()) {
      return null;
    }
    StreamIdMsg s = t.getStreams(0);
    return new Ask(
        requestId,
        h.getEpoch(),
        h.getClientId().getMsb(),
        h.getClientId().getLsb(),
        h.getProtocolVersion(),
        s.getMsb(),
        s.getLsb());
  }

  /**
   * The fixed answer standing for {@code response} to {@code request} (an ask's request), or null
   * when the layout cannot hold it: anything but one token of one slot, with no other field set,
   * goes back as the protobuf response.
   */
  public static Answer answerFor(Request request, Response response) {
    if (response.getPayloadCase() != Response.PayloadCase.TOKEN || response.hasLeasePush()) {
      return null;
    }
    if (!plainHeader(request, response.getHeader())) {
      return null;
    }
    Header h = response.getHeader();
    TokenResponse t = response.getToken();
    if (t.getTokensCount() != 1 || t.getBatchCount() != 0 || !t.getPacked().isEmpty()) {
      return null;
    }
    Token token = t.getTokens(0);
    if (token.getSlotsCount() != 1) {
      return null;
    }
    StreamSlot slot = token.getSlots(0);
    StreamIdMsg asked = request.getToken().getStreams(0);
    if (!slot.getStream().equals(asked)) {
      return null;
    }
    return new Answer(
        h.getRequestId(),
        h.getEpoch(),
        t.getEpoch(),
        token.getGlobalAddress(),
        slot.getStreamAddress(),
        slot.getBackpointer());
  }

  /**
   * The fixed answer, lone or packed, standing for {@code response} to {@code request} (the request
   * of a lone or packed ask), or null when the layouts cannot hold it.
   */
  static Frame fixedAnswer(Request request, Response response) {
    return request.getToken().getPacked().isEmpty()
        ? answerFor(request, response)
        : PackedTokenFrames.answerFor(request, response);
  }

  /**
   * True when {@code h}, an answer's header, says no more than a fixed answer to {@code request}
   * carries: the request's id and protocol version (which the client's copy of the request gives
   * back), an epoch, and nothing else.
   */
  static boolean plainHeader(Request request, Header h) {
    return h.getRequestId() == request.getHeader().getRequestId()
        && h.getProtocolVersion() == request.getHeader().getProtocolVersion()
        && h.getClusterId().isEmpty()
        && !h.hasClientId()
        && h.getFeatures() == 0;
  }

  /** The header of a request a fixed ask stands for: what the ask carries of it. */
  static Header.Builder askHeader(
      long requestId, long epoch, long clientMsb, long clientLsb, int protocolVersion) {
    return Header.newBuilder()
        .setRequestId(requestId)
        .setEpoch(epoch)
        .setClientId(StreamIdMsg.newBuilder().setMsb(clientMsb).setLsb(clientLsb))
        .setProtocolVersion(protocolVersion);
  }

  /**
   * The header of the response a fixed answer stands for: its request id and epoch, and the
   * protocol version of {@code asked}, the request the client sent.
   */
  static Header.Builder answerHeader(long requestId, long epoch, Request asked) {
    return Header.newBuilder()
        .setRequestId(requestId)
        .setEpoch(epoch)
        .setProtocolVersion(asked.getHeader().getProtocolVersion());
  }
}
