package io.vcorfu.server.access;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How a node authorizes requests: by the grants of a file (a single node, {@code --acl FILE}) or of
 * its cluster in ZooKeeper ({@code --authorization}).
 *
 * @param aclFile the grants file; null for a cluster node, whose grants are in ZooKeeper
 * @param self the node's own principal (the subject of its certificate), a node whatever the grants
 */
public record AccessConfig(Path aclFile, String self) {
  public AccessConfig {
    Objects.requireNonNull(self, "self");
  }
}
