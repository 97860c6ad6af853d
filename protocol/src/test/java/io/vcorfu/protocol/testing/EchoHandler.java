package io.vcorfu.protocol.testing;

import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.Errors;
import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.proto.LogTailResponse;
import io.vcorfu.protocol.proto.PingResponse;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test server: answers PING with its node id and a {@link Messages#numbered} request with the
 * same number; anything else with BadRequest. Records what it received. Thread-safe.
 */
public final class EchoHandler implements RpcHandler {
  private final String nodeId;
  private final AtomicInteger calls = new AtomicInteger();
  private final List<Request> received = new CopyOnWriteArrayList<>();
  private volatile boolean record;

  public EchoHandler(String nodeId) {
    this.nodeId = nodeId;
  }

  /** Keeps every request received, for {@link #received()} (off by default: load tests). */
  public EchoHandler recording() {
    this.record = true;
    return this;
  }

  @Override
  public CompletableFuture<Response> handle(Request request) {
    calls.incrementAndGet();
    if (record) {
      received.add(request);
    }
    return CompletableFuture.completedFuture(answer(request));
  }

  private Response answer(Request request) {
    return switch (request.getPayloadCase()) {
      case PING ->
          Response.newBuilder().setPing(PingResponse.newBuilder().setNodeId(nodeId)).build();
      case LOG_READ ->
          Response.newBuilder()
              .setLogTail(LogTailResponse.newBuilder().setTail(request.getLogRead().getFrom()))
              .build();
      default ->
          Errors.toResponse(
              new BadRequestException(
                  "the echo server does not answer " + request.getPayloadCase()));
    };
  }

  public int calls() {
    return calls.get();
  }

  public List<Request> received() {
    return List.copyOf(received);
  }

  /** A handler whose futures never complete (for timeout tests). */
  public static RpcHandler neverAnswers() {
    return request -> new CompletableFuture<>();
  }
}
