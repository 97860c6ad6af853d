package io.vcorfu.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.protocol.proto.ErrorMsg;
import io.vcorfu.protocol.proto.GetLayoutRequest;
import io.vcorfu.protocol.proto.GetLayoutResponse;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.proto.SealRequest;
import io.vcorfu.protocol.proto.SealResponse;
import io.vcorfu.protocol.proto.TokenResponse;
import io.vcorfu.protocol.testing.EchoHandler;
import io.vcorfu.protocol.testing.Messages;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RequestDispatcherTest {
  private final AtomicLong epoch = new AtomicLong(5);
  private final AtomicInteger tokenCalls = new AtomicInteger();

  private RequestDispatcher dispatcher(RpcHandler tokenHandler) {
    return RequestDispatcher.builder(epoch::get)
        .on(Request.PayloadCase.PING, new EchoHandler("n"))
        .on(
            Request.PayloadCase.GET_LAYOUT,
            r ->
                CompletableFuture.completedFuture(
                    Response.newBuilder()
                        .setGetLayout(GetLayoutResponse.newBuilder().setEpoch(epoch.get()))
                        .build()))
        .on(
            Request.PayloadCase.TOKEN,
            r -> {
              tokenCalls.incrementAndGet();
              return tokenHandler.handle(r);
            })
        .build();
  }

  private RequestDispatcher dispatcher() {
    return dispatcher(
        r ->
            CompletableFuture.completedFuture(
                Response.newBuilder()
                    .setToken(TokenResponse.newBuilder().setEpoch(epoch.get()))
                    .build()));
  }

  private static VCorfuException errorOf(CompletableFuture<Response> future) {
    Response r = future.join();
    assertThat(r.getPayloadCase()).isEqualTo(Response.PayloadCase.ERROR);
    return Errors.toException(r.getError());
  }

  @Test
  void aRequestInTheCurrentEpochReachesItsHandler() {
    Response r = dispatcher().handle(Messages.token(5)).join();
    assertThat(r.hasToken()).isTrue();
    assertThat(tokenCalls.get()).isEqualTo(1);
  }

  @Test
  void aRequestFromAnotherEpochIsRejectedWithTheCurrentEpochBeforeTheHandler() {
    RequestDispatcher d = dispatcher();
    VCorfuException stale = errorOf(d.handle(Messages.token(4)));
    assertThat(stale).isInstanceOf(WrongEpochException.class);
    assertThat(((WrongEpochException) stale).currentEpoch()).isEqualTo(5);
    VCorfuException ahead = errorOf(d.handle(Messages.token(6)));
    assertThat(((WrongEpochException) ahead).currentEpoch()).isEqualTo(5);
    assertThat(tokenCalls.get()).isZero();
  }

  @Test
  void theEpochIsReadOnEveryRequest() {
    RequestDispatcher d = dispatcher();
    assertThat(d.handle(Messages.token(5)).join().hasToken()).isTrue();
    epoch.set(6);
    assertThat(((WrongEpochException) errorOf(d.handle(Messages.token(5)))).currentEpoch())
        .isEqualTo(6);
    assertThat(d.handle(Messages.token(6)).join().hasToken()).isTrue();
  }

  @Test
  void pingAndGetLayoutCrossEpochs() {
    RequestDispatcher d = dispatcher();
    assertThat(d.handle(Messages.ping(0)).join().getPing().getNodeId()).isEqualTo("n");
    assertThat(d.handle(Messages.ping(99)).join().hasPing()).isTrue();
    Request layout =
        Request.newBuilder()
            .setHeader(Messages.header(1))
            .setGetLayout(GetLayoutRequest.getDefaultInstance())
            .build();
    assertThat(d.handle(layout).join().getGetLayout().getEpoch()).isEqualTo(5);
  }

  @Test
  void aSealCrossesEpochsSinceItIsHowANodeLearnsANewerOne() {
    RequestDispatcher d =
        RequestDispatcher.builder(epoch::get)
            .on(
                Request.PayloadCase.SEAL,
                r ->
                    CompletableFuture.completedFuture(
                        Response.newBuilder()
                            .setSeal(
                                SealResponse.newBuilder()
                                    .setEpoch(Math.max(epoch.get(), r.getSeal().getEpoch())))
                            .build()))
            .build();
    Request seal =
        Request.newBuilder()
            .setHeader(Messages.header(1))
            .setSeal(SealRequest.newBuilder().setEpoch(9))
            .build();
    assertThat(d.handle(seal).join().getSeal().getEpoch()).isEqualTo(9);
    assertThat(RequestDispatcher.crossesEpochs(Request.PayloadCase.SEAL)).isTrue();
    assertThat(RequestDispatcher.roleOf(Request.PayloadCase.SEAL)).isEqualTo("layout");
  }

  @Test
  void aRefusalBecauseTheSequencerRestartedKeepsItsCauseOnTheWire() {
    StreamId s = StreamId.of("s");
    VCorfuException back =
        Errors.toException(Errors.toMsg(TokenRefusedException.sequencerRestarted(s)));
    assertThat(back)
        .isInstanceOfSatisfying(
            TokenRefusedException.class,
            e -> {
              assertThat(e.refusal()).isEqualTo(TokenRefusedException.Cause.SEQUENCER_RESTARTED);
              assertThat(e.stream()).isEqualTo(s);
              assertThat(e.snapshotTooOld()).isFalse();
            });
    VCorfuException sealed = Errors.toException(Errors.toMsg(new SealedException(7)));
    assertThat(sealed)
        .isInstanceOfSatisfying(
            SealedException.class, e -> assertThat(e.sealedEpoch()).isEqualTo(7));
  }

  @Test
  void aRequestWithNoPayloadIsABadRequest() {
    Request empty = Request.newBuilder().setHeader(Messages.header(5)).build();
    VCorfuException e = errorOf(dispatcher().handle(empty));
    assertThat(e).isInstanceOf(BadRequestException.class).hasMessage("request has no payload");
  }

  @ParameterizedTest
  @CsvSource({
    "TAIL, sequencer",
    "LOG_WRITE, log replica",
    "LOG_TRIM, log replica",
    "STREAM_READ, stream replica",
    "STREAM_TRIM, stream replica"
  })
  void anUnregisteredCaseIsNotServingNamingItsRole(Request.PayloadCase kind, String role) {
    Request.Builder b = Request.newBuilder().setHeader(Messages.header(5));
    Request request =
        switch (kind) {
          case TAIL -> b.setTail(io.vcorfu.protocol.proto.TailRequest.getDefaultInstance()).build();
          case LOG_WRITE ->
              b.setLogWrite(io.vcorfu.protocol.proto.LogWriteRequest.getDefaultInstance()).build();
          case LOG_TRIM ->
              b.setLogTrim(io.vcorfu.protocol.proto.LogTrimRequest.getDefaultInstance()).build();
          case STREAM_READ ->
              b.setStreamRead(io.vcorfu.protocol.proto.StreamReadRequest.getDefaultInstance())
                  .build();
          default ->
              b.setStreamTrim(io.vcorfu.protocol.proto.StreamTrimRequest.getDefaultInstance())
                  .build();
        };
    VCorfuException e = errorOf(dispatcher().handle(request));
    assertThat(e).isInstanceOf(NotServingException.class);
    assertThat(((NotServingException) e).role()).isEqualTo(role);
  }

  @Test
  void rolesFollowTheFieldNumberRanges() {
    assertThat(RequestDispatcher.roleOf(Request.PayloadCase.PING)).isEqualTo("base");
    assertThat(RequestDispatcher.roleOf(Request.PayloadCase.GET_LAYOUT)).isEqualTo("layout");
    assertThat(RequestDispatcher.roleOf(Request.PayloadCase.TOKEN)).isEqualTo("sequencer");
    assertThat(RequestDispatcher.roleOf(Request.PayloadCase.LOG_READ)).isEqualTo("log replica");
    assertThat(RequestDispatcher.roleOf(Request.PayloadCase.STREAM_TAIL))
        .isEqualTo("stream replica");
  }

  @Test
  void aTypedExceptionFromAHandlerBecomesItsWireError() {
    StreamId s = StreamId.of("gone");
    RequestDispatcher thrown =
        dispatcher(
            r -> {
              throw new TrimmedException(10, s);
            });
    VCorfuException e = errorOf(thrown.handle(Messages.token(5)));
    assertThat(e).isInstanceOf(TrimmedException.class);
    assertThat(((TrimmedException) e).trimMark()).isEqualTo(10);

    RequestDispatcher failed =
        dispatcher(
            r -> CompletableFuture.failedFuture(new OverwrittenException(3, null, false, 2)));
    assertThat(errorOf(failed.handle(Messages.token(5)))).isInstanceOf(OverwrittenException.class);
  }

  @Test
  void anUnexpectedExceptionIsAServerErrorCarryingItsMessage() {
    RequestDispatcher thrown =
        dispatcher(
            r -> {
              throw new NullPointerException("tails map missing");
            });
    Response r = thrown.handle(Messages.token(5)).join();
    assertThat(r.getError().getErrorCase()).isEqualTo(ErrorMsg.ErrorCase.SERVER_ERROR);
    assertThat(r.getError().getMessage()).contains("tails map missing");

    RequestDispatcher failed =
        dispatcher(x -> CompletableFuture.failedFuture(new IllegalStateException("boom")));
    assertThat(errorOf(failed.handle(Messages.token(5))))
        .isInstanceOf(ServerErrorException.class)
        .hasMessageContaining("boom");
  }

  @Test
  void registeringACaseTwiceOrNoPayloadIsRefused() {
    RequestDispatcher.Builder b =
        RequestDispatcher.builder(() -> 0).on(Request.PayloadCase.PING, new EchoHandler("n"));
    assertThatThrownBy(() -> b.on(Request.PayloadCase.PING, new EchoHandler("m")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PING");
    assertThatThrownBy(() -> b.on(Request.PayloadCase.PAYLOAD_NOT_SET, new EchoHandler("m")))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
