package io.vcorfu.microbench;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.netty.Framing;
import io.vcorfu.protocol.netty.LoneTokens;
import io.vcorfu.protocol.netty.ProtoDecoder;
import io.vcorfu.protocol.netty.ProtoEncoder;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.protocol.proto.Token;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.protocol.proto.TokenResponse;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * A lone token request (one token of one stream) and its answer through both ends' codecs, with no
 * socket: the client encodes the request, the node decodes it, the node encodes the sequencer's
 * answer, the client decodes it into the response its caller receives. As Protocol Buffers messages
 * ({@link #protobuf}) and as the fixed frames of {@link LoneTokens} ({@link #fixed}), which also
 * build the protobuf request the node serves and the response the client's caller gets.
 */
public class LoneTokenCodecBench extends Microbenchmark {
  private EmbeddedChannel clientOut;
  private EmbeddedChannel nodeIn;
  private EmbeddedChannel nodeOut;
  private EmbeddedChannel clientIn;
  private Request request;
  private Response answer;
  private Response fixedAnswer;

  @Setup
  public void setUp() {
    request =
        Request.newBuilder()
            .setHeader(WireCodecBench.header())
            .setToken(TokenRequest.newBuilder().addStreams(StreamId.of("s").toMsg()).setCount(1))
            .build();
    answer = answerTo(request);
    fixedAnswer = answerTo(LoneTokens.askFor(request, 123_456_789L).request());
    clientOut = new EmbeddedChannel(ProtoEncoder.INSTANCE);
    nodeOut = new EmbeddedChannel(ProtoEncoder.INSTANCE);
    nodeIn = new EmbeddedChannel(Framing.newFrameDecoder(64 << 20), ProtoDecoder.REQUESTS);
    clientIn = new EmbeddedChannel(Framing.newFrameDecoder(64 << 20), ProtoDecoder.RESPONSES);
  }

  /** The sequencer's answer to {@code r}: its slot names the stream as the request did. */
  private static Response answerTo(Request r) {
    return Response.newBuilder()
        .setHeader(RpcHandler.answerHeader(r))
        .setToken(
            TokenResponse.newBuilder()
                .setEpoch(7)
                .addTokens(
                    Token.newBuilder()
                        .setGlobalAddress(1_000_000_007L)
                        .addSlots(
                            StreamSlot.newBuilder()
                                .setStream(r.getToken().getStreams(0))
                                .setStreamAddress(31_337)
                                .setBackpointer(1_000_000_003L))))
        .build();
  }

  @TearDown
  public void tearDown() {
    clientOut.finishAndReleaseAll();
    nodeIn.finishAndReleaseAll();
    nodeOut.finishAndReleaseAll();
    clientIn.finishAndReleaseAll();
  }

  private static Object through(EmbeddedChannel out, EmbeddedChannel in, Object message) {
    out.writeOutbound(message);
    ByteBuf frame = out.readOutbound();
    in.writeInbound(frame);
    return in.readInbound();
  }

  /** Request and answer as Protocol Buffers messages. */
  @Benchmark
  public Response protobuf() {
    Request atNode = (Request) through(clientOut, nodeIn, request);
    if (atNode.getHeader().getRequestId() != answer.getHeader().getRequestId()) {
      throw new IllegalStateException("request id lost");
    }
    return (Response) through(nodeOut, clientIn, answer);
  }

  /** Request and answer as fixed frames, each side building the messages it hands on. */
  @Benchmark
  public Response fixed() {
    LoneTokens.Asked atNode =
        (LoneTokens.Asked) through(clientOut, nodeIn, LoneTokens.askFor(request, 123_456_789L));
    LoneTokens.Answer back =
        (LoneTokens.Answer)
            through(nodeOut, clientIn, LoneTokens.answerFor(atNode.request(), fixedAnswer));
    return back.response(request);
  }
}
