package io.vcorfu.server.access;

import java.util.Locale;

/** What a grant lets its principal do (see {@link AccessList}). */
public enum Permission {
  /** Read the entries of streams: stream reads, log reads, the objects built from them. */
  READ,
  /** Append to streams: tokens, sequenced writes, and the copies of a writer's own entries. */
  WRITE,
  /** Trim streams (and, on every stream, the global log). */
  TRIM,
  /** Change the cluster, on the empty prefix only: add, remove and replace nodes, compact. */
  ADMIN,
  /** Run methods of objects on the node that hosts them (remote views). */
  VIEW,
  /**
   * Ship object classes to the node with a remote-view call (code the node then runs), on a node
   * started with {@code --accept-remote-classes}.
   */
  DEPLOY,
  /**
   * Be a node of the cluster, on the empty prefix only: every request, the node-to-node ones
   * (seals, rebuild copies, holes the rebuild writes) included.
   */
  NODE;

  /** The name on the command line and in the grants' JSON ({@code read}, {@code write}, ...). */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** True for the permissions that name the whole cluster, granted only on the empty prefix. */
  public boolean clusterWide() {
    return this == ADMIN || this == NODE;
  }

  /**
   * The permission labelled {@code label}.
   *
   * @throws IllegalArgumentException naming the labels there are
   */
  public static Permission parse(String label) {
    for (Permission p : values()) {
      if (p.label().equals(label.trim().toLowerCase(Locale.ROOT))) {
        return p;
      }
    }
    throw new IllegalArgumentException(
        "'" + label + "' is not a permission: use read, write, trim, admin, view, deploy or node");
  }
}
