package io.vcorfu.server.cluster;

import io.vcorfu.protocol.Endpoint;
import java.nio.file.Path;

/**
 * A cluster node was started on a data directory that belongs to another cluster or another node (a
 * swapped disk, a copied directory, a wrong {@code --data-dir}); the node did not start and the
 * directory is untouched.
 */
public final class ForeignDataDirectoryException extends RuntimeException {
  private final Path directory;

  public ForeignDataDirectoryException(
      Path directory, String ownerCluster, Endpoint ownerNode, String cluster, Endpoint node) {
    super(
        "data directory "
            + directory
            + " holds the data of node "
            + ownerNode
            + " of cluster '"
            + ownerCluster
            + "', not of node "
            + node
            + " of cluster '"
            + cluster
            + "'; start that node on it, or give this one its own --data-dir");
    this.directory = directory;
  }

  public Path directory() {
    return directory;
  }
}
