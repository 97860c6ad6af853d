package io.vcorfu.client.rpc;

import io.vcorfu.client.layout.LayoutCache;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.Errors;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.WrongEpochException;
import io.vcorfu.protocol.proto.Header;
import io.vcorfu.protocol.proto.ReadLeaseResponse;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Sends requests stamped with the current layout's epoch and maps error responses to typed
 * exceptions. A request rejected for a wrong epoch is retried once after the layout is refreshed.
 */
public final class EpochRpc {
  /** Protocol version this client speaks. */
  public static final int PROTOCOL_VERSION = 1;

  private final RpcClient client;
  private final LayoutCache layout;
  private final StreamId clientId;
  private volatile java.util.function.Consumer<ReadLeaseResponse> leasePushes = p -> {};

  public EpochRpc(RpcClient client, LayoutCache layout, StreamId clientId) {
    this.client = client;
    this.layout = layout;
    this.clientId = clientId;
  }

  public LayoutCache layout() {
    return layout;
  }

  /**
   * Sets who applies the tokens a read-lease holder receives with an answer ({@code
   * Response.lease_push}); called before the answer completes its future.
   */
  public void onLeasePush(java.util.function.Consumer<ReadLeaseResponse> listener) {
    this.leasePushes = listener;
  }

  /** Sends {@code request} (its header is replaced) and returns the non-error response. */
  public CompletableFuture<Response> call(Endpoint target, Request.Builder request) {
    return send(target, request, true);
  }

  private CompletableFuture<Response> send(
      Endpoint target, Request.Builder request, boolean retry) {
    var current = layout.current();
    request.setHeader(
        Header.newBuilder()
            .setEpoch(current.epoch())
            .setClusterId(current.clusterId())
            .setClientId(clientId.toMsg())
            .setProtocolVersion(PROTOCOL_VERSION));
    return client
        .call(target, request.build())
        .thenCompose(
            response -> {
              if (response.hasLeasePush()) {
                leasePushes.accept(response.getLeasePush());
              }
              if (response.getPayloadCase() == Response.PayloadCase.ERROR
                  && response.getError().hasWrongEpoch()
                  && retry) {
                return layout.refresh().thenCompose(l -> send(target, request, false));
              }
              try {
                return CompletableFuture.completedFuture(Errors.check(response));
              } catch (WrongEpochException e) {
                return CompletableFuture.failedFuture(e);
              } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
              }
            });
  }

  /** The cause of a future's failure, unwrapped from completion wrappers. */
  public static Throwable unwrap(Throwable t) {
    while (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
