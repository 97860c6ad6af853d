package io.vcorfu.microbench;

import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.netty.LoneTokens;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.protocol.proto.Token;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.protocol.proto.TokenResponse;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;

/**
 * A lone token request (one token of one stream) and its answer through both ends' codecs, with no
 * socket: the client encodes the request, the node decodes it, the node encodes the sequencer's
 * answer, the client decodes it into the response its caller receives. As Protocol Buffers messages
 * ({@link #protobuf}) and as the fixed frames of {@link LoneTokens} ({@link #fixed}), which also
 * build the protobuf request the node serves and the response the client's caller gets.
 */
public class LoneTokenCodecBench extends FrameRoundTrip {
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
    openChannels();
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
