package io.vcorfu.server;

import io.vcorfu.protocol.NotServingException;
import io.vcorfu.protocol.RequestDispatcher;
import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.proto.Request.PayloadCase;
import io.vcorfu.server.cluster.LatencyWindow;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * A cluster node's gate in front of its role handlers: a role request runs only while the node may
 * serve (it has adopted a layout naming it, is not sealed ahead of it, trusts its data and holds a
 * layout lease), and the latency of its foreground writes is recorded.
 *
 * <p>Invariant: the answer to a request that stores ({@link #STORING}) says what its handler did,
 * whether or not the node may still serve when the handler finishes; withholding it would make the
 * writer believe nothing was written, and write it again. Any other answer is given only if the
 * node still may serve when it is ready (a node paused in between finds its layout lease expired;
 * see {@link io.vcorfu.server.cluster.LayoutLease}). Thread-safe.
 */
final class ServingGate {
  /**
   * The requests whose latency {@link #foregroundWrites} records: what a client's append waits for
   * (reads are left out: a rebuild's own copy reads through them).
   */
  private static final Set<PayloadCase> FOREGROUND_WRITES =
      EnumSet.of(
          PayloadCase.TOKEN,
          PayloadCase.SEQUENCED_WRITE,
          PayloadCase.CHAIN_WRITE,
          PayloadCase.LOG_WRITE,
          PayloadCase.LOG_COMMIT,
          PayloadCase.STREAM_WRITE,
          PayloadCase.STREAM_COMMIT);

  /** The requests whose handler changes what this node stores. */
  static final Set<PayloadCase> STORING =
      EnumSet.of(
          PayloadCase.SEQUENCED_WRITE,
          PayloadCase.CHAIN_WRITE,
          PayloadCase.LOG_WRITE,
          PayloadCase.LOG_COMMIT,
          PayloadCase.LOG_FILL,
          PayloadCase.LOG_TRIM,
          PayloadCase.STREAM_WRITE,
          PayloadCase.STREAM_COMMIT,
          PayloadCase.STREAM_FILL,
          PayloadCase.STREAM_TRIM,
          PayloadCase.STREAM_PIN);

  private final Supplier<String> notServingReason;
  private final LatencyWindow foregroundWrites = new LatencyWindow();

  /** A gate asking {@code notServingReason} whether the node may serve (null: it may). */
  ServingGate(Supplier<String> notServingReason) {
    this.notServingReason = notServingReason;
  }

  /** The latency of the foreground writes the node served lately. */
  LatencyWindow foregroundWrites() {
    return foregroundWrites;
  }

  /** {@code handler}, behind this gate (see the class comment). */
  RpcHandler gated(RpcHandler handler) {
    return r -> {
      String role = RequestDispatcher.roleOf(r.getPayloadCase());
      String why = notServingReason.get();
      if (why != null) {
        return CompletableFuture.failedFuture(new NotServingException(role, why));
      }
      long started = System.nanoTime();
      boolean write = FOREGROUND_WRITES.contains(r.getPayloadCase());
      boolean storing = STORING.contains(r.getPayloadCase());
      return handler
          .handle(r)
          .thenApply(
              response -> {
                if (write) {
                  long now = System.nanoTime();
                  foregroundWrites.record(now - started, now);
                }
                String after = storing ? null : notServingReason.get();
                if (after != null) {
                  throw new NotServingException(role, after);
                }
                return response;
              });
    };
  }
}
