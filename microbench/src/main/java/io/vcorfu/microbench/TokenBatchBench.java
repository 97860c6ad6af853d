package io.vcorfu.microbench;

import com.google.protobuf.InvalidProtocolBufferException;
import io.vcorfu.protocol.PackedTokens;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.Tokens;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.protocol.proto.TokenResponse;
import io.vcorfu.sequencer.Sequencer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Setup;

/**
 * What the sequencer node does per token for one coalesced message of 256 one-stream requests, from
 * the message's bytes to the answer's bytes (parse, issue, serialize), in the two forms a client
 * can send: each request a nested message ({@code TokenRequest.batch}) or the fixed layout of
 * {@link PackedTokens} ({@code TokenRequest.packed}). Also the client's side of the packed form:
 * packing the requests and splitting the answer into each caller's response.
 */
public class TokenBatchBench extends Microbenchmark {
  private static final int REQUESTS = 256;

  private Sequencer sequencer;
  private byte[] nested;
  private byte[] packed;
  private List<PackedTokens.Ask> asks;
  private TokenResponse packedAnswer;

  @Setup
  public void setUp() {
    sequencer = new Sequencer();
    sequencer.bootstrap(1, -1, Map.of());
    asks = new ArrayList<>();
    TokenRequest.Builder batch = TokenRequest.newBuilder();
    for (int i = 0; i < REQUESTS; i++) {
      PackedTokens.Ask ask = new PackedTokens.Ask(List.of(StreamId.of("s" + (i % 4))), 1);
      asks.add(ask);
      batch.addBatch(ask.toRequest());
    }
    nested = Request.newBuilder().setToken(batch).build().toByteArray();
    packed =
        Request.newBuilder()
            .setToken(TokenRequest.newBuilder().setPacked(PackedTokens.pack(asks)))
            .build()
            .toByteArray();
    packedAnswer =
        sequencer.issuePacked(TokenRequest.newBuilder().setPacked(PackedTokens.pack(asks)).build());
  }

  @Benchmark
  @OperationsPerInvocation(REQUESTS)
  public byte[] nestedMessages() throws InvalidProtocolBufferException {
    TokenRequest r = Request.parseFrom(nested).getToken();
    return Response.newBuilder().setToken(sequencer.issueBatch(r, x -> {})).build().toByteArray();
  }

  @Benchmark
  @OperationsPerInvocation(REQUESTS)
  public byte[] packedLayout() throws InvalidProtocolBufferException {
    TokenRequest r = Request.parseFrom(packed).getToken();
    return Response.newBuilder().setToken(sequencer.issuePacked(r)).build().toByteArray();
  }

  @Benchmark
  @OperationsPerInvocation(REQUESTS)
  public List<Tokens> clientPackAndSplit() {
    PackedTokens.pack(asks);
    return PackedTokens.split(asks, packedAnswer);
  }
}
