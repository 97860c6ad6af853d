package io.vcorfu.protocol.netty;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import java.util.concurrent.CompletableFuture;

/** One call of a {@link NettyRpcClient} waiting for its answer. */
final class PendingCall {
  final long id;
  final Endpoint target;
  final Request.PayloadCase kind;

  /** The request of a call sent as a fixed ask ({@link LoneTokens}), which its answer needs. */
  final Request asked;

  final CompletableFuture<Response> future = new CompletableFuture<>();

  /** When the call times out, on {@link System#nanoTime()}'s clock. */
  final long deadline;

  PendingCall(
      long id, Endpoint target, Request.PayloadCase kind, Request asked, long timeoutNanos) {
    this.id = id;
    this.target = target;
    this.kind = kind;
    this.asked = asked;
    this.deadline = System.nanoTime() + timeoutNanos;
  }
}
