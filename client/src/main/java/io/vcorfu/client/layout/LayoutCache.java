package io.vcorfu.client.layout;

import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.Errors;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.RpcTimeoutException;
import io.vcorfu.protocol.TransportException;
import io.vcorfu.protocol.proto.GetLayoutRequest;
import io.vcorfu.protocol.proto.Header;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The client's current layout. Refreshed from any known server when a request is rejected for a
 * wrong epoch; a refresh never moves to an older epoch. Thread-safe.
 */
public final class LayoutCache {
  private final RpcClient rpc;
  private final Set<Endpoint> seeds = new LinkedHashSet<>();
  private volatile Layout current;

  private LayoutCache(RpcClient rpc, Layout initial, List<Endpoint> seeds) {
    this.rpc = rpc;
    this.current = initial;
    this.seeds.addAll(seeds);
  }

  /** How many times a connecting client asks its seed for the layout when answers time out. */
  static final int FETCH_ATTEMPTS = 3;

  /**
   * Fetches the layout from {@code seed} and keeps it as the starting point. Reading the layout
   * changes nothing, so a request that times out (a slow or lost answer) is asked again, up to
   * {@link #FETCH_ATTEMPTS} times in all; any other failure is reported at once.
   */
  public static LayoutCache fetch(RpcClient rpc, Endpoint seed) {
    for (int attempt = 1; ; attempt++) {
      try {
        Layout layout = fetchFrom(rpc, seed).join();
        return new LayoutCache(rpc, layout, List.of(seed));
      } catch (CompletionException e) {
        if (!(e.getCause() instanceof RpcTimeoutException) || attempt >= FETCH_ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  /** A view starting from a known layout. */
  public static LayoutCache of(RpcClient rpc, Layout layout) {
    return new LayoutCache(rpc, layout, List.of());
  }

  public Layout current() {
    return current;
  }

  /** Re-reads the layout from the servers it names (and the seeds); keeps the newest epoch. */
  public CompletableFuture<Layout> refresh() {
    Layout known = current;
    List<Endpoint> candidates = new ArrayList<>(seeds);
    candidates.addAll(known.allServers());
    return tryRefresh(candidates, 0, null);
  }

  private CompletableFuture<Layout> tryRefresh(List<Endpoint> candidates, int i, Throwable last) {
    if (i >= candidates.size()) {
      return CompletableFuture.failedFuture(
          new TransportException("no server answered a layout request", last));
    }
    return fetchFrom(rpc, candidates.get(i))
        .handle(
            (layout, error) -> {
              if (error != null) {
                return tryRefresh(candidates, i + 1, error);
              }
              adopt(layout);
              return CompletableFuture.completedFuture(current);
            })
        .thenCompose(f -> f);
  }

  private synchronized void adopt(Layout layout) {
    if (layout.epoch() > current.epoch()) {
      current = layout;
    }
  }

  static CompletableFuture<Layout> fetchFrom(RpcClient rpc, Endpoint endpoint) {
    Request request =
        Request.newBuilder()
            .setHeader(Header.newBuilder().setProtocolVersion(EpochRpc.PROTOCOL_VERSION))
            .setGetLayout(GetLayoutRequest.getDefaultInstance())
            .build();
    return rpc.call(endpoint, request)
        .thenApply(
            response -> {
              Response checked = Errors.check(response);
              return Layout.fromJson(checked.getGetLayout().getLayoutJson());
            })
        .exceptionally(
            e -> {
              throw e instanceof CompletionException ce ? ce : new CompletionException(e);
            });
  }
}
