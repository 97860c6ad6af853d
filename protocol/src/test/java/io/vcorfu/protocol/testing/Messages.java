package io.vcorfu.protocol.testing;

import io.vcorfu.protocol.proto.Header;
import io.vcorfu.protocol.proto.LogReadRequest;
import io.vcorfu.protocol.proto.PingRequest;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.TokenRequest;

/** Small request builders for protocol tests. */
public final class Messages {
  private Messages() {}

  public static Header header(long epoch) {
    return Header.newBuilder().setEpoch(epoch).setProtocolVersion(1).build();
  }

  public static Request ping() {
    return ping(0);
  }

  public static Request ping(long epoch) {
    return Request.newBuilder()
        .setHeader(header(epoch))
        .setPing(PingRequest.getDefaultInstance())
        .build();
  }

  /**
   * A request carrying {@code n}, answered by {@link EchoHandler} with a response carrying {@code
   * n} back: lets a test check that every response matches its own request.
   */
  public static Request numbered(long n) {
    return numbered(0, n);
  }

  public static Request numbered(long epoch, long n) {
    return Request.newBuilder()
        .setHeader(header(epoch))
        .setLogRead(LogReadRequest.newBuilder().setFrom(n).setTo(n))
        .build();
  }

  /** The number {@link EchoHandler} sent back for a {@link #numbered} request. */
  public static long number(io.vcorfu.protocol.proto.Response response) {
    return response.getLogTail().getTail();
  }

  public static Request token(long epoch) {
    return Request.newBuilder()
        .setHeader(header(epoch))
        .setToken(TokenRequest.newBuilder().setCount(1))
        .build();
  }

  /** A request of about {@code bytes} bytes (a log write with a payload of that size). */
  public static Request ofSize(int bytes) {
    return Request.newBuilder()
        .setHeader(header(0))
        .setLogWrite(
            io.vcorfu.protocol.proto.LogWriteRequest.newBuilder()
                .setEntry(
                    io.vcorfu.protocol.proto.LogEntryMsg.newBuilder()
                        .setPayload(com.google.protobuf.ByteString.copyFrom(new byte[bytes]))))
        .build();
  }
}
