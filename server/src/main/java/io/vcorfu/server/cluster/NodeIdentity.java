package io.vcorfu.server.cluster;

import io.vcorfu.layout.DurableFile;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Whose data a cluster node's data directory holds: the cluster, the node (its endpoint) and the
 * directory's <em>incarnation</em>, an id drawn when the directory was first used. Kept in {@code
 * DIR/identity}; a node without a data directory draws a new incarnation at every start.
 *
 * <p>Invariant: a node serves the data a layout counts on it for only from the incarnation the
 * layout records for it ({@link Layout#incarnations()}). A directory that was wiped (or a node
 * started without one) has a new incarnation, so it never answers for entries it does not hold; a
 * directory of another node or another cluster is refused at start ({@link
 * ForeignDataDirectoryException}).
 *
 * <p>A directory used before identities existed (it holds a layout, a sealed epoch or replica data
 * but no identity) gets one at its first start, and keeps the data it has.
 */
public record NodeIdentity(String cluster, Endpoint node, String incarnation, boolean fresh) {
  /** The identity file's name in the data directory. */
  public static final String FILE = "identity";

  /**
   * The identity of {@code dir}: read when recorded (checked against {@code cluster} and {@code
   * node}), else drawn and recorded durably. {@link #fresh()} is true when the directory held no
   * data of any earlier run.
   *
   * @throws ForeignDataDirectoryException when the directory belongs to another cluster or node
   * @throws IllegalStateException when the identity file is unreadable or corrupt
   */
  public static NodeIdentity open(Path dir, String cluster, Endpoint node) {
    Path file = dir.resolve(FILE);
    if (Files.exists(file)) {
      NodeIdentity recorded = read(file);
      if (!recorded.cluster().equals(cluster) || !recorded.node().equals(node)) {
        throw new ForeignDataDirectoryException(
            dir, recorded.cluster(), recorded.node(), cluster, node);
      }
      return recorded;
    }
    boolean fresh = !usedBefore(dir);
    NodeIdentity drawn = new NodeIdentity(cluster, node, UUID.randomUUID().toString(), fresh);
    try {
      Files.createDirectories(dir);
      DurableFile.replace(file, drawn.text().getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot record the identity of data directory " + dir, e);
    }
    return drawn;
  }

  /** A node without a data directory: a new incarnation, holding nothing. */
  public static NodeIdentity inMemory(String cluster, Endpoint node) {
    return new NodeIdentity(cluster, node, UUID.randomUUID().toString(), true);
  }

  /**
   * Why this node must not serve the data {@code layout} counts on it for, or null when it may: the
   * layout records another incarnation of it (its data directory was wiped or replaced), or none
   * yet (it has not claimed its place; see {@link #claim}).
   */
  public String whyNotTrusted(Layout layout) {
    String recorded = layout.incarnations().get(node);
    if (incarnation.equals(recorded)) {
      return null;
    }
    if (recorded == null) {
      return "node "
          + node
          + " has not yet recorded its data directory's incarnation in the layout";
    }
    return "the layout counts on data directory incarnation "
        + recorded
        + " of node "
        + node
        + ", but this node runs on incarnation "
        + incarnation
        + " (its data directory was wiped or replaced): it serves nothing of that data and waits to"
        + " be removed";
  }

  /**
   * {@code layout} with this node's incarnation recorded, when it names this node and records none
   * for it yet; null otherwise (nothing to claim, or another incarnation holds the place).
   */
  public Layout claim(Layout layout) {
    if (!layout.allServers().contains(node) || layout.incarnations().containsKey(node)) {
      return null;
    }
    return layout.withIncarnation(node, incarnation);
  }

  private String text() {
    return "cluster=" + cluster + "\nnode=" + node + "\nincarnation=" + incarnation + "\n";
  }

  private static NodeIdentity read(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the data directory identity " + file, e);
    }
    Map<String, String> fields = new LinkedHashMap<>();
    for (String line : text.split("\n")) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        fields.put(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
      }
    }
    String cluster = fields.get("cluster");
    String node = fields.get("node");
    String incarnation = fields.get("incarnation");
    if (cluster == null || node == null || incarnation == null || incarnation.isEmpty()) {
      throw corrupt(file, "it lacks a cluster, node or incarnation line");
    }
    try {
      return new NodeIdentity(cluster, Endpoint.parse(node), incarnation, false);
    } catch (IllegalArgumentException e) {
      throw corrupt(file, "its node '" + node + "' is not host:port");
    }
  }

  private static IllegalStateException corrupt(Path file, String why) {
    return new IllegalStateException(
        "the data directory identity "
            + file
            + " is corrupt ("
            + why
            + "); the node cannot tell whose data the directory holds. Restore the file, or move"
            + " the directory away and start the node on an empty one (it then joins as a new"
            + " incarnation)");
  }

  /** True when {@code dir} holds a layout, a sealed epoch or replica data of an earlier run. */
  private static boolean usedBefore(Path dir) {
    if (Files.exists(dir.resolve("layout.json")) || Files.exists(dir.resolve("sealed-epoch"))) {
      return true;
    }
    Path replicas = dir.resolve("replicas");
    if (!Files.isDirectory(replicas)) {
      return false;
    }
    try (var entries = Files.list(replicas)) {
      return entries.findAny().isPresent();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + replicas, e);
    }
  }
}
