package io.vcorfu.client.rpc;

import io.vcorfu.client.layout.LayoutCache;
import io.vcorfu.client.layout.LayoutWatch;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.Errors;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.Header;
import io.vcorfu.protocol.proto.ReadLeaseResponse;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Sends requests stamped with the current layout's epoch and maps error responses to typed
 * exceptions. A request refused for a wrong epoch refreshes the layout and is sent once more, with
 * the new epoch, if the refreshed layout still gives it a target: the same node when it is named a
 * fixed endpoint and the refreshed layout still names that node (a node a layout change keeps holds
 * the same slots: changes only take nodes out of chains), else the role's node in the refreshed
 * layout. Otherwise it fails with {@link io.vcorfu.protocol.WrongEpochException}, and the caller
 * (see {@link io.vcorfu.client.layout.Failover}) computes its targets again.
 */
public final class EpochRpc {
  /** Protocol version this client speaks ({@link Calls#PROTOCOL_VERSION}). */
  public static final int PROTOCOL_VERSION = Calls.PROTOCOL_VERSION;

  private final RpcClient client;
  private final LayoutCache layout;
  private final StreamId clientId;
  private volatile Consumer<ReadLeaseResponse> leasePushes = p -> {};

  /** The header of a request sent in a layout: built once per layout, shared by its requests. */
  private record LayoutHeader(Layout layout, Header header) {}

  private volatile LayoutHeader lastHeader;

  /** Abandons requests the layout has moved past; null when requests wait out their timeout. */
  private volatile LayoutWatch watch;

  public EpochRpc(RpcClient client, LayoutCache layout, StreamId clientId) {
    this.client = client;
    this.layout = layout;
    this.clientId = clientId;
  }

  /**
   * From now on, requests still waiting when the layout moves past their epoch are abandoned (see
   * {@link LayoutWatch}); null turns that off.
   */
  public void watchLayout(LayoutWatch watch) {
    this.watch = watch;
  }

  /** The id this client sends in every request header (the writer of its appends). */
  public StreamId clientId() {
    return clientId;
  }

  public LayoutCache layout() {
    return layout;
  }

  /**
   * The header of requests sent in {@code in}: its epoch and cluster, and this client's id (by its
   * 128 bits: the node keys what it keeps per client by them and never needs the name they were
   * made from). Built once per layout, not per request.
   */
  private Header headerIn(Layout in) {
    LayoutHeader last = lastHeader;
    if (last != null && last.layout() == in) {
      return last.header();
    }
    Header header =
        Header.newBuilder()
            .setEpoch(in.epoch())
            .setClusterId(in.clusterId())
            .setClientId(clientId.toIdOnlyMsg())
            .setProtocolVersion(PROTOCOL_VERSION)
            .build();
    lastHeader = new LayoutHeader(in, header);
    return header;
  }

  /**
   * Sets who applies the tokens a read-lease holder receives with an answer ({@code
   * Response.lease_push}); called before the answer completes its future.
   */
  public void onLeasePush(Consumer<ReadLeaseResponse> listener) {
    this.leasePushes = listener;
  }

  /** Sends {@code request} (its header is replaced) to {@code target} and returns the answer. */
  public CompletableFuture<Response> call(Endpoint target, Request.Builder request) {
    return send(l -> target, l -> l.allServers().contains(target) ? target : null, request, true);
  }

  /**
   * Sends {@code request} to the node {@code role} names in the current layout (the sequencer, for
   * example), and after a wrong epoch to the node it names in the refreshed layout.
   */
  public CompletableFuture<Response> call(
      Function<Layout, Endpoint> role, Request.Builder request) {
    return send(role, role, request, true);
  }

  /**
   * Sends {@code request} to the node {@code role} names in {@code in}, stamped with {@code in}'s
   * epoch, and answers a wrong epoch with {@code WrongEpochException} instead of sending it again:
   * for a request that the caller chose by what {@code in} says (a sequenced write, which only a
   * node hosting every chain takes), and must choose again on a newer layout.
   */
  public CompletableFuture<Response> callIn(
      Layout in, Function<Layout, Endpoint> role, Request.Builder request) {
    return send(in, role, role, request, false);
  }

  private CompletableFuture<Response> send(
      Function<Layout, Endpoint> target,
      Function<Layout, Endpoint> retryTarget,
      Request.Builder request,
      boolean retry) {
    return send(layout.current(), target, retryTarget, request, retry);
  }

  private CompletableFuture<Response> send(
      Layout current,
      Function<Layout, Endpoint> target,
      Function<Layout, Endpoint> retryTarget,
      Request.Builder request,
      boolean retry) {
    Endpoint to = target.apply(current);
    request.setHeader(headerIn(current));
    CompletableFuture<Response> call = client.call(to, request.build());
    LayoutWatch w = watch;
    if (w != null) {
      call = w.watch(to, current.epoch(), call);
    }
    return call.thenCompose(
        response -> {
          if (response.hasLeasePush()) {
            leasePushes.accept(response.getLeasePush());
          }
          if (response.getPayloadCase() == Response.PayloadCase.ERROR
              && response.getError().hasWrongEpoch()
              && retry) {
            RuntimeException refused = Errors.toException(response.getError());
            return layout
                .refresh()
                .handle(
                    (refreshed, error) -> {
                      Endpoint again = error == null ? retryTarget.apply(refreshed) : null;
                      if (again == null) {
                        return CompletableFuture.<Response>failedFuture(refused);
                      }
                      return send(l -> again, retryTarget, request, false);
                    })
                .thenCompose(f -> f);
          }
          try {
            return CompletableFuture.completedFuture(Errors.check(response));
          } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
          }
        });
  }

  /** The cause of a future's failure, unwrapped from completion wrappers ({@link Calls#unwrap}). */
  public static Throwable unwrap(Throwable t) {
    return Calls.unwrap(t);
  }
}
