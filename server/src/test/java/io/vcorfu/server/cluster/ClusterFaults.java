package io.vcorfu.server.cluster;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.inmemory.FaultRule;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The faults a {@link ZkCluster}'s tests inject between its nodes: {@link #partition} cuts a node
 * off the network (not from ZooKeeper) until {@link #heal}; {@link #cutFromNodes} and {@link
 * #cutOffFromPeers} cut it off the other nodes only (clients still reach it); on a cluster whose
 * nodes reach ZooKeeper through links of their own ({@link ZkLink}), {@link #cutFromZooKeeper} cuts
 * one node off ZooKeeper and {@link #onSync} acts on its next {@code sync}. Thread-safe.
 */
final class ClusterFaults implements AutoCloseable {
  private final InJvmTransport transport;
  private final String clusterName;
  private final Set<Endpoint> cut = ConcurrentHashMap.newKeySet();
  private final Set<Endpoint> rejecting = ConcurrentHashMap.newKeySet();
  private final Map<Endpoint, List<FaultRule>> partitions = new LinkedHashMap<>();

  /** Each node's own link to ZooKeeper, when the cluster was started linked. */
  private final Map<Endpoint, ZkLink> links = new ConcurrentHashMap<>();

  ClusterFaults(InJvmTransport transport, String clusterName) {
    this.transport = transport;
    this.clusterName = clusterName;
  }

  /** Has {@code e} reach ZooKeeper through {@code link}; closed with these faults. */
  void link(Endpoint e, ZkLink link) {
    links.put(e, link);
  }

  /** The link {@code e} reaches ZooKeeper through, or null when it has none of its own. */
  ZkLink linkOf(Endpoint e) {
    return links.get(e);
  }

  /** The calls of node {@code e} to the others, through these faults. */
  NodeLinks nodeLinks(Endpoint e) {
    return new NodeLinks(transport, e, cut, rejecting);
  }

  /**
   * Cuts {@code e} off the network: every request to it and every answer from it is dropped, and
   * its own calls to other nodes time out. Its ZooKeeper session is not touched.
   */
  synchronized void partition(Endpoint e) {
    List<FaultRule> rules =
        List.of(
            transport.faults().add(FaultRule.requests().to(e).drop()),
            transport.faults().add(FaultRule.responses().to(e).drop()));
    partitions.put(e, rules);
    cut.add(e);
  }

  /**
   * Cuts {@code e} off the other nodes, both ways, as a firewall rejecting the connections does:
   * their calls to it and its calls to them are refused at once. Clients still reach it, and it
   * still reaches ZooKeeper. {@link #heal} ends it.
   */
  synchronized void cutFromNodes(Endpoint e) {
    rejecting.add(e);
  }

  /** Cuts {@code e} off ZooKeeper (the cluster must have been started {@link #startLinked}). */
  void cutFromZooKeeper(Endpoint e) {
    links.get(e).cut();
  }

  /**
   * Runs {@code action} the next time {@code e} sends ZooKeeper a {@code sync} of {@code path}
   * (below the cluster's znode, {@code /vcorfu/<name>}), dropping that request if {@code drop},
   * else after forwarding it (the cluster must have been started {@link #startLinked}).
   */
  void onSync(Endpoint e, String path, boolean drop, Runnable action) {
    links.get(e).onSync("/vcorfu/" + clusterName + path, drop, action);
  }

  /**
   * Cuts {@code e} off ZooKeeper and the other nodes ({@link #cutFromNodes}) just after it next
   * confirms its layout with ZooKeeper: 100 ms after it sends the {@code sync} its lease renewal
   * starts with, which ZooKeeper answers well within that, so its layout lease runs for nearly a
   * whole lease from the cut. Returns when it was cut ({@link System#nanoTime()}). The cluster must
   * have been started {@link #startLinked}.
   */
  long cutOffJustAfterItConfirmsItsLayout(Endpoint e) throws Exception {
    CompletableFuture<Long> cut = new CompletableFuture<>();
    onSync(
        e,
        "/layout",
        false,
        () ->
            CompletableFuture.delayedExecutor(100, TimeUnit.MILLISECONDS)
                .execute(
                    () -> {
                      cutFromZooKeeper(e);
                      cutFromNodes(e);
                      cut.complete(System.nanoTime());
                    }));
    return cut.get(10, TimeUnit.SECONDS);
  }

  /** Lets {@code e} reach ZooKeeper again. */
  void reconnectToZooKeeper(Endpoint e) {
    links.get(e).heal();
  }

  /**
   * Cuts {@code e} off from the other nodes only: calls between it and them are lost, while it
   * still reaches itself, clients still reach it, and its ZooKeeper session is not touched (a node
   * behind a partition of the nodes' network, or whose peers' firewalls drop it). {@link #heal}
   * ends it.
   */
  void cutOffFromPeers(Endpoint e) {
    cut.add(e);
  }

  /** Ends the partition of {@code e}. */
  synchronized void heal(Endpoint e) {
    cut.remove(e);
    rejecting.remove(e);
    List<FaultRule> rules = partitions.remove(e);
    if (rules != null) {
      rules.forEach(transport.faults()::remove);
    }
  }

  @Override
  public void close() throws IOException {
    for (ZkLink link : links.values()) {
      link.close();
    }
  }
}
