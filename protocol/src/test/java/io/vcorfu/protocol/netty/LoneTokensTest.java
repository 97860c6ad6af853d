package io.vcorfu.protocol.netty;

import static io.vcorfu.protocol.netty.FrameCodecs.answers;
import static io.vcorfu.protocol.netty.FrameCodecs.decode;
import static io.vcorfu.protocol.netty.FrameCodecs.encode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.Errors;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.RpcTimeoutException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TlsOptions;
import io.vcorfu.protocol.Transport.ServerBinding;
import io.vcorfu.protocol.UnauthenticatedException;
import io.vcorfu.protocol.WrongEpochException;
import io.vcorfu.protocol.proto.ErrorMsg;
import io.vcorfu.protocol.proto.Header;
import io.vcorfu.protocol.proto.ReadLeaseResponse;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.proto.StreamIdMsg;
import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.protocol.proto.Token;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.protocol.proto.TokenResponse;
import io.vcorfu.protocol.proto.TxResolution;
import io.vcorfu.protocol.testing.Messages;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fixed layout of lone token requests ({@link LoneTokens}): each frame stands for exactly the
 * protobuf message it replaces, only what the layout holds travels in it, and a node serves a fixed
 * ask behind the same checks as the request it stands for.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LoneTokensTest {
  private static final Logger LOG = LoggerFactory.getLogger(LoneTokensTest.class);
  private static final Endpoint ANY_PORT = new Endpoint("127.0.0.1", 0);

  /** A lone token request as a client's EpochRpc sends it: named stream, full header. */
  private static Request loneRequest(Random rnd, long id) {
    StreamId stream = StreamId.of("stream-" + rnd.nextInt(1000));
    return Request.newBuilder()
        .setHeader(
            Header.newBuilder()
                .setRequestId(id)
                .setEpoch(rnd.nextInt(1 << 20))
                .setClusterId("cluster-" + rnd.nextInt(10))
                .setClientId(StreamIdMsg.newBuilder().setMsb(rnd.nextLong()).setLsb(rnd.nextLong()))
                .setProtocolVersion(1 + rnd.nextInt(3)))
        .setToken(TokenRequest.newBuilder().addStreams(stream.toMsg()).setCount(1))
        .build();
  }

  /** The answer a sequencer gives {@code request} (the slot echoes the requested stream). */
  private static Response sequencerAnswer(Request request, Random rnd) {
    long global = rnd.nextLong() >>> 1;
    return Response.newBuilder()
        .setHeader(RpcHandler.answerHeader(request))
        .setToken(
            TokenResponse.newBuilder()
                .setEpoch(request.getHeader().getEpoch())
                .addTokens(
                    Token.newBuilder()
                        .setGlobalAddress(global)
                        .addSlots(
                            StreamSlot.newBuilder()
                                .setStream(request.getToken().getStreams(0))
                                .setStreamAddress(rnd.nextLong() >>> 1)
                                .setBackpointer(rnd.nextBoolean() ? -1 : global - 1))))
        .build();
  }

  /** The request a fixed ask stands for: no cluster id, the stream by its id alone. */
  private static Request asTheNodeSeesIt(Request r) {
    Request.Builder b = r.toBuilder();
    b.getHeaderBuilder().clearClusterId();
    b.getTokenBuilder().setStreams(0, r.getToken().getStreams(0).toBuilder().clearName());
    return b.build();
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3})
  void anAskAndItsAnswerStandForExactlyTheMessagesTheyReplace(long seed) {
    long s = seed * 0x9E3779B97F4A7C15L ^ System.nanoTime();
    LOG.info("seed {}", s);
    Random rnd = new Random(s);
    List<Object> asks = new ArrayList<>();
    List<Request> requests = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      Request r = loneRequest(rnd, 1 + i);
      requests.add(r);
      // Fixed asks interleaved with protobuf messages in one batch, as a client's drain writes
      // them.
      asks.add(i % 5 == 0 ? r : LoneTokens.askFor(r, 1 + i));
    }
    List<Object> got = decode(ProtoDecoder.REQUESTS, encode(asks.toArray()));
    assertThat(got).hasSize(requests.size());
    for (int i = 0; i < got.size(); i++) {
      if (i % 5 == 0) {
        assertThat(got.get(i)).isEqualTo(requests.get(i));
      } else {
        assertThat(got.get(i)).isEqualTo(new LoneTokens.Asked(asTheNodeSeesIt(requests.get(i))));
      }
    }
    // Answers: what the client rebuilds equals what the node would have sent as protobuf.
    for (Request r : requests) {
      Request seen = asTheNodeSeesIt(r);
      Response answer = sequencerAnswer(seen, rnd);
      LoneTokens.Answer fixed = LoneTokens.answerFor(seen, answer);
      assertThat(fixed).isNotNull();
      List<Object> back = decode(ProtoDecoder.RESPONSES, encode(fixed));
      assertThat(back).containsExactly(fixed);
      // The node echoed the stream by its id alone; the client's answer names it as it asked.
      Response.Builder expected = answer.toBuilder();
      expected
          .getTokenBuilder()
          .getTokensBuilder(0)
          .getSlotsBuilder(0)
          .setStream(r.getToken().getStreams(0));
      assertThat(fixed.response(r)).isEqualTo(expected.build());
    }
  }

  @Test
  void onlyAnUnconditionalRequestForOneTokenOfOneStreamFromAKnownClientIsSentFixed() {
    Request lone = loneRequest(new Random(7), 3);
    assertThat(LoneTokens.askFor(lone, 3)).isNotNull();
    List<Request> others = new ArrayList<>();
    others.add(lone.toBuilder().setToken(lone.getToken().toBuilder().setCount(2)).build());
    others.add(lone.toBuilder().setToken(lone.getToken().toBuilder().setCount(0)).build());
    others.add(
        lone.toBuilder()
            .setToken(lone.getToken().toBuilder().addStreams(StreamId.of("other").toMsg()))
            .build());
    others.add(
        lone.toBuilder()
            .setToken(lone.getToken().toBuilder().setTx(TxResolution.getDefaultInstance()))
            .build());
    others.add(lone.toBuilder().setHeader(lone.getHeader().toBuilder().clearClientId()).build());
    others.add(Messages.ping(3));
    for (Request r : others) {
      assertThat(LoneTokens.askFor(r, 3)).as("%s", r).isNull();
    }
  }

  @Test
  void anAnswerTheLayoutCannotHoldGoesBackAsProtobuf() {
    Random rnd = new Random(11);
    Request seen = asTheNodeSeesIt(loneRequest(rnd, 9));
    Response ok = sequencerAnswer(seen, rnd);
    assertThat(LoneTokens.answerFor(seen, ok)).isNotNull();
    List<Response> others =
        List.of(
            Errors.toResponse(new WrongEpochException(3, 4)).toBuilder()
                .setHeader(ok.getHeader())
                .build(),
            ok.toBuilder().setLeasePush(ReadLeaseResponse.getDefaultInstance()).build(),
            ok.toBuilder()
                .setToken(ok.getToken().toBuilder().addTokens(ok.getToken().getTokens(0)))
                .build(),
            ok.toBuilder().setHeader(ok.getHeader().toBuilder().setClusterId("c")).build(),
            ok.toBuilder().setHeader(ok.getHeader().toBuilder().setRequestId(10)).build());
    for (Response r : others) {
      assertThat(LoneTokens.answerFor(seen, r)).as("%s", r).isNull();
    }
  }

  @Test
  void aFixedFrameOfTheWrongKindOrSizeIsACorruptFrame() {
    ByteBuf answerToServer = encode(new LoneTokens.Answer(1, 2, 3, 4, 5, 6));
    assertThatThrownBy(() -> decode(ProtoDecoder.REQUESTS, answerToServer))
        .isInstanceOf(DecoderException.class)
        .hasMessageContaining("is not a vcorfu fixed token ask");
    ByteBuf shortAsk = Unpooled.buffer().writeInt(3).writeByte(0).writeByte(1).writeByte(9);
    assertThatThrownBy(() -> decode(ProtoDecoder.REQUESTS, shortAsk))
        .isInstanceOf(DecoderException.class)
        .hasMessageContaining("3-byte fixed frame");
  }

  // --- the server pipeline -----------------------------------------------------------------------

  /** A sequencer stand-in: lone token requests answered, anything else a ping's answer. */
  private static final class Recording {
    private Recording() {}

    static FrameCodecs.Recording of(boolean takes) {
      return new FrameCodecs.Recording(
          takes,
          (request, seen) ->
              request.getPayloadCase() != Request.PayloadCase.TOKEN
                  ? Response.newBuilder()
                      .setPing(io.vcorfu.protocol.proto.PingResponse.newBuilder().setNodeId("n"))
                      .build()
                  : sequencerAnswer(request, new Random(seen)));
    }
  }

  private static EmbeddedChannel server(RpcHandler handler, BearerTokens tokens) {
    return FrameCodecs.server(handler, 1 << 20, tokens);
  }

  @Test
  void aNodeThatTakesFixedAsksSaysSoOnceAndServesThemAsTheRequestsTheyStandFor() {
    FrameCodecs.Recording handler = Recording.of(true);
    EmbeddedChannel ch = server(handler, null);
    Random rnd = new Random(5);
    Request first = loneRequest(rnd, 1);
    Request second = loneRequest(rnd, 2);
    ch.writeInbound(encode(first));
    ch.writeInbound(encode(second));
    List<Object> got = answers(ch);
    assertThat(((Response) got.get(0)).getHeader().getFeatures())
        .isEqualTo(LoneTokens.FEATURE | PackedTokenFrames.FEATURE);
    assertThat(((Response) got.get(1)).getHeader().getFeatures()).isZero();

    Request third = loneRequest(rnd, 3);
    ch.writeInbound(encode(LoneTokens.askFor(third, 3)));
    Object answer = answers(ch).get(0);
    assertThat(answer).isInstanceOf(LoneTokens.Answer.class);
    assertThat(handler.seen).last().isEqualTo(asTheNodeSeesIt(third));
    Response expected = sequencerAnswer(asTheNodeSeesIt(third), new Random(3));
    assertThat(((LoneTokens.Answer) answer).response(asTheNodeSeesIt(third))).isEqualTo(expected);

    // A refusal goes back as the protobuf error, under the ask's request id.
    handler.refusal = Errors.toResponse(new WrongEpochException(2, 5));
    ch.writeInbound(encode(LoneTokens.askFor(loneRequest(rnd, 4), 4)));
    Response refused = (Response) answers(ch).get(0);
    assertThat(refused.getHeader().getRequestId()).isEqualTo(4);
    assertThat(refused.getError().getErrorCase()).isEqualTo(ErrorMsg.ErrorCase.WRONG_EPOCH);
    assertThat(ch.isOpen()).isTrue();
  }

  @Test
  void aNodeThatDoesNotTakeThemNeverSaysSoAndRefusesOneWithoutServingIt() {
    FrameCodecs.Recording handler = Recording.of(false);
    EmbeddedChannel ch = server(handler, null);
    Random rnd = new Random(6);
    ch.writeInbound(encode(loneRequest(rnd, 1)));
    assertThat(((Response) answers(ch).get(0)).getHeader().getFeatures()).isZero();
    ch.writeInbound(encode(LoneTokens.askFor(loneRequest(rnd, 2), 2)));
    Response refused = (Response) answers(ch).get(0);
    assertThat(refused.getHeader().getRequestId()).isEqualTo(2);
    assertThat(refused.getError().getErrorCase()).isEqualTo(ErrorMsg.ErrorCase.BAD_REQUEST);
    assertThat(refused.getError().getMessage()).contains("send the token request as a protobuf");
    assertThat(handler.seen).hasSize(1);
  }

  @Test
  void aFixedAskBeforeAuthenticationIsRefusedLikeAnyRequest() {
    FrameCodecs.Recording handler = Recording.of(true);
    EmbeddedChannel ch = server(handler, token -> null);
    ch.writeInbound(encode(LoneTokens.askFor(loneRequest(new Random(8), 5), 5)));
    Response refused = (Response) answers(ch).get(0);
    assertThat(refused.getHeader().getRequestId()).isEqualTo(5);
    assertThat(Errors.toException(refused.getError())).isInstanceOf(UnauthenticatedException.class);
    assertThat(handler.seen).isEmpty();
  }

  // --- end to end over a socket ------------------------------------------------------------------

  @Test
  void aClientSendsFixedAsksOnlyOnceTheNodeSaidItTakesThemAndGetsTheSameAnswers() {
    try (NettyTransport transport = new NettyTransport(1 << 20, 2, IoFlavor.CURRENT)) {
      FrameCodecs.Recording handler = Recording.of(true);
      ServerBinding server = transport.bind(ANY_PORT, handler);
      try (RpcClient client = transport.newClient(ClientOptions.defaults())) {
        Random rnd = new Random(9);
        List<Request> sent = new ArrayList<>();
        List<Response> got = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
          Request r = loneRequest(rnd, 0);
          sent.add(r);
          got.add(client.call(server.endpoint(), r).join());
        }
        List<Request> seen = new ArrayList<>(handler.seen);
        // The first went as protobuf (cluster id and name kept); every later one went fixed.
        assertThat(seen.get(0).getHeader().getClusterId()).isNotEmpty();
        assertThat(seen.get(0).getToken().getStreams(0).getName()).isNotEmpty();
        for (int i = 1; i < seen.size(); i++) {
          assertThat(seen.get(i).getHeader().getClusterId()).isEmpty();
          assertThat(seen.get(i).getToken().getStreams(0).getName()).isEmpty();
        }
        for (int i = 0; i < sent.size(); i++) {
          // Exactly the answer the node would have sent for the request as sent.
          Request asSent =
              sent.get(i).toBuilder()
                  .setHeader(
                      sent.get(i).getHeader().toBuilder()
                          .setRequestId(got.get(i).getHeader().getRequestId()))
                  .build();
          Response expected = sequencerAnswer(asSent, new Random(i + 1));
          Response answer =
              got.get(i).toBuilder()
                  .setHeader(got.get(i).getHeader().toBuilder().clearFeatures())
                  .build();
          assertThat(answer).isEqualTo(expected);
        }
      }
    }
  }

  @Test
  void overMutualTlsFixedAsksCarryTheConnectionsPrincipal(@TempDir Path dir) throws Exception {
    TestCertificates.Authority ca = TestCertificates.authority("test CA");
    TlsOptions nodeTls =
        ca.write(Files.createDirectories(dir.resolve("node")), "node", ca.issue("node-1"));
    TlsOptions own =
        ca.write(Files.createDirectories(dir.resolve("app")), "app", ca.issue("app-server-7"));
    FrameCodecs.Recording handler = Recording.of(true);
    try (NettyTransport node = new NettyTransport(nodeTls);
        NettyTransport app =
            new NettyTransport(new TlsOptions(nodeTls.ca(), own.cert(), own.key()));
        RpcClient client = app.newClient(ClientOptions.defaults())) {
      ServerBinding server = node.bind(ANY_PORT, handler);
      Random rnd = new Random(12);
      for (int i = 0; i < 10; i++) {
        Response r = client.call(server.endpoint(), loneRequest(rnd, 0)).join();
        assertThat(r.getToken().getTokensCount()).isEqualTo(1);
      }
      assertThat(handler.seen).hasSize(10);
      assertThat(handler.seen.stream().filter(q -> q.getHeader().getClusterId().isEmpty()))
          .as("requests that came as fixed asks")
          .hasSize(9);
      assertThat(handler.principals).hasSize(10).allMatch(p -> p.contains("app-server-7"));
    }
  }

  @Test
  void aFixedAskTheNodeNeverAnswersTimesOutLikeAnyCall() {
    try (NettyTransport transport = new NettyTransport(1 << 20, 2, IoFlavor.CURRENT)) {
      FrameCodecs.Recording answering = Recording.of(true);
      CompletableFuture<Response> never = new CompletableFuture<>();
      RpcHandler silentAfterFirst =
          new RpcHandler() {
            @Override
            public CompletableFuture<Response> handle(Request request) {
              return answering.seen.isEmpty() ? answering.handle(request) : never;
            }

            @Override
            public boolean takesLoneTokens() {
              return true;
            }
          };
      ServerBinding server = transport.bind(ANY_PORT, silentAfterFirst);
      ClientOptions options = ClientOptions.defaults().withRequestTimeout(Duration.ofMillis(300));
      try (RpcClient client = transport.newClient(options)) {
        Random rnd = new Random(10);
        client.call(server.endpoint(), loneRequest(rnd, 0)).join();
        CompletableFuture<Response> silent = client.call(server.endpoint(), loneRequest(rnd, 0));
        assertThatThrownBy(silent::join).hasCauseInstanceOf(RpcTimeoutException.class);
      }
    }
  }
}
