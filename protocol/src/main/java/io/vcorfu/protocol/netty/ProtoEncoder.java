package io.vcorfu.protocol.netty;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.MessageLite;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import java.io.IOException;
import java.util.List;

/**
 * Serializes a protobuf message into a buffer of exactly its size; {@link Framing#PREPENDER} adds
 * the length prefix after it. Stateless and shared by every channel.
 */
@Sharable
public final class ProtoEncoder extends MessageToMessageEncoder<MessageLite> {
  public static final ProtoEncoder INSTANCE = new ProtoEncoder();

  private ProtoEncoder() {}

  @Override
  protected void encode(ChannelHandlerContext ctx, MessageLite message, List<Object> out)
      throws IOException {
    int size = message.getSerializedSize();
    ByteBuf buf = ctx.alloc().heapBuffer(size, size);
    try {
      CodedOutputStream stream =
          CodedOutputStream.newInstance(buf.array(), buf.arrayOffset() + buf.writerIndex(), size);
      message.writeTo(stream);
      stream.checkNoSpaceLeft();
      buf.writerIndex(buf.writerIndex() + size);
      out.add(buf);
      buf = null;
    } finally {
      if (buf != null) {
        buf.release();
      }
    }
  }
}
