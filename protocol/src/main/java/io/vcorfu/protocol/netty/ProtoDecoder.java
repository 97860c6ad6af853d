package io.vcorfu.protocol.netty;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.MessageToMessageDecoder;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import java.util.List;

/**
 * Parses one frame (its bytes, without the length prefix) into a protobuf message, or a fixed frame
 * ({@link LoneTokens}) into what it stands for: a {@link LoneTokens.Asked} on the server side, a
 * {@link LoneTokens.Answer} on the client side. Stateless and shared by every channel; the frame
 * buffer is released after parsing. A frame that does not parse raises a {@link
 * CorruptedFrameException} describing the problem.
 */
@Sharable
public final class ProtoDecoder<T extends MessageLite> extends MessageToMessageDecoder<ByteBuf> {
  /** Server side: frames carry {@link Request}s. */
  public static final ProtoDecoder<Request> REQUESTS =
      new ProtoDecoder<>(Request.parser(), "request", LoneTokens.ASK);

  /** Client side: frames carry {@link Response}s. */
  public static final ProtoDecoder<Response> RESPONSES =
      new ProtoDecoder<>(Response.parser(), "response", LoneTokens.ANSWER);

  private final Parser<T> parser;
  private final String what;
  private final byte fixedKind;

  private ProtoDecoder(Parser<T> parser, String what, byte fixedKind) {
    this.parser = parser;
    this.what = what;
    this.fixedKind = fixedKind;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf frame, List<Object> out) {
    if (LoneTokens.isFixed(frame)) {
      out.add(LoneTokens.read(frame, fixedKind));
      return;
    }
    int length = frame.readableBytes();
    try {
      T message;
      if (frame.hasArray()) {
        message =
            parser.parseFrom(frame.array(), frame.arrayOffset() + frame.readerIndex(), length);
      } else if (frame.nioBufferCount() == 1) {
        message = parser.parseFrom(frame.nioBuffer(frame.readerIndex(), length));
      } else {
        byte[] copy = new byte[length];
        frame.getBytes(frame.readerIndex(), copy);
        message = parser.parseFrom(copy);
      }
      frame.skipBytes(length);
      out.add(message);
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptedFrameException(
          "a " + length + "-byte frame is not a valid vcorfu " + what + " (" + e.getMessage() + ")",
          e);
    }
  }
}
