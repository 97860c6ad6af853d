package io.vcorfu.server;

import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.AddNodeRequest;
import io.vcorfu.protocol.proto.AddNodeResponse;
import io.vcorfu.protocol.proto.RemoveNodeRequest;
import io.vcorfu.protocol.proto.RemoveNodeResponse;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.server.cluster.ClusterManager;
import java.util.concurrent.CompletableFuture;

/**
 * Cluster mode: the membership requests a node answers by having its manager run them (the {@code
 * vcorfu cluster add-node}, {@code replace-node} and {@code remove-node} commands send them). A
 * request naming a node that is not {@code host:port} is refused as a bad request before the
 * manager sees it; the manager runs the change on its own thread, one at a time with its own, and
 * refuses what the layout does not allow (see {@link ClusterManager#addOnRequest(Endpoint, boolean,
 * Endpoint)} and {@link ClusterManager#removeOnRequest}).
 */
final class ManagerRequests {
  private ManagerRequests() {}

  /** A planned removal (see {@code RemoveNodeRequest}): answered with the layout committed. */
  static CompletableFuture<Response> removeNode(ClusterManager manager, RemoveNodeRequest r) {
    Endpoint leaving;
    try {
      leaving = Endpoint.parse(r.getNode());
    } catch (IllegalArgumentException e) {
      return CompletableFuture.failedFuture(
          new BadRequestException(
              "The node to remove must be host:port, got '" + r.getNode() + "'."));
    }
    return manager
        .removeOnRequest(leaving)
        .thenApply(
            l ->
                Response.newBuilder()
                    .setRemoveNode(
                        RemoveNodeResponse.newBuilder()
                            .setEpoch(l.epoch())
                            .setLayoutJson(l.toJson()))
                    .build());
  }

  /**
   * Adds a spare, grows the cluster by a node, or replaces one (see {@code AddNodeRequest}):
   * answered with the layout committed.
   */
  static CompletableFuture<Response> addNode(ClusterManager manager, AddNodeRequest r) {
    Endpoint joining;
    Endpoint replaces;
    try {
      joining = Endpoint.parse(r.getNode());
      replaces = r.getReplaces().isEmpty() ? null : Endpoint.parse(r.getReplaces());
    } catch (IllegalArgumentException e) {
      return CompletableFuture.failedFuture(
          new BadRequestException(
              "The nodes to add and to replace must be host:port, got '"
                  + r.getNode()
                  + "' and '"
                  + r.getReplaces()
                  + "'."));
    }
    return manager
        .addOnRequest(joining, r.getGrow(), replaces)
        .thenApply(
            l ->
                Response.newBuilder()
                    .setAddNode(
                        AddNodeResponse.newBuilder().setEpoch(l.epoch()).setLayoutJson(l.toJson()))
                    .build());
  }
}
