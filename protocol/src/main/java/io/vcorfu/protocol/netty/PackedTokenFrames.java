package io.vcorfu.protocol.netty;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.netty.buffer.ByteBuf;
import io.vcorfu.protocol.PackedTokens;
import io.vcorfu.protocol.proto.Header;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.protocol.proto.TokenResponse;

/**
 * The fixed frames of coalesced token requests ({@code TokenRequest.packed}, the layout of {@link
 * PackedTokens}) and of their answers: what a loaded client sends most, carried without a protobuf
 * message on either side, so that the sequencer's busiest message costs neither end a parse or an
 * encoding. They are {@link LoneTokens} frames of two more kinds (a 0 byte, the kind byte, then
 * big-endian fields), each with a fixed part and the packed bytes after it:
 *
 * <ul>
 *   <li>{@link #ASK} ({@value #ASK_FIXED_BYTES} bytes and the packed requests, at least one):
 *       request id, epoch, client id (16 bytes), protocol version (4 bytes), then the requests as
 *       {@code TokenRequest.packed} holds them. It stands for the {@code TokenRequest} with that
 *       {@code packed} and nothing else, with those header fields; the streams' names ({@code
 *       packed_names}) and the header's cluster id, which only a node that authorizes by stream
 *       name or nothing at all reads, are not carried.
 *   <li>{@link #ANSWER} ({@value #ANSWER_FIXED_BYTES} bytes and the packed answer, at least its
 *       fixed part): request id, the answer header's epoch, the token response's epoch, then the
 *       answer as {@code TokenResponse.packed} holds it. It stands for the {@code TokenResponse}
 *       with that epoch and {@code packed} and nothing else.
 * </ul>
 *
 * <p>The rules of {@link LoneTokens} hold unchanged: a client sends a fixed packed ask on a
 * connection only once the node said it takes them ({@code Header.features} bit {@link #FEATURE},
 * set with {@link LoneTokens#FEATURE} by a node that takes fixed asks); the node serves it as the
 * very request it stands for, behind the same checks, and answers fixed only when the answer is a
 * plain packed token response ({@link #answerFor}) that fits the node's frame limit, else as the
 * protobuf response. Whether the packed bytes are well formed is the sequencer's to check, as for
 * the protobuf message: the frame only carries them.
 */
public final class PackedTokenFrames {
  /** The {@code Header.features} bit of a node that takes fixed packed asks. */
  public static final int FEATURE = 2;

  /** Kind byte of a packed ask. */
  static final byte ASK = 3;

  /** Kind byte of a packed answer. */
  static final byte ANSWER = 4;

  /** Bytes of a packed ask frame before its packed requests (without the length prefix). */
  static final int ASK_FIXED_BYTES = 2 + 8 + 8 + 16 + 4;

  /** Bytes of a packed answer frame before its packed answer (without the length prefix). */
  static final int ANSWER_FIXED_BYTES = 2 + 8 * 3;

  private PackedTokenFrames() {}

  /** A packed ask as it travels; {@link #request} is the request it stands for. */
  public record Ask(
      long requestId,
      long epoch,
      long clientMsb,
      long clientLsb,
      int protocolVersion,
      ByteString packed)
      implements LoneTokens.Frame {
    @Override
    public int bytes() {
      return ASK_FIXED_BYTES + packed.size();
    }

    @Override
    public void writeTo(ByteBuf out) {
      out.writeInt(bytes()).writeByte(LoneTokens.MARK).writeByte(ASK);
      out.writeLong(requestId).writeLong(epoch).writeLong(clientMsb).writeLong(clientLsb);
      out.writeInt(protocolVersion).writeBytes(packed.asReadOnlyByteBuffer());
    }

    /** The request this ask stands for. */
    public Request request() {
      return Request.newBuilder()
          .setHeader(LoneTokens.askHeader(requestId, epoch, clientMsb, clientLsb, protocolVersion))
          .setToken(TokenRequest.newBuilder().setPacked(packed))
          .build();
    }
  }

  /** A packed answer as it travels. */
  public record Answer(long requestId, long headerEpoch, long tokenEpoch, ByteString packed)
      implements LoneTokens.Frame, LoneTokens.Answered {
    @Override
    public int bytes() {
      return ANSWER_FIXED_BYTES + packed.size();
    }

    @Override
    public void writeTo(ByteBuf out) {
      out.writeInt(bytes()).writeByte(LoneTokens.MARK).writeByte(ANSWER);
      out.writeLong(requestId).writeLong(headerEpoch).writeLong(tokenEpoch);
      out.writeBytes(packed.asReadOnlyByteBuffer());
    }

    /**
     * The response this answer stands for, as the answer to {@code asked} (the request the client
     * sent, whose protocol version the header echoes).
     */
    @Override
    public Response response(Request asked) {
      return Response.newBuilder()
          .setHeader(LoneTokens.answerHeader(requestId, headerEpoch, asked))
          .setToken(TokenResponse.newBuilder().setEpoch(tokenEpoch).setPacked(packed))
          .build();
    }
  }

  /**
   * Reads the packed frame {@code frame} holds (without its length prefix; its kind byte already
   * checked to be {@code kind}): a {@link LoneTokens.Asked} for an ask, an {@link Answer} for an
   * answer; null when the frame is shorter than its kind's fixed part and the least packed bytes it
   * carries (a corrupt frame).
   */
  static Object read(ByteBuf frame, byte kind) {
    int length = frame.readableBytes();
    int least =
        kind == ASK
            ? ASK_FIXED_BYTES + PackedTokens.REQUEST_HEADER_BYTES
            : ANSWER_FIXED_BYTES + PackedTokens.ANSWER_HEADER_BYTES;
    if (length < least) {
      return null;
    }
    frame.skipBytes(2);
    if (kind == ASK) {
      long requestId = frame.readLong();
      long epoch = frame.readLong();
      long msb = frame.readLong();
      long lsb = frame.readLong();
      int version = frame.readInt();
      return new LoneTokens.Asked(
          new Ask(requestId, epoch, msb, lsb, version, rest(frame)).request());
    }
    return new Answer(frame.readLong(), frame.readLong(), frame.readLong(), rest(frame));
  }

  /** The frame's remaining bytes, copied once into an array the message then wraps. */
  private static ByteString rest(ByteBuf frame) {
    byte[] bytes = new byte[frame.readableBytes()];
    frame.readBytes(bytes);
    return UnsafeByteOperations.unsafeWrap(bytes);
  }

  /**
   * The fixed packed ask standing for {@code request} sent with id {@code requestId}, or null when
   * the layout cannot hold it: only a request that sets {@code TokenRequest.packed} (and, besides,
   * at most the streams' names), from a client with an id, qualifies.
   */
  public static Ask askFor(Request request, long requestId) {
    if (request.getPayloadCase() != Request.PayloadCase.TOKEN) {
      return null;
    }
    TokenRequest t = request.getToken();
    Header h = request.getHeader();
    if (t.getPacked().isEmpty()
        || t.getStreamsCount() != 0
        || t.getCount() != 0
        || t.hasTx()
        || t.getBatchCount() != 0
        || !h.hasClientId()) {
      return null;
    }
    return new Ask(
        requestId,
        h.getEpoch(),
        h.getClientId().getMsb(),
        h.getClientId().getLsb(),
        h.getProtocolVersion(),
        t.getPacked());
  }

  /**
   * The fixed answer standing for {@code response} to {@code request} (a packed ask's request), or
   * null when the layout cannot hold it: anything but a packed answer with no other field set goes
   * back as the protobuf response.
   */
  public static Answer answerFor(Request request, Response response) {
    if (response.getPayloadCase() != Response.PayloadCase.TOKEN
        || response.hasLeasePush()
        || !LoneTokens.plainHeader(request, response.getHeader())) {
      return null;
    }
    TokenResponse t = response.getToken();
    if (t.getPacked().isEmpty() || t.getTokensCount() != 0 || t.getBatchCount() != 0) {
      return null;
    }
    Header h = response.getHeader();
    return new Answer(h.getRequestId(), h.getEpoch(), t.getEpoch(), t.getPacked());
  }
}
