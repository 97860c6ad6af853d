package io.vcorfu.protocol.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BiFunction;

/** Frames through the transport's codecs without a socket, for the fixed-frame tests. */
final class FrameCodecs {
  private FrameCodecs() {}

  /** The bytes the encoder writes for {@code messages}, as one batch. */
  static ByteBuf encode(Object... messages) {
    EmbeddedChannel out = new EmbeddedChannel(ProtoEncoder.INSTANCE);
    out.writeOutbound(new ProtoEncoder.Batch(List.of(messages)));
    ByteBuf all = drainOutbound(out);
    out.finish();
    return all;
  }

  /** What {@code decoder} reads from {@code bytes}, frame by frame. */
  static List<Object> decode(ProtoDecoder<?> decoder, ByteBuf bytes) {
    EmbeddedChannel in = new EmbeddedChannel(Framing.newFrameDecoder(1 << 20), decoder);
    in.writeInbound(bytes);
    List<Object> got = new ArrayList<>();
    for (Object o; (o = in.readInbound()) != null; ) {
      got.add(o);
    }
    in.finish();
    return got;
  }

  /** The answers a server channel wrote, as a client reads them. */
  static List<Object> answers(EmbeddedChannel server) {
    return decode(ProtoDecoder.RESPONSES, drainOutbound(server));
  }

  /** A server channel's pipeline (frames, codecs, the request handler) around {@code handler}. */
  static EmbeddedChannel server(RpcHandler handler, int maxFrameBytes, BearerTokens tokens) {
    return new EmbeddedChannel(
        Framing.newFrameDecoder(1 << 20),
        ProtoDecoder.REQUESTS,
        ProtoEncoder.INSTANCE,
        new ServerRequestHandler(handler, maxFrameBytes, tokens));
  }

  /**
   * A sequencer stand-in that records the requests it is handed and the principals they came from,
   * and answers each with {@code answer} (given the request and how many it has seen, this one
   * included), or with {@link #refusal} once that is set.
   */
  static final class Recording implements RpcHandler {
    final boolean takes;
    final ConcurrentLinkedQueue<Request> seen = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<String> principals = new ConcurrentLinkedQueue<>();
    private final BiFunction<Request, Integer, Response> answer;
    volatile Response refusal;

    Recording(boolean takes, BiFunction<Request, Integer, Response> answer) {
      this.takes = takes;
      this.answer = answer;
    }

    @Override
    public CompletableFuture<Response> handle(Request request) {
      seen.add(request);
      if (refusal != null) {
        return CompletableFuture.completedFuture(refusal);
      }
      return CompletableFuture.completedFuture(answer.apply(request, seen.size()));
    }

    @Override
    public CompletableFuture<Response> handle(Request request, String principal) {
      principals.add(String.valueOf(principal));
      return handle(request);
    }

    @Override
    public boolean takesLoneTokens() {
      return takes;
    }
  }

  private static ByteBuf drainOutbound(EmbeddedChannel ch) {
    ByteBuf all = Unpooled.buffer();
    for (ByteBuf b; (b = ch.readOutbound()) != null; ) {
      all.writeBytes(b);
      b.release();
    }
    return all;
  }
}
