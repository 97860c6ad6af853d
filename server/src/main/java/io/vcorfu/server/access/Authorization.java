package io.vcorfu.server.access;

import io.vcorfu.protocol.Errors;
import io.vcorfu.protocol.PermissionDeniedException;
import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's authorization: every request a principal sends is checked against the grants before the
 * node does anything of it ({@link RequestAccess} says what each needs), and refused whole with
 * {@link PermissionDeniedException} otherwise, one line in the audit log ({@code vcorfu.audit})
 * naming who, what and on which stream. A permitted call that ships object classes (code the node
 * will run) is recorded there too, at INFO.
 *
 * <p>Invariant: a request from a principal reaches the node's roles only if the grants current when
 * it arrived allow all of it; a log read's answer leaves only if they allow every entry in it. The
 * node's own principal (the subject of its certificate) is a node. Requests with no principal come
 * from the node's own process (its transport authenticates every remote caller, as authorization
 * runs only over TLS) and are served as the node's own.
 */
public final class Authorization {
  private static final Logger AUDIT = LoggerFactory.getLogger("vcorfu.audit");

  private final Supplier<AccessList> grants;
  private final String self;
  private final StreamNames names = new StreamNames();

  /**
   * @param grants the grants now (read on every request; cheap)
   * @param self the node's own principal
   */
  public Authorization(Supplier<AccessList> grants, String self) {
    this.grants = Objects.requireNonNull(grants, "grants");
    this.self = Objects.requireNonNull(self, "self");
  }

  /**
   * The handler a node binds to its transport: {@code next} for every request when {@code config}
   * is null (no authorization), else {@code next} behind the check of each request against the
   * grants {@code source} holds (none while it holds no source yet: only nodes are served).
   */
  public static RpcHandler entry(
      AccessConfig config, Supplier<Supplier<AccessList>> source, RpcHandler next) {
    Authorization a =
        config == null
            ? null
            : new Authorization(
                () -> {
                  Supplier<AccessList> s = source.get();
                  return s == null ? AccessList.EMPTY : s.get();
                },
                config.self());
    return new RpcHandler() {
      @Override
      public CompletableFuture<Response> handle(Request request) {
        return next.handle(request);
      }

      @Override
      public CompletableFuture<Response> handle(Request request, String principal) {
        return a == null ? next.handle(request) : a.answer(request, principal, next);
      }

      /** Fixed token asks carry no stream name, which authorization reads. */
      @Override
      public boolean takesLoneTokens() {
        return a == null;
      }
    };
  }

  /** {@code next}'s answer to {@code r} from {@code principal}, or the refusal. */
  public CompletableFuture<Response> answer(Request r, String principal, RpcHandler next) {
    if (principal == null || principal.equals(self)) {
      return next.handle(r);
    }
    AccessList now = grants.get();
    PermissionDeniedException denied = RequestAccess.check(r, principal, now, names);
    if (denied != null) {
      return refuse(r, denied);
    }
    if (r.getPayloadCase() == Request.PayloadCase.VIEW_CALL
        && r.getViewCall().getBundleCount() > 0) {
      // Code the node will run: who shipped it stays on record.
      String stream = names.nameOf(r.getViewCall().getStream());
      AUDIT.info(
          "{} ships {} classes of {} with a remote-view call on {}",
          principal,
          r.getViewCall().getBundleCount(),
          r.getViewCall().getType(),
          stream != null ? "'" + stream + "'" : "an unnamed stream");
    }
    CompletableFuture<Response> answer = next.handle(r);
    if (r.getPayloadCase() != Request.PayloadCase.LOG_READ) {
      return answer;
    }
    return answer.thenApply(
        a -> {
          PermissionDeniedException hidden = RequestAccess.checkAnswer(a, principal, now, names);
          if (hidden == null) {
            return a;
          }
          audit(r, hidden);
          return Errors.toResponse(hidden);
        });
  }

  private CompletableFuture<Response> refuse(Request r, PermissionDeniedException denied) {
    audit(r, denied);
    return CompletableFuture.completedFuture(Errors.toResponse(denied));
  }

  private static void audit(Request r, PermissionDeniedException denied) {
    AUDIT.warn(
        "denied {} request of {}: no '{}' grant{}",
        r.getPayloadCase().name().toLowerCase(java.util.Locale.ROOT),
        denied.principal(),
        denied.permission(),
        denied.stream() == null
            ? ""
            : " on "
                + (denied.stream().name() != null
                    ? "'" + denied.stream().name() + "'"
                    : denied.stream().toString()));
  }
}
