package io.vcorfu.protocol;

import io.vcorfu.protocol.internal.HandlerCalls;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * The server's single entry point: routes each request to the handler registered for its payload
 * case, after checking its epoch.
 *
 * <p>The epoch is checked here: a request whose header epoch differs from {@code currentEpoch} is
 * answered with {@code WrongEpoch{current_epoch}} before any handler runs, except {@code PING},
 * {@code GET_LAYOUT} and {@code SEAL}, which cross epochs (a seal is how a node learns a newer
 * epoch). A handler that parks a request (a sequenced write waiting for its sequencer) checks the
 * epoch again when it resumes. A request with no payload is answered {@code BadRequest}; a payload
 * case with no handler is answered {@code NotServing} naming the role that case belongs to. A
 * handler's {@link VCorfuException} (thrown or completing its future) becomes its wire error; any
 * other exception is logged and answered {@code ServerError}.
 *
 * <p>Immutable after {@link Builder#build()}; thread-safe if the handlers and the epoch supplier
 * are.
 */
public final class RequestDispatcher implements RpcHandler {
  private final LongSupplier currentEpoch;
  private final Map<Request.PayloadCase, RpcHandler> handlers;

  private RequestDispatcher(
      LongSupplier currentEpoch, Map<Request.PayloadCase, RpcHandler> handlers) {
    this.currentEpoch = currentEpoch;
    this.handlers = handlers;
  }

  /** Starts a dispatcher whose epoch check reads {@code currentEpoch} on every request. */
  public static Builder builder(LongSupplier currentEpoch) {
    return new Builder(currentEpoch);
  }

  @Override
  public CompletableFuture<Response> handle(Request request) {
    Request.PayloadCase kind = request.getPayloadCase();
    if (kind == Request.PayloadCase.PAYLOAD_NOT_SET) {
      return fail(new BadRequestException("request has no payload"));
    }
    if (!crossesEpochs(kind)) {
      long current = currentEpoch.getAsLong();
      long stamped = request.getHeader().getEpoch();
      if (stamped != current) {
        return fail(new WrongEpochException(stamped, current));
      }
    }
    RpcHandler handler = handlers.get(kind);
    if (handler == null) {
      return fail(new NotServingException(roleOf(kind)));
    }
    CompletableFuture<Response> future;
    try {
      future = handler.handle(request);
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(HandlerCalls.failure(request, e));
    }
    if (future == null) {
      return fail(new ServerErrorException("the " + kind + " handler gave no answer"));
    }
    return future.exceptionally(error -> HandlerCalls.failure(request, error));
  }

  /**
   * True for the requests served whatever epoch they carry: PING, COMPACT, GET_LAYOUT, SEAL,
   * REMOVE_NODE, ADD_NODE and RUN_COMMAND (a command runs through a client of its own, which keeps
   * up with the layout itself).
   */
  public static boolean crossesEpochs(Request.PayloadCase kind) {
    return kind == Request.PayloadCase.PING
        || kind == Request.PayloadCase.COMPACT
        || kind == Request.PayloadCase.GET_LAYOUT
        || kind == Request.PayloadCase.SEAL
        || kind == Request.PayloadCase.REMOVE_NODE
        || kind == Request.PayloadCase.ADD_NODE
        || kind == Request.PayloadCase.RUN_COMMAND;
  }

  /**
   * The role hosting a payload case, from its field-number range: base (10-19), layout (20-39),
   * sequencer (40-59), log replica (60-79), stream replica (80-99), object view (100-119).
   */
  public static String roleOf(Request.PayloadCase kind) {
    int n = kind.getNumber();
    if (n >= 20 && n < 40) {
      return "layout";
    } else if (n >= 40 && n < 60) {
      return "sequencer";
    } else if (n >= 60 && n < 80) {
      return "log replica";
    } else if (n >= 80 && n < 100) {
      return "stream replica";
    } else if (n >= 100 && n < 120) {
      return "object view";
    }
    return "base";
  }

  private static CompletableFuture<Response> fail(VCorfuException error) {
    return CompletableFuture.completedFuture(Errors.toResponse(error));
  }

  /** Registers one handler per payload case. Not thread-safe; use from one thread, then build. */
  public static final class Builder {
    private final LongSupplier currentEpoch;
    private final EnumMap<Request.PayloadCase, RpcHandler> handlers =
        new EnumMap<>(Request.PayloadCase.class);

    private Builder(LongSupplier currentEpoch) {
      this.currentEpoch = Objects.requireNonNull(currentEpoch, "currentEpoch");
    }

    /**
     * Serves {@code kind} with {@code handler}.
     *
     * @throws IllegalArgumentException if {@code kind} is PAYLOAD_NOT_SET or already registered
     */
    public Builder on(Request.PayloadCase kind, RpcHandler handler) {
      Objects.requireNonNull(handler, "handler");
      if (kind == Request.PayloadCase.PAYLOAD_NOT_SET) {
        throw new IllegalArgumentException(
            "cannot register a handler for requests with no payload");
      }
      if (handlers.putIfAbsent(kind, handler) != null) {
        throw new IllegalArgumentException("a handler for " + kind + " is already registered");
      }
      return this;
    }

    /** Serves every case in {@code table}, as {@link #on} one by one. */
    public Builder onAll(Map<Request.PayloadCase, RpcHandler> table) {
      table.forEach(this::on);
      return this;
    }

    public RequestDispatcher build() {
      return new RequestDispatcher(currentEpoch, new EnumMap<>(handlers));
    }
  }
}
