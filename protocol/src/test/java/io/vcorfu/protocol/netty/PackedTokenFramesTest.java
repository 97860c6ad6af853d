package io.vcorfu.protocol.netty;

import static io.vcorfu.protocol.netty.FrameCodecs.answers;
import static io.vcorfu.protocol.netty.FrameCodecs.decode;
import static io.vcorfu.protocol.netty.FrameCodecs.encode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.Errors;
import io.vcorfu.protocol.PackedTokens;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TooLargeException;
import io.vcorfu.protocol.Transport.ServerBinding;
import io.vcorfu.protocol.WrongEpochException;
import io.vcorfu.protocol.proto.ErrorMsg;
import io.vcorfu.protocol.proto.Header;
import io.vcorfu.protocol.proto.ReadLeaseResponse;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.proto.StreamIdMsg;
import io.vcorfu.protocol.proto.Token;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.protocol.proto.TokenResponse;
import io.vcorfu.protocol.proto.TxResolution;
import io.vcorfu.protocol.testing.Messages;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fixed frames of packed token requests ({@link PackedTokenFrames}): each stands for exactly
 * the protobuf message it replaces, only what the layout holds travels in it, a node serves a
 * packed ask behind the same checks as the request it stands for, and a client sends them only to a
 * node that said it takes them.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PackedTokenFramesTest {
  private static final Logger LOG = LoggerFactory.getLogger(PackedTokenFramesTest.class);
  private static final Endpoint ANY_PORT = new Endpoint("127.0.0.1", 0);

  /** Random unconditional asks of 1-4 tokens for 0-3 named streams each. */
  private static List<PackedTokens.Ask> asks(Random rnd) {
    List<PackedTokens.Ask> asks = new ArrayList<>();
    int n = 2 + rnd.nextInt(20);
    for (int i = 0; i < n; i++) {
      List<StreamId> streams = new ArrayList<>();
      int k = rnd.nextInt(4);
      for (int j = 0; j < k; j++) {
        StreamId s = StreamId.of("stream-" + rnd.nextInt(1000));
        if (!streams.contains(s)) {
          streams.add(s);
        }
      }
      asks.add(new PackedTokens.Ask(List.copyOf(streams), 1 + rnd.nextInt(4)));
    }
    return asks;
  }

  /** A packed token request as a client's EpochRpc sends it: names, full header. */
  private static Request packedRequest(Random rnd, long id, List<PackedTokens.Ask> asks) {
    return Request.newBuilder()
        .setHeader(
            Header.newBuilder()
                .setRequestId(id)
                .setEpoch(rnd.nextInt(1 << 20))
                .setClusterId("cluster-" + rnd.nextInt(10))
                .setClientId(StreamIdMsg.newBuilder().setMsb(rnd.nextLong()).setLsb(rnd.nextLong()))
                .setProtocolVersion(1 + rnd.nextInt(3)))
        .setToken(PackedTokens.request(asks))
        .build();
  }

  /**
   * The answer a sequencer gives a packed {@code request} of {@code asks}: consecutive global
   * addresses from a random first one, random slots.
   */
  private static Response sequencerAnswer(Request request, List<PackedTokens.Ask> asks, Random r) {
    int tokens = 0;
    long slots = 0;
    for (PackedTokens.Ask a : asks) {
      tokens += a.count();
      slots += (long) a.count() * a.streams().size();
    }
    ByteBuffer b =
        ByteBuffer.allocate(
            PackedTokens.ANSWER_HEADER_BYTES + (int) slots * PackedTokens.SLOT_BYTES);
    b.putLong(r.nextLong() >>> 2).putInt(tokens);
    while (b.hasRemaining()) {
      b.putLong(r.nextLong() >>> 1);
    }
    return Response.newBuilder()
        .setHeader(RpcHandler.answerHeader(request))
        .setToken(
            TokenResponse.newBuilder()
                .setEpoch(request.getHeader().getEpoch())
                .setPacked(ByteString.copyFrom(b.array())))
        .build();
  }

  /** The request a fixed packed ask stands for: no cluster id, no streams' names. */
  private static Request asTheNodeSeesIt(Request r) {
    Request.Builder b = r.toBuilder();
    b.getHeaderBuilder().clearClusterId();
    b.getTokenBuilder().clearPackedNames();
    return b.build();
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3})
  void aPackedAskAndItsAnswerStandForExactlyTheMessagesTheyReplace(long seed) {
    long s = seed * 0x9E3779B97F4A7C15L ^ System.nanoTime();
    LOG.info("seed {}", s);
    Random rnd = new Random(s);
    List<Object> sent = new ArrayList<>();
    List<Request> requests = new ArrayList<>();
    List<List<PackedTokens.Ask>> asked = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      List<PackedTokens.Ask> asks = asks(rnd);
      Request r = packedRequest(rnd, 1 + i, asks);
      requests.add(r);
      asked.add(asks);
      // Packed asks interleaved with protobuf messages (packed requests, pings) in one batch, as
      // a client's drain writes them.
      sent.add(i % 3 == 0 ? r : PackedTokenFrames.askFor(r, 1 + i));
      if (i % 7 == 0) {
        sent.add(Messages.ping(1000 + i));
      }
    }
    List<Object> got = decode(ProtoDecoder.REQUESTS, encode(sent.toArray()));
    assertThat(got).hasSize(sent.size());
    int next = 0;
    for (int i = 0; i < got.size(); i++) {
      if (sent.get(i) instanceof Request protobuf) {
        assertThat(got.get(i)).isEqualTo(protobuf);
        if (protobuf.getPayloadCase() != Request.PayloadCase.TOKEN) {
          continue;
        }
      } else {
        assertThat(got.get(i)).isEqualTo(new LoneTokens.Asked(asTheNodeSeesIt(requests.get(next))));
      }
      next++;
    }
    // Answers: what the client rebuilds equals what the node would have sent as protobuf, and
    // every caller's part reads the same from it.
    for (int i = 0; i < requests.size(); i++) {
      Request seen = asTheNodeSeesIt(requests.get(i));
      Response answer = sequencerAnswer(seen, asked.get(i), rnd);
      LoneTokens.Frame fixed = LoneTokens.fixedAnswer(seen, answer);
      assertThat(fixed).isInstanceOf(PackedTokenFrames.Answer.class);
      List<Object> back = decode(ProtoDecoder.RESPONSES, encode(fixed));
      assertThat(back).containsExactly(fixed);
      Response rebuilt = ((PackedTokenFrames.Answer) back.get(0)).response(requests.get(i));
      assertThat(rebuilt).isEqualTo(answer);
      assertThat(PackedTokens.split(asked.get(i), rebuilt.getToken()))
          .map(t -> t.toResponse())
          .isEqualTo(
              PackedTokens.split(asked.get(i), answer.getToken()).stream()
                  .map(t -> t.toResponse())
                  .toList());
    }
  }

  @Test
  void onlyAPackedRequestFromAKnownClientIsSentFixed() {
    Random rnd = new Random(7);
    Request packed = packedRequest(rnd, 3, asks(rnd));
    assertThat(PackedTokenFrames.askFor(packed, 3)).isNotNull();
    assertThat(LoneTokens.askFor(packed, 3)).isNull();
    TokenRequest t = packed.getToken();
    List<Request> others = new ArrayList<>();
    others.add(packed.toBuilder().setToken(t.toBuilder().clearPacked()).build());
    others.add(packed.toBuilder().setToken(t.toBuilder().setCount(1)).build());
    others.add(
        packed.toBuilder().setToken(t.toBuilder().addStreams(StreamId.of("x").toMsg())).build());
    others.add(
        packed.toBuilder()
            .setToken(t.toBuilder().setTx(TxResolution.getDefaultInstance()))
            .build());
    others.add(
        packed.toBuilder()
            .setToken(t.toBuilder().addBatch(TokenRequest.newBuilder().setCount(1)))
            .build());
    others.add(
        packed.toBuilder().setHeader(packed.getHeader().toBuilder().clearClientId()).build());
    others.add(Messages.ping(3));
    for (Request r : others) {
      assertThat(PackedTokenFrames.askFor(r, 3)).as("%s", r).isNull();
    }
  }

  @Test
  void anAnswerTheLayoutCannotHoldGoesBackAsProtobuf() {
    Random rnd = new Random(11);
    List<PackedTokens.Ask> asks = asks(rnd);
    Request seen = asTheNodeSeesIt(packedRequest(rnd, 9, asks));
    Response ok = sequencerAnswer(seen, asks, rnd);
    assertThat(LoneTokens.fixedAnswer(seen, ok)).isNotNull();
    List<Response> others =
        List.of(
            Errors.toResponse(new WrongEpochException(3, 4)).toBuilder()
                .setHeader(ok.getHeader())
                .build(),
            ok.toBuilder().setLeasePush(ReadLeaseResponse.getDefaultInstance()).build(),
            ok.toBuilder()
                .setToken(ok.getToken().toBuilder().addTokens(Token.getDefaultInstance()))
                .build(),
            ok.toBuilder().setToken(ok.getToken().toBuilder().clearPacked()).build(),
            ok.toBuilder().setHeader(ok.getHeader().toBuilder().setClusterId("c")).build(),
            ok.toBuilder().setHeader(ok.getHeader().toBuilder().setFeatures(1)).build(),
            ok.toBuilder().setHeader(ok.getHeader().toBuilder().setRequestId(10)).build());
    for (Response r : others) {
      assertThat(LoneTokens.fixedAnswer(seen, r)).as("%s", r).isNull();
    }
  }

  @Test
  void aPackedFrameOfTheWrongSideOrTooShortIsACorruptFrame() {
    ByteBuf answerToServer =
        encode(
            new PackedTokenFrames.Answer(
                1, 2, 3, ByteString.copyFrom(new byte[PackedTokens.ANSWER_HEADER_BYTES])));
    assertThatThrownBy(() -> decode(ProtoDecoder.REQUESTS, answerToServer))
        .isInstanceOf(DecoderException.class)
        .hasMessageContaining("is not a vcorfu fixed token ask");
    ByteBuf askToClient =
        encode(
            new PackedTokenFrames.Ask(
                1, 2, 3, 4, 5, ByteString.copyFrom(new byte[PackedTokens.REQUEST_HEADER_BYTES])));
    assertThatThrownBy(() -> decode(ProtoDecoder.RESPONSES, askToClient))
        .isInstanceOf(DecoderException.class)
        .hasMessageContaining("is not a vcorfu fixed token answer");
    // An ask whose packed part cannot hold one request.
    ByteBuf shortAsk =
        encode(new PackedTokenFrames.Ask(1, 2, 3, 4, 5, ByteString.copyFrom(new byte[7])));
    assertThatThrownBy(() -> decode(ProtoDecoder.REQUESTS, shortAsk))
        .isInstanceOf(DecoderException.class)
        .hasMessageContaining("45-byte fixed frame of kind 3");
  }

  // --- the server pipeline -----------------------------------------------------------------------

  /**
   * A sequencer stand-in that answers each packed request as if its asks were the next of {@code
   * asks}, which the test queues before it sends the request.
   */
  private static final class Recording {
    final FrameCodecs.Recording handler;
    final ConcurrentLinkedQueue<List<PackedTokens.Ask>> asks = new ConcurrentLinkedQueue<>();

    Recording(boolean takes) {
      handler =
          new FrameCodecs.Recording(
              takes, (request, seen) -> sequencerAnswer(request, asks.poll(), new Random(seen)));
    }
  }

  private static EmbeddedChannel server(Recording recording, int maxFrameBytes) {
    return FrameCodecs.server(recording.handler, maxFrameBytes, null);
  }

  @Test
  void aNodeThatTakesFixedAsksSaysSoAndServesPackedOnesAsTheRequestsTheyStandFor() {
    Recording node = new Recording(true);
    EmbeddedChannel ch = server(node, 1 << 20);
    Random rnd = new Random(5);
    List<PackedTokens.Ask> asks = asks(rnd);
    node.asks.add(asks);
    ch.writeInbound(encode(packedRequest(rnd, 1, asks)));
    Response first = (Response) answers(ch).get(0);
    assertThat(first.getHeader().getFeatures())
        .isEqualTo(LoneTokens.FEATURE | PackedTokenFrames.FEATURE);

    asks = asks(rnd);
    node.asks.add(asks);
    Request second = packedRequest(rnd, 2, asks);
    ch.writeInbound(encode(PackedTokenFrames.askFor(second, 2)));
    Object answer = answers(ch).get(0);
    assertThat(answer).isInstanceOf(PackedTokenFrames.Answer.class);
    assertThat(node.handler.seen).last().isEqualTo(asTheNodeSeesIt(second));
    Response expected = sequencerAnswer(asTheNodeSeesIt(second), asks, new Random(2));
    assertThat(((PackedTokenFrames.Answer) answer).response(second)).isEqualTo(expected);

    // A refusal goes back as the protobuf error, under the ask's request id.
    node.handler.refusal = Errors.toResponse(new WrongEpochException(2, 5));
    ch.writeInbound(encode(PackedTokenFrames.askFor(packedRequest(rnd, 4, asks(rnd)), 4)));
    Response refused = (Response) answers(ch).get(0);
    assertThat(refused.getHeader().getRequestId()).isEqualTo(4);
    assertThat(refused.getError().getErrorCase()).isEqualTo(ErrorMsg.ErrorCase.WRONG_EPOCH);
    assertThat(ch.isOpen()).isTrue();
  }

  @Test
  void aNodeThatDoesNotTakeThemRefusesAPackedAskWithoutServingIt() {
    Recording node = new Recording(false);
    EmbeddedChannel ch = server(node, 1 << 20);
    Random rnd = new Random(6);
    ch.writeInbound(encode(PackedTokenFrames.askFor(packedRequest(rnd, 2, asks(rnd)), 2)));
    Response refused = (Response) answers(ch).get(0);
    assertThat(refused.getHeader().getRequestId()).isEqualTo(2);
    assertThat(refused.getError().getErrorCase()).isEqualTo(ErrorMsg.ErrorCase.BAD_REQUEST);
    assertThat(node.handler.seen).isEmpty();
  }

  @Test
  void anAnswerOverTheNodesFrameLimitIsRefusedAsTooLargeNotSentFixed() {
    Recording node = new Recording(true);
    EmbeddedChannel ch = server(node, 256);
    Random rnd = new Random(13);
    List<PackedTokens.Ask> big = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      big.add(new PackedTokens.Ask(List.of(StreamId.of("s-" + i)), 8));
    }
    // 12 + 4 x 8 x 16 = 524 bytes of packed answer: over the 256-byte limit.
    node.asks.add(big);
    ch.writeInbound(encode(PackedTokenFrames.askFor(packedRequest(rnd, 7, big), 7)));
    Response refused = (Response) answers(ch).get(0);
    assertThat(refused.getHeader().getRequestId()).isEqualTo(7);
    assertThat(Errors.toException(refused.getError())).isInstanceOf(TooLargeException.class);
  }

  // --- end to end over a socket ------------------------------------------------------------------

  @Test
  void aClientSendsPackedAsksFixedOnlyOnceTheNodeSaidItTakesThemAndGetsTheSameAnswers() {
    try (NettyTransport transport = new NettyTransport(1 << 20, 2, IoFlavor.CURRENT)) {
      Recording node = new Recording(true);
      ServerBinding server = transport.bind(ANY_PORT, node.handler);
      try (RpcClient client = transport.newClient(ClientOptions.defaults())) {
        Random rnd = new Random(9);
        for (int i = 0; i < 20; i++) {
          List<PackedTokens.Ask> asks = asks(rnd);
          node.asks.add(asks);
          Request r = packedRequest(rnd, 0, asks);
          Response got = client.call(server.endpoint(), r).join();
          Request seen = new ArrayList<>(node.handler.seen).get(i);
          if (i == 0) {
            // The first went as protobuf (cluster id and names kept).
            assertThat(seen.getHeader().getClusterId()).isNotEmpty();
            assertThat(seen.getToken().getPackedNamesCount())
                .isEqualTo(r.getToken().getPackedNamesCount());
          } else {
            assertThat(seen.getHeader().getClusterId()).isEmpty();
            assertThat(seen.getToken().getPackedNamesCount()).isZero();
          }
          assertThat(seen.getToken().getPacked()).isEqualTo(r.getToken().getPacked());
          Response expected = sequencerAnswer(seen, asks, new Random(i + 1));
          Response answer =
              got.toBuilder().setHeader(got.getHeader().toBuilder().clearFeatures()).build();
          assertThat(answer.getToken()).isEqualTo(expected.getToken());
          assertThat(answer.getHeader().getRequestId()).isEqualTo(seen.getHeader().getRequestId());
          assertThat(answer.getHeader().getEpoch()).isEqualTo(seen.getHeader().getEpoch());
        }
      }
    }
  }

  @Test
  void aPackedAskOverTheClientsFrameLimitFailsAsTooLargeWithoutBeingSent() {
    try (NettyTransport transport = new NettyTransport(1 << 20, 2, IoFlavor.CURRENT)) {
      Recording node = new Recording(true);
      ServerBinding server = transport.bind(ANY_PORT, node.handler);
      ClientOptions defaults = ClientOptions.defaults();
      ClientOptions options =
          new ClientOptions(defaults.requestTimeout(), defaults.connectTimeout(), 512);
      try (RpcClient client = transport.newClient(options)) {
        Random rnd = new Random(14);
        List<PackedTokens.Ask> small = List.of(new PackedTokens.Ask(List.of(), 1));
        node.asks.add(small);
        client.call(server.endpoint(), packedRequest(rnd, 0, small)).join();
        List<PackedTokens.Ask> big = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
          big.add(new PackedTokens.Ask(List.of(StreamId.of("s-" + i)), 1));
        }
        CompletableFuture<Response> tooLarge =
            client.call(server.endpoint(), packedRequest(rnd, 0, big));
        assertThatThrownBy(tooLarge::join).hasCauseInstanceOf(TooLargeException.class);
        assertThat(node.handler.seen).hasSize(1);
      }
    }
  }
}
