package io.vcorfu.protocol.netty;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.MessageLite;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Writes protobuf messages as frames: each one a 4-byte big-endian length followed by the message's
 * bytes (the bytes a {@code LengthFieldPrepender(4)} would produce), built in one buffer of exactly
 * the right size; a {@link LoneTokens.Frame} is written as its fixed frame. A {@link Batch} of
 * messages and fixed frames becomes one buffer holding all their frames, so a burst of pipelined
 * requests costs one allocation and one write. Other objects pass through. Stateless and shared by
 * every channel.
 */
@Sharable
public final class ProtoEncoder extends ChannelOutboundHandlerAdapter {
  public static final ProtoEncoder INSTANCE = new ProtoEncoder();

  /**
   * Several messages (each a protobuf {@link MessageLite} or a {@link LoneTokens.Frame}) written as
   * consecutive frames in one buffer.
   */
  public record Batch(List<?> messages) {}

  private ProtoEncoder() {}

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise)
      throws IOException {
    if (msg instanceof MessageLite || msg instanceof LoneTokens.Frame) {
      ctx.write(encode(ctx, List.of(msg)), promise);
    } else if (msg instanceof Batch batch) {
      if (batch.messages().isEmpty()) {
        promise.trySuccess();
      } else {
        ctx.write(encode(ctx, batch.messages()), promise);
      }
    } else {
      ctx.write(msg, promise);
    }
  }

  private static ByteBuf encode(ChannelHandlerContext ctx, List<?> messages) throws IOException {
    int total = 0;
    for (Object m : messages) {
      total +=
          Framing.LENGTH_BYTES
              + (m instanceof LoneTokens.Frame f
                  ? f.bytes()
                  : ((MessageLite) m).getSerializedSize());
    }
    ByteBuf buf = ctx.alloc().ioBuffer(total, total);
    boolean done = false;
    try {
      // Runs of protobuf messages go through one CodedOutputStream; a fixed frame ends a run.
      CodedOutputStream out = null;
      int runStart = 0;
      for (Object o : messages) {
        if (o instanceof LoneTokens.Frame f) {
          if (out != null) {
            out.flush();
            buf.writerIndex(runStart + out.getTotalBytesWritten());
            out = null;
          }
          f.writeTo(buf);
          continue;
        }
        MessageLite m = (MessageLite) o;
        if (out == null) {
          runStart = buf.writerIndex();
          ByteBuffer target = buf.nioBuffer(runStart, buf.capacity() - runStart);
          out = CodedOutputStream.newInstance(target);
        }
        int size = m.getSerializedSize();
        out.writeRawByte((byte) (size >>> 24));
        out.writeRawByte((byte) (size >>> 16));
        out.writeRawByte((byte) (size >>> 8));
        out.writeRawByte((byte) size);
        m.writeTo(out);
      }
      if (out != null) {
        out.flush();
        buf.writerIndex(runStart + out.getTotalBytesWritten());
      }
      if (buf.writerIndex() != total) {
        throw new IllegalStateException(
            "encoded " + buf.writerIndex() + " bytes of frames, expected " + total);
      }
      done = true;
      return buf;
    } finally {
      if (!done) {
        buf.release();
      }
    }
  }
}
