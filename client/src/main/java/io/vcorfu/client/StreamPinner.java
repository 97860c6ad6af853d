package io.vcorfu.client;

import io.vcorfu.client.read.RepairingReader;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.StreamPinRequest;
import io.vcorfu.protocol.proto.StreamPinResponse;
import io.vcorfu.protocol.proto.StreamTailResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Pins a stream where it is trimmed now, on every replica of its chain (see {@link
 * StreamLog#pinStream}).
 *
 * <p>One attempt: ask every replica its trim mark, take the highest, P; pin every replica at P (a
 * replica refuses a pin below its own mark, and no trim passes a recorded pin); then, if a replica
 * answered a mark below P (a trim stopped half-way), finish that trim to P, so that every replica
 * holds exactly the positions from P on and a read now sees what a read later will. A replica that
 * refuses (a trim passed P between the question and the pin) makes the attempt start again, under
 * the same name, which replaces the pins the attempt left; at most {@link #ATTEMPTS} attempts.
 */
final class StreamPinner {
  /** Attempts before giving up (each one lost only to a trim that raced it). */
  static final int ATTEMPTS = 8;

  /** The two requests pinning sends a replica: over the wire, or in process in a model. */
  interface Calls {
    CompletableFuture<StreamTailResponse> tail(Endpoint replica, StreamId stream);

    CompletableFuture<StreamPinResponse> pin(Endpoint replica, StreamPinRequest request);

    /** Over the wire, through {@code ops}. */
    static Calls over(ReplicaClient ops) {
      return new Calls() {
        @Override
        public CompletableFuture<StreamTailResponse> tail(Endpoint replica, StreamId stream) {
          return ops.streamTail(replica, List.of(stream), false);
        }

        @Override
        public CompletableFuture<StreamPinResponse> pin(
            Endpoint replica, StreamPinRequest request) {
          return ops.call(replica, Request.newBuilder().setStreamPin(request))
              .thenApply(r -> r.getStreamPin());
        }
      };
    }
  }

  private final Calls calls;
  private final Function<StreamId, List<Endpoint>> chainOf;
  private final BiFunction<StreamId, Long, CompletableFuture<Long>> trim;

  /**
   * Pins through {@code calls} the replicas {@code chainOf} names, finishing a trim that stopped
   * half-way with {@code trim} (a whole trim of the stream, as {@link StreamLog#trimStream}).
   */
  StreamPinner(
      Calls calls,
      Function<StreamId, List<Endpoint>> chainOf,
      BiFunction<StreamId, Long, CompletableFuture<Long>> trim) {
    this.calls = calls;
    this.chainOf = chainOf;
    this.trim = trim;
  }

  /** One pin attempt after another, as the class comment says; completes with P. */
  CompletableFuture<Long> pin(StreamId stream, StreamId name) {
    return pin(stream, name, 1);
  }

  private CompletableFuture<Long> pin(StreamId stream, StreamId name, int attempt) {
    List<Endpoint> chain = chainOf.apply(stream);
    if (chain.isEmpty()) {
      return CompletableFuture.failedFuture(RepairingReader.noReplica(stream));
    }
    List<CompletableFuture<StreamTailResponse>> asked = new ArrayList<>();
    for (Endpoint replica : chain) {
      asked.add(calls.tail(replica, stream));
    }
    return CompletableFuture.allOf(asked.toArray(CompletableFuture[]::new))
        .thenCompose(
            v -> {
              long p = 0;
              for (CompletableFuture<StreamTailResponse> a : asked) {
                StreamTailResponse r = a.join();
                if (r.getTailsCount() > 0) {
                  p = Math.max(p, r.getTails(0).getTrimMark());
                }
              }
              long at = p;
              List<CompletableFuture<StreamPinResponse>> pins = new ArrayList<>();
              for (Endpoint replica : chain) {
                pins.add(send(replica, stream, name, at, false));
              }
              return CompletableFuture.allOf(pins.toArray(CompletableFuture[]::new))
                  .handle(
                      (done, error) -> {
                        if (error != null) {
                          if (trimmed(error) && attempt < ATTEMPTS) {
                            return pin(stream, name, attempt + 1);
                          }
                          return CompletableFuture.<Long>failedFuture(error);
                        }
                        boolean behind = false;
                        for (CompletableFuture<StreamPinResponse> r : pins) {
                          behind |= r.join().getTrimMark() < at;
                        }
                        return behind
                            ? trim.apply(stream, at).thenApply(mark -> at)
                            : CompletableFuture.completedFuture(at);
                      })
                  .thenCompose(f -> f);
            });
  }

  /** Drops pin {@code name} of {@code stream} on every replica of its chain. */
  CompletableFuture<Void> unpin(StreamId stream, StreamId name) {
    List<Endpoint> chain = chainOf.apply(stream);
    List<CompletableFuture<StreamPinResponse>> released = new ArrayList<>();
    for (Endpoint replica : chain) {
      released.add(send(replica, stream, name, 0, true));
    }
    return CompletableFuture.allOf(released.toArray(CompletableFuture[]::new));
  }

  private CompletableFuture<StreamPinResponse> send(
      Endpoint replica, StreamId stream, StreamId name, long at, boolean release) {
    return calls.pin(
        replica,
        StreamPinRequest.newBuilder()
            .setStream(stream.toMsg())
            .setPin(name.toMsg())
            .setAt(at)
            .setRelease(release)
            .build());
  }

  private static boolean trimmed(Throwable e) {
    Throwable t = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    return t instanceof TrimmedException;
  }
}
