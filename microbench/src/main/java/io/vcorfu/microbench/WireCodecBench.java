package io.vcorfu.microbench;

import com.google.protobuf.ByteString;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.netty.Framing;
import io.vcorfu.protocol.netty.ProtoDecoder;
import io.vcorfu.protocol.netty.ProtoEncoder;
import io.vcorfu.protocol.proto.Header;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.SequencedWriteRequest;
import io.vcorfu.protocol.proto.TokenRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The node's wire codec: a sequenced write (token request and payload, what a client sends per
 * append) encoded by the outbound {@link ProtoEncoder} and decoded again by the inbound frame
 * decoder and {@link ProtoDecoder}, through a Netty pipeline with no socket; alone and as a batch
 * of 32 messages written at once (one buffer for all of them).
 */
public class WireCodecBench extends Microbenchmark {
  static final int BATCH = 32;

  @Param({"64", "1024"})
  int payloadBytes;

  private EmbeddedChannel encoder;
  private EmbeddedChannel decoder;
  private Request request;
  private ProtoEncoder.Batch batch;

  @Setup
  public void setUp() {
    byte[] payload = new byte[payloadBytes];
    new Random(1).nextBytes(payload);
    request =
        Request.newBuilder()
            .setHeader(header())
            .setSequencedWrite(
                SequencedWriteRequest.newBuilder()
                    .setToken(TokenRequest.newBuilder().addStreams(StreamId.of("s").toMsg()))
                    .setPayload(ByteString.copyFrom(payload))
                    .setNonce(0x1234_5678_9abc_def1L)
                    .setWriterSeq(42))
            .build();
    List<Request> many = new ArrayList<>(BATCH);
    for (int i = 0; i < BATCH; i++) {
      many.add(request);
    }
    batch = new ProtoEncoder.Batch(many);
    encoder = new EmbeddedChannel(ProtoEncoder.INSTANCE);
    decoder = new EmbeddedChannel(Framing.newFrameDecoder(64 << 20), ProtoDecoder.REQUESTS);
  }

  /** The header of a client's request in these benchmarks. */
  static Header header() {
    return Header.newBuilder()
        .setRequestId(123_456_789L)
        .setEpoch(7)
        .setClusterId("bench")
        .setClientId(StreamId.of("client").toMsg())
        .setProtocolVersion(1)
        .build();
  }

  @TearDown
  public void tearDown() {
    encoder.finishAndReleaseAll();
    decoder.finishAndReleaseAll();
  }

  /** One request encoded into its frame and decoded back. */
  @Benchmark
  public Request roundTrip() {
    encoder.writeOutbound(request);
    ByteBuf frame = encoder.readOutbound();
    decoder.writeInbound(frame);
    return decoder.readInbound();
  }

  /** 32 requests encoded into one buffer and decoded back; time per request. */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public Request batchRoundTrip() {
    encoder.writeOutbound(batch);
    ByteBuf frames = encoder.readOutbound();
    decoder.writeInbound(frames);
    Request last = null;
    for (int i = 0; i < BATCH; i++) {
      last = decoder.readInbound();
    }
    return last;
  }
}
