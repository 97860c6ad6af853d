package io.vcorfu.protocol.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.vcorfu.protocol.Errors;
import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TooLargeException;
import io.vcorfu.protocol.UnknownStreamException;
import io.vcorfu.protocol.proto.ErrorMsg;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.testing.EchoHandler;
import io.vcorfu.protocol.testing.Messages;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The full server pipeline on an {@link EmbeddedChannel}: bytes in, bytes out. */
class ServerRequestHandlerTest {

  private static EmbeddedChannel server(RpcHandler handler, int maxFrame) {
    return new EmbeddedChannel(
        Framing.newFrameDecoder(maxFrame),
        ProtoDecoder.REQUESTS,
        ProtoEncoder.INSTANCE,
        new ServerRequestHandler(handler, maxFrame));
  }

  private static ByteBuf frame(Request request) {
    byte[] body = request.toByteArray();
    return Unpooled.buffer().writeInt(body.length).writeBytes(body);
  }

  /** Reads one response frame from the server's outbound side. */
  private static Response readResponse(EmbeddedChannel ch) throws Exception {
    ByteBuf all = Unpooled.buffer();
    try {
      for (ByteBuf b; (b = ch.readOutbound()) != null; ) {
        all.writeBytes(b);
        b.release();
      }
      int length = all.readInt();
      assertThat(all.readableBytes()).isEqualTo(length);
      byte[] body = new byte[length];
      all.readBytes(body);
      return Response.parseFrom(body);
    } finally {
      all.release();
    }
  }

  private static Request withId(Request r, long id) {
    return r.toBuilder().setHeader(r.getHeader().toBuilder().setRequestId(id)).build();
  }

  @Test
  void answersWithTheRequestIdAndFillsTheHeader() throws Exception {
    EmbeddedChannel ch = server(new EchoHandler("node-a"), 1024);
    ch.writeInbound(frame(withId(Messages.ping(5), 77)));
    Response response = readResponse(ch);
    assertThat(response.getHeader().getRequestId()).isEqualTo(77);
    assertThat(response.getHeader().getEpoch()).isEqualTo(5);
    assertThat(response.getPing().getNodeId()).isEqualTo("node-a");
    assertThat(ch.finish()).isFalse();
  }

  @Test
  void aFailedHandlerFutureIsAnsweredWithItsTypedError() throws Exception {
    StreamId s = StreamId.of("missing");
    EmbeddedChannel ch =
        server(r -> CompletableFuture.failedFuture(new UnknownStreamException(s)), 1024);
    ch.writeInbound(frame(withId(Messages.ping(), 3)));
    Response response = readResponse(ch);
    assertThat(response.getHeader().getRequestId()).isEqualTo(3);
    assertThat(response.getError().getErrorCase()).isEqualTo(ErrorMsg.ErrorCase.UNKNOWN_STREAM);
    assertThat(Errors.toException(response.getError())).isInstanceOf(UnknownStreamException.class);
    assertThat(ch.finish()).isFalse();
  }

  @Test
  void aHandlerThatThrowsIsAnsweredWithServerError() throws Exception {
    EmbeddedChannel ch =
        server(
            r -> {
              throw new IllegalStateException("disk on fire");
            },
            1024);
    ch.writeInbound(frame(withId(Messages.ping(), 4)));
    Response response = readResponse(ch);
    assertThat(response.getError().getErrorCase()).isEqualTo(ErrorMsg.ErrorCase.SERVER_ERROR);
    assertThat(response.getError().getMessage()).contains("disk on fire");
    assertThat(ch.finish()).isFalse();
  }

  @Test
  void aResponseAboveTheFrameLimitIsReplacedByTooLarge() throws Exception {
    Response huge =
        Response.newBuilder()
            .setPing(io.vcorfu.protocol.proto.PingResponse.newBuilder().setNodeId("x".repeat(500)))
            .build();
    EmbeddedChannel ch = server(r -> CompletableFuture.completedFuture(huge), 200);
    ch.writeInbound(frame(withId(Messages.ping(), 9)));
    Response response = readResponse(ch);
    assertThat(response.getHeader().getRequestId()).isEqualTo(9);
    assertThat(Errors.toException(response.getError())).isInstanceOf(TooLargeException.class);
    assertThat(ch.finish()).isFalse();
  }

  @Test
  void answersArriveWhenTheHandlerCompletesLater() throws Exception {
    CompletableFuture<Response> later = new CompletableFuture<>();
    EmbeddedChannel ch = server(r -> later, 1024);
    ch.writeInbound(frame(withId(Messages.ping(), 11)));
    Object early = ch.readOutbound();
    assertThat(early).isNull();
    later.complete(
        Response.newBuilder()
            .setPing(io.vcorfu.protocol.proto.PingResponse.getDefaultInstance())
            .build());
    ch.runPendingTasks();
    assertThat(readResponse(ch).getHeader().getRequestId()).isEqualTo(11);
    assertThat(ch.finish()).isFalse();
  }

  @Test
  void garbageBytesCloseTheConnection() {
    EchoHandler echo = new EchoHandler("n");
    EmbeddedChannel ch = server(echo, 1024);
    ch.writeInbound(
        Unpooled.wrappedBuffer(
            "GET / HTTP/1.1\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
    assertThat(ch.isOpen()).isFalse();
    assertThat(echo.calls()).isZero();
    ch.finishAndReleaseAll();
  }

  @Test
  void anUnparsableFrameClosesTheConnection() {
    EchoHandler echo = new EchoHandler("n");
    EmbeddedChannel ch = server(echo, 1024);
    ch.writeInbound(
        Unpooled.buffer()
            .writeInt(3)
            .writeBytes(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff}));
    assertThat(ch.isOpen()).isFalse();
    assertThat(echo.calls()).isZero();
    ch.finishAndReleaseAll();
  }

  @Test
  void requestsBeforeGarbageAreStillAnswered() throws Exception {
    EmbeddedChannel ch = server(new EchoHandler("n"), 1024);
    ByteBuf input = frame(withId(Messages.numbered(8), 1));
    input.writeInt(Integer.MAX_VALUE);
    ch.writeInbound(input);
    Response response = readResponse(ch);
    assertThat(Messages.number(response)).isEqualTo(8);
    assertThat(ch.isOpen()).isFalse();
    ch.finishAndReleaseAll();
  }
}
