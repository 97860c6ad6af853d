package io.vcorfu.protocol.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.TooLongFrameException;
import java.nio.ByteOrder;

/**
 * Framing of the vcorfu TCP stream: every message is a 4-byte big-endian length followed by that
 * many bytes. Inbound, framing ({@link #newFrameDecoder}) is separate from decoding ({@link
 * ProtoDecoder}); outbound, {@link ProtoEncoder} writes prefix and message into one buffer (what a
 * {@code LengthFieldPrepender(4)} after a protobuf encoder would produce, without a second buffer
 * per message).
 */
public final class Framing {
  /** Bytes of the length prefix. */
  public static final int LENGTH_BYTES = 4;

  private Framing() {}

  /**
   * A new frame decoder (stateful: one per channel) that rejects, as soon as the prefix is read, a
   * frame longer than {@code maxFrameBytes}, with {@link TooLongFrameException}. The prefix is
   * unsigned. After a rejection the decoder discards everything else the channel sends; the channel
   * should be closed.
   */
  public static LengthFieldBasedFrameDecoder newFrameDecoder(int maxFrameBytes) {
    if (maxFrameBytes <= 0) {
      throw new IllegalArgumentException(
          "maximum frame size must be positive, got " + maxFrameBytes);
    }
    return new LimitedFrameDecoder(maxFrameBytes);
  }

  /** Reads the prefix as unsigned and rejects a frame over the limit with a plain message. */
  private static final class LimitedFrameDecoder extends LengthFieldBasedFrameDecoder {
    private final int maxFrameBytes;
    private boolean rejected;

    LimitedFrameDecoder(int maxFrameBytes) {
      super(maxFrameBytes + LENGTH_BYTES, 0, LENGTH_BYTES, 0, LENGTH_BYTES, true);
      this.maxFrameBytes = maxFrameBytes;
    }

    @Override
    protected Object decode(ChannelHandlerContext ctx, ByteBuf in) throws Exception {
      if (rejected) {
        in.skipBytes(in.readableBytes());
        return null;
      }
      return super.decode(ctx, in);
    }

    @Override
    protected long getUnadjustedFrameLength(ByteBuf buf, int offset, int length, ByteOrder order) {
      long frameBytes = buf.getUnsignedInt(offset);
      if (frameBytes > maxFrameBytes) {
        rejected = true;
        buf.skipBytes(buf.readableBytes());
        throw new TooLongFrameException(
            "its length prefix announces a frame of "
                + frameBytes
                + " bytes, over the limit of "
                + maxFrameBytes
                + " bytes");
      }
      return frameBytes;
    }
  }
}
