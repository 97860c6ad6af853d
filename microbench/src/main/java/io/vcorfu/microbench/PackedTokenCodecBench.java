package io.vcorfu.microbench;

import com.google.protobuf.UnsafeByteOperations;
import io.vcorfu.protocol.PackedTokens;
import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.netty.LoneTokens;
import io.vcorfu.protocol.netty.PackedTokenFrames;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.proto.TokenResponse;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;

/**
 * A coalesced token message of 16 callers' requests (one token of one named stream each, as the
 * headline's 16-deep pipeline sends) and its answer through both ends' codecs, with no socket: the
 * client encodes the request, the node decodes it, the node encodes the sequencer's packed answer,
 * the client decodes it into the response it splits among its callers. As Protocol Buffers messages
 * ({@link #protobuf}: {@code TokenRequest.packed} with the streams' names, {@code
 * TokenResponse.packed}) and as the fixed frames of {@link PackedTokenFrames} ({@link #fixed}),
 * which also build the protobuf request the node serves and the response the client splits.
 */
public class PackedTokenCodecBench extends FrameRoundTrip {
  private static final int CALLERS = 16;

  private Request request;
  private Response answer;
  private Response fixedAnswer;

  @Setup
  public void setUp() {
    List<PackedTokens.Ask> asks = new ArrayList<>();
    for (int i = 0; i < CALLERS; i++) {
      asks.add(new PackedTokens.Ask(List.of(StreamId.of("s")), 1));
    }
    request =
        Request.newBuilder()
            .setHeader(WireCodecBench.header())
            .setToken(PackedTokens.request(asks))
            .build();
    answer = answerTo(request);
    fixedAnswer = answerTo(PackedTokenFrames.askFor(request, 123_456_789L).request());
    openChannels();
  }

  /** The sequencer's packed answer to {@code r}: consecutive addresses, one slot per token. */
  private static Response answerTo(Request r) {
    ByteBuffer b =
        ByteBuffer.allocate(PackedTokens.ANSWER_HEADER_BYTES + CALLERS * PackedTokens.SLOT_BYTES);
    b.putLong(1_000_000_007L).putInt(CALLERS);
    for (int i = 0; i < CALLERS; i++) {
      b.putLong(31_337 + i).putLong(i == 0 ? -1 : 1_000_000_006L + i);
    }
    return Response.newBuilder()
        .setHeader(RpcHandler.answerHeader(r))
        .setToken(
            TokenResponse.newBuilder()
                .setEpoch(7)
                .setPacked(UnsafeByteOperations.unsafeWrap(b.array())))
        .build();
  }

  /** Request and answer as Protocol Buffers messages. */
  @Benchmark
  public Response protobuf() {
    Request atNode = (Request) through(clientOut, nodeIn, request);
    if (atNode.getToken().getPacked().size() != request.getToken().getPacked().size()) {
      throw new IllegalStateException("packed requests lost");
    }
    return (Response) through(nodeOut, clientIn, answer);
  }

  /** Request and answer as fixed frames, each side building the messages it hands on. */
  @Benchmark
  public Response fixed() {
    LoneTokens.Asked atNode =
        (LoneTokens.Asked)
            through(clientOut, nodeIn, PackedTokenFrames.askFor(request, 123_456_789L));
    PackedTokenFrames.Answer back =
        (PackedTokenFrames.Answer)
            through(nodeOut, clientIn, PackedTokenFrames.answerFor(atNode.request(), fixedAnswer));
    return back.response(request);
  }
}
