package io.vcorfu.server.access;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Permissions a principal holds on every stream whose name starts with {@code prefix}.
 *
 * @param principal the subject of a client's or node's certificate as the node logs it (e.g. {@code
 *     CN=alice,O=Example}), or {@code *}: every principal that connects with a certificate of the
 *     node's CA
 * @param prefix streams whose names start with it; the empty prefix covers every stream, those
 *     whose names the node is not told included
 * @param permissions what the grant allows (not empty); {@code admin} and {@code node} only on the
 *     empty prefix
 */
public record Grant(String principal, String prefix, Set<Permission> permissions) {
  /** The principal that stands for every principal. */
  public static final String ANYONE = "*";

  public Grant {
    Objects.requireNonNull(principal, "principal");
    Objects.requireNonNull(prefix, "prefix");
    if (principal.isBlank()) {
      throw new IllegalArgumentException("a grant needs a principal (a certificate subject, or *)");
    }
    if (permissions.isEmpty()) {
      throw new IllegalArgumentException("a grant needs at least one permission");
    }
    permissions = Set.copyOf(EnumSet.copyOf(permissions));
    for (Permission p : permissions) {
      if (p.clusterWide() && !prefix.isEmpty()) {
        throw new IllegalArgumentException(
            "'"
                + p.label()
                + "' is granted on the whole cluster: give it without --prefix (the empty prefix)");
      }
    }
  }

  /** True when this grant names {@code who} (or everyone) and covers {@code name}. */
  boolean covers(String who, String name) {
    if (!principal.equals(ANYONE) && !principal.equals(who)) {
      return false;
    }
    return prefix.isEmpty() || (name != null && name.startsWith(prefix));
  }

  /** The permissions' labels, in the enum's order, joined by commas. */
  public String labels() {
    return EnumSet.copyOf(permissions).stream()
        .map(Permission::label)
        .collect(Collectors.joining(","));
  }
}
