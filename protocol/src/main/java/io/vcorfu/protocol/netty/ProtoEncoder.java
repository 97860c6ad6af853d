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
 * the right size. A {@link Batch} of messages becomes one buffer holding all their frames, so a
 * burst of pipelined requests costs one allocation and one write. Other objects pass through.
 * Stateless and shared by every channel.
 */
@Sharable
public final class ProtoEncoder extends ChannelOutboundHandlerAdapter {
  public static final ProtoEncoder INSTANCE = new ProtoEncoder();

  /** Several messages written as consecutive frames in one buffer. */
  public record Batch(List<? extends MessageLite> messages) {}

  private ProtoEncoder() {}

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise)
      throws IOException {
    if (msg instanceof MessageLite message) {
      ctx.write(encode(ctx, List.of(message)), promise);
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

  private static ByteBuf encode(ChannelHandlerContext ctx, List<? extends MessageLite> messages)
      throws IOException {
    int total = 0;
    for (MessageLite m : messages) {
      total += Framing.LENGTH_BYTES + m.getSerializedSize();
    }
    ByteBuf buf = ctx.alloc().ioBuffer(total, total);
    boolean done = false;
    try {
      ByteBuffer target = buf.nioBuffer(buf.writerIndex(), total);
      CodedOutputStream out = CodedOutputStream.newInstance(target);
      for (MessageLite m : messages) {
        int size = m.getSerializedSize();
        out.writeRawByte((byte) (size >>> 24));
        out.writeRawByte((byte) (size >>> 16));
        out.writeRawByte((byte) (size >>> 8));
        out.writeRawByte((byte) size);
        m.writeTo(out);
      }
      out.flush();
      out.checkNoSpaceLeft();
      buf.writerIndex(buf.writerIndex() + total);
      done = true;
      return buf;
    } finally {
      if (!done) {
        buf.release();
      }
    }
  }
}
