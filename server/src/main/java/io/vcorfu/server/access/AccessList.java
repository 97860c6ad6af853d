package io.vcorfu.server.access;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The grants of a node or cluster: who may do what on which streams. Immutable.
 *
 * <p>A principal may do something to a stream when a grant names it (or {@code *}) with that
 * permission and a prefix of the stream's name; a stream whose name the node is not told (an id
 * given without its name) is covered only by grants on the empty prefix. A principal granted {@code
 * node} may do everything. Nothing is allowed that no grant allows.
 *
 * <p>Stored as JSON: {@code {"grants": [{"principal": P, "prefix": X, "permissions": ["read",
 * ...]}, ...]}}, in a file for a single node or in ZooKeeper for a cluster ({@code vcorfu acl}).
 */
public final class AccessList {
  public static final AccessList EMPTY = new AccessList(List.of());

  private static final ObjectMapper JSON = new ObjectMapper();

  private final List<Grant> grants;
  private final java.util.Map<String, List<Grant>> byPrincipal = new java.util.HashMap<>();
  private final Set<String> nodes = new HashSet<>();
  private final Set<String> dataPrincipals = new HashSet<>();

  private AccessList(List<Grant> grants) {
    List<Grant> sorted = new ArrayList<>(grants);
    sorted.sort(Comparator.comparing(Grant::principal).thenComparing(Grant::prefix));
    this.grants = List.copyOf(sorted);
    for (Grant g : this.grants) {
      byPrincipal.computeIfAbsent(g.principal(), k -> new ArrayList<>()).add(g);
      if (g.permissions().contains(Permission.NODE)) {
        nodes.add(g.principal());
      }
      if (g.permissions().contains(Permission.READ) || g.permissions().contains(Permission.WRITE)) {
        dataPrincipals.add(g.principal());
      }
    }
  }

  /** The grants, by principal and then prefix. */
  public List<Grant> grants() {
    return grants;
  }

  /** True when {@code principal} is granted {@code node}. */
  public boolean isNode(String principal) {
    return nodes.contains(principal) || nodes.contains(Grant.ANYONE);
  }

  /**
   * True when {@code principal} may do {@code permission} to the stream named {@code name} (null: a
   * stream whose name is not known, or a request about no stream).
   */
  public boolean allows(String principal, Permission permission, String name) {
    if (isNode(principal)) {
      return true;
    }
    return allowedBy(byPrincipal.get(principal), principal, permission, name)
        || allowedBy(byPrincipal.get(Grant.ANYONE), principal, permission, name);
  }

  private static boolean allowedBy(
      List<Grant> some, String principal, Permission permission, String name) {
    if (some != null) {
      for (Grant g : some) {
        if (g.permissions().contains(permission) && g.covers(principal, name)) {
          return true;
        }
      }
    }
    return false;
  }

  /** True when {@code principal} may read or write some stream (or is a node). */
  public boolean readsOrWritesSomething(String principal) {
    return isNode(principal)
        || dataPrincipals.contains(principal)
        || dataPrincipals.contains(Grant.ANYONE);
  }

  /** This list with {@code g}'s permissions added to those of its principal on its prefix. */
  public AccessList grant(Grant g) {
    List<Grant> out = new ArrayList<>();
    Set<Permission> merged = EnumSet.copyOf(g.permissions());
    for (Grant have : grants) {
      if (have.principal().equals(g.principal()) && have.prefix().equals(g.prefix())) {
        merged.addAll(have.permissions());
      } else {
        out.add(have);
      }
    }
    out.add(new Grant(g.principal(), g.prefix(), merged));
    return new AccessList(out);
  }

  /**
   * This list with {@code permissions} taken from {@code principal} on exactly {@code prefix} (a
   * grant left with none is removed); grants on other prefixes are unchanged.
   */
  public AccessList revoke(String principal, String prefix, Set<Permission> permissions) {
    List<Grant> out = new ArrayList<>();
    for (Grant have : grants) {
      if (have.principal().equals(principal) && have.prefix().equals(prefix)) {
        Set<Permission> left = EnumSet.copyOf(have.permissions());
        left.removeAll(permissions);
        if (!left.isEmpty()) {
          out.add(new Grant(principal, prefix, left));
        }
      } else {
        out.add(have);
      }
    }
    return new AccessList(out);
  }

  /** The JSON form. */
  public byte[] toJson() {
    ObjectNode root = JSON.createObjectNode();
    ArrayNode list = root.putArray("grants");
    for (Grant g : grants) {
      ObjectNode o = list.addObject();
      o.put("principal", g.principal());
      o.put("prefix", g.prefix());
      ArrayNode ps = o.putArray("permissions");
      for (Permission p : EnumSet.copyOf(g.permissions())) {
        ps.add(p.label());
      }
    }
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root);
    } catch (IOException e) {
      throw new IllegalStateException("cannot write grants as JSON", e);
    }
  }

  /**
   * The list a JSON form gives (empty bytes: no grants).
   *
   * @throws IllegalArgumentException naming what is wrong with it
   */
  public static AccessList fromJson(byte[] bytes) {
    if (bytes == null || bytes.length == 0) {
      return EMPTY;
    }
    JsonNode root;
    try {
      root = JSON.readTree(bytes);
    } catch (IOException e) {
      String m = String.valueOf(e.getMessage());
      int nl = m.indexOf('\n');
      throw new IllegalArgumentException(
          "the grants are not JSON: " + (nl < 0 ? m : m.substring(0, nl)));
    }
    if (root == null || !root.isObject() || !root.path("grants").isArray()) {
      throw new IllegalArgumentException("the grants are not an object with a \"grants\" array");
    }
    List<Grant> out = new ArrayList<>();
    for (JsonNode o : root.get("grants")) {
      if (!o.path("principal").isTextual() || !o.path("permissions").isArray()) {
        throw new IllegalArgumentException(
            "each grant needs a \"principal\" and a \"permissions\" array: " + o);
      }
      Set<Permission> ps = EnumSet.noneOf(Permission.class);
      for (JsonNode p : o.get("permissions")) {
        ps.add(Permission.parse(p.asText()));
      }
      AccessList merged =
          new AccessList(out)
              .grant(new Grant(o.get("principal").asText(), o.path("prefix").asText(""), ps));
      out = new ArrayList<>(merged.grants);
    }
    return new AccessList(out);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AccessList a && a.grants.equals(grants);
  }

  @Override
  public int hashCode() {
    return grants.hashCode();
  }
}
