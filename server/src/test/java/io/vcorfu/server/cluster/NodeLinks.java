package io.vcorfu.server.cluster;

import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.RpcTimeoutException;
import io.vcorfu.protocol.Transport;
import io.vcorfu.protocol.TransportException;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * <<<<<<< HEAD One node's view of the shared in-JVM network: the node's own calls to other nodes
 * are lost (they time out, as dropped messages do) while the node is in the {@code cut} set. The
 * fault rules of the shared transport cut the other half of a partition: requests to the node and
 * its answers. Calls between the node and a node of the {@code rejecting} set (either way) are
 * refused at once, as a firewall rejecting the connections makes them; clients do not call through
 * this view, so they still reach a rejecting node. ======= One node's view of the shared in-JVM
 * network: calls between the node and another node are lost (they time out, as dropped messages do)
 * while either is in the {@code cut} set; a node's calls to itself go through. The fault rules of
 * the shared transport cut a partitioned node off from clients too. >>>>>>> survive
 */
final class NodeLinks implements Transport {
  private final Transport network;
  private final Endpoint self;
  private final Set<Endpoint> cut;
  private final Set<Endpoint> rejecting;

  NodeLinks(Transport network, Endpoint self, Set<Endpoint> cut) {
    this(network, self, cut, Set.of());
  }

  NodeLinks(Transport network, Endpoint self, Set<Endpoint> cut, Set<Endpoint> rejecting) {
    this.network = network;
    this.self = self;
    this.cut = cut;
    this.rejecting = rejecting;
  }

  @Override
  public ServerBinding bind(Endpoint endpoint, RpcHandler handler) {
    return network.bind(endpoint, handler);
  }

  @Override
  public RpcClient newClient(ClientOptions options) {
    RpcClient rpc = network.newClient(options);
    return new RpcClient() {
      @Override
      public CompletableFuture<Response> call(Endpoint target, Request request) {
        if (!target.equals(self) && (cut.contains(self) || cut.contains(target))) {
          return lost(target, request, options);
        }
        if (!target.equals(self) && (rejecting.contains(self) || rejecting.contains(target))) {
          return CompletableFuture.failedFuture(
              TransportException.refused(
                  "connection from " + self + " to " + target + " refused", null));
        }
        return rpc.call(target, request);
      }

      @Override
      public void close() {
        rpc.close();
      }
    };
  }

  /** A call whose request the network dropped: it fails when the client's timeout runs out. */
  private CompletableFuture<Response> lost(
      Endpoint target, Request request, ClientOptions options) {
    CompletableFuture<Response> f = new CompletableFuture<>();
    long ms = options.requestTimeout().toMillis();
    CompletableFuture.delayedExecutor(ms, TimeUnit.MILLISECONDS)
        .execute(
            () ->
                f.completeExceptionally(
                    new RpcTimeoutException(
                        "no response from "
                            + target
                            + " to "
                            + request.getPayloadCase()
                            + " within "
                            + ms
                            + " ms: "
                            + self
                            + " is cut off from the network")));
    return f;
  }

  /** The network is the cluster's; closing one node's view of it closes nothing. */
  @Override
  public void close() {}
}
