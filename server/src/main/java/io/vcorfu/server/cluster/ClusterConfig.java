package io.vcorfu.server.cluster;

import io.vcorfu.layout.ZkAuth;
import io.vcorfu.layout.ZkTls;
import java.time.Duration;
import java.util.Objects;

/**
 * How a node takes part in a cluster whose layout is agreed in ZooKeeper.
 *
 * @param zookeeper the ZooKeeper connect string ({@code host:port[,host:port...]})
 * @param name the cluster's name; its layout lives at {@code /vcorfu/<name>/layout}
 * @param layoutLease how long a confirmation of the layout with ZooKeeper lets the node serve (see
 *     {@link LayoutLease}); also how long a sequencer waits after adopting a new epoch before it
 *     issues a token
 * @param probeInterval how often the manager probes every node
 * @param failureTimeout how long a node may leave probes unanswered before the manager removes it
 * @param sessionTimeout the ZooKeeper session timeout
 * @param rebuildBytesPerSecond how fast a rebuilding replica on this node copies at most (see
 *     {@link Rebuilder})
 * @param rebuildForegroundP99 the 99th percentile of foreground writes a rebuilding replica on this
 *     node slows its copy down to hold (see {@link RebuildPacer}); zero turns that off
 * @param memberHealDelay how long a chain may lack a replica, with no spare or returning node
 *     answering, before the manager makes a node of the cluster that is not in it a rebuilding
 *     replica of it (see {@code MemberChanges.withMemberRebuilding}): the time a failed node has to
 *     come back and copy only what it missed, rather than a member copying the whole chain
 * @param zookeeperAuth the cluster's ZooKeeper identity, or null: with one, the node's session
 *     authenticates with it and the znodes it creates are the identity's alone (see {@link ZkAuth})
 * @param zookeeperTls TLS to ZooKeeper, or null for plaintext (see {@link ZkTls})
 * @param preJoinCopyLimit how long a node that returns removed copies, before it serves, the
 *     streams it will rebuild once joined (see {@link PreJoinCopy}); zero: no such copy
 */
public record ClusterConfig(
    String zookeeper,
    String name,
    Duration layoutLease,
    Duration probeInterval,
    Duration failureTimeout,
    Duration sessionTimeout,
    long rebuildBytesPerSecond,
    Duration rebuildForegroundP99,
    Duration memberHealDelay,
    ZkAuth zookeeperAuth,
    ZkTls zookeeperTls,
    Duration preJoinCopyLimit) {
  public static final Duration DEFAULT_LAYOUT_LEASE = Duration.ofMillis(250);
  public static final Duration DEFAULT_PROBE_INTERVAL = Duration.ofMillis(50);
  public static final Duration DEFAULT_FAILURE_TIMEOUT = Duration.ofMillis(300);
  public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(10);
  public static final long DEFAULT_REBUILD_BYTES_PER_SECOND = 128L * 1024 * 1024;
  public static final Duration DEFAULT_REBUILD_FOREGROUND_P99 = Duration.ofMillis(20);
  public static final Duration DEFAULT_MEMBER_HEAL_DELAY = Duration.ofSeconds(30);
  public static final Duration DEFAULT_PRE_JOIN_COPY_LIMIT = Duration.ofSeconds(60);

  public ClusterConfig {
    Objects.requireNonNull(zookeeper, "zookeeper");
    Objects.requireNonNull(name, "name");
    positive("layout lease", layoutLease);
    positive("probe interval", probeInterval);
    positive("failure timeout", failureTimeout);
    positive("session timeout", sessionTimeout);
    if (rebuildBytesPerSecond < 1) {
      throw new IllegalArgumentException(
          "the rebuild rate must be at least 1 byte per second, not " + rebuildBytesPerSecond);
    }
    if (rebuildForegroundP99 == null || rebuildForegroundP99.isNegative()) {
      throw new IllegalArgumentException(
          "the rebuild's foreground bound must be zero (off) or positive, not "
              + rebuildForegroundP99);
    }
    if (memberHealDelay == null || memberHealDelay.isNegative()) {
      throw new IllegalArgumentException(
          "the delay before healing onto members must be zero or positive, not " + memberHealDelay);
    }
    if (preJoinCopyLimit == null || preJoinCopyLimit.isNegative()) {
      throw new IllegalArgumentException(
          "the time limit of a copy before joining must be zero (none) or positive, not "
              + preJoinCopyLimit);
    }
    if (failureTimeout.compareTo(probeInterval) < 0) {
      throw new IllegalArgumentException(
          "the failure timeout ("
              + failureTimeout.toMillis()
              + " ms) must be at least the probe interval ("
              + probeInterval.toMillis()
              + " ms)");
    }
  }

  /** The same as the cluster's ZooKeeper identity {@code auth} (null: none; see {@link ZkAuth}). */
  public ClusterConfig withZookeeperAuth(ZkAuth auth) {
    return changed(c -> c.zookeeperAuth = auth);
  }

  /** The same speaking TLS to ZooKeeper with {@code tls} (null: plaintext; see {@link ZkTls}). */
  public ClusterConfig withZookeeperTls(ZkTls tls) {
    return changed(c -> c.zookeeperTls = tls);
  }

  /** A configuration with the default delay before healing onto members. */
  public ClusterConfig(
      String zookeeper,
      String name,
      Duration layoutLease,
      Duration probeInterval,
      Duration failureTimeout,
      Duration sessionTimeout,
      long rebuildBytesPerSecond,
      Duration rebuildForegroundP99) {
    this(
        zookeeper,
        name,
        layoutLease,
        probeInterval,
        failureTimeout,
        sessionTimeout,
        rebuildBytesPerSecond,
        rebuildForegroundP99,
        DEFAULT_MEMBER_HEAL_DELAY,
        null,
        null,
        DEFAULT_PRE_JOIN_COPY_LIMIT);
  }

  /** A configuration with the default rebuild rate. */
  public ClusterConfig(
      String zookeeper,
      String name,
      Duration layoutLease,
      Duration probeInterval,
      Duration failureTimeout,
      Duration sessionTimeout) {
    this(
        zookeeper,
        name,
        layoutLease,
        probeInterval,
        failureTimeout,
        sessionTimeout,
        DEFAULT_REBUILD_BYTES_PER_SECOND,
        DEFAULT_REBUILD_FOREGROUND_P99);
  }

  /** A node of cluster {@code name} at {@code zookeeper}, with the default timings. */
  public static ClusterConfig of(String zookeeper, String name) {
    return new ClusterConfig(
        zookeeper,
        name,
        DEFAULT_LAYOUT_LEASE,
        DEFAULT_PROBE_INTERVAL,
        DEFAULT_FAILURE_TIMEOUT,
        DEFAULT_SESSION_TIMEOUT);
  }

  /** The same with other failure-detection timings. */
  public ClusterConfig withProbing(Duration probeInterval, Duration failureTimeout) {
    return changed(
        c -> {
          c.probeInterval = probeInterval;
          c.failureTimeout = failureTimeout;
        });
  }

  /** The same with another rebuild rate limit, in bytes per second. */
  public ClusterConfig withRebuildRate(long bytesPerSecond) {
    return changed(c -> c.rebuildBytesPerSecond = bytesPerSecond);
  }

  /** The same with another foreground bound for rebuilds (zero: copy at the rate alone). */
  public ClusterConfig withRebuildForegroundP99(Duration bound) {
    return changed(c -> c.rebuildForegroundP99 = bound);
  }

  /** The same with another layout lease. */
  public ClusterConfig withLayoutLease(Duration lease) {
    return changed(c -> c.layoutLease = lease);
  }

  /** The same with another ZooKeeper session timeout. */
  public ClusterConfig withSessionTimeout(Duration session) {
    return changed(c -> c.sessionTimeout = session);
  }

  private static void positive(String what, Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException("the " + what + " must be positive, not " + d);
    }
  }

  /**
   * The same with another time limit for a returning node's copy before it joins its chains (zero:
   * no such copy; see {@link PreJoinCopy}).
   */
  public ClusterConfig withPreJoinCopyLimit(Duration limit) {
    return changed(c -> c.preJoinCopyLimit = limit);
  }

  /** The same with another delay before healing onto members (see {@link #memberHealDelay}). */
  public ClusterConfig withMemberHealDelay(Duration delay) {
    return changed(c -> c.memberHealDelay = delay);
  }

  /** This configuration with the components {@code change} sets changed, checked anew. */
  private ClusterConfig changed(java.util.function.Consumer<Components> change) {
    Components c = new Components(this);
    change.accept(c);
    return c.build();
  }

  /** A configuration's components, to change some and make another (what the with- methods do). */
  private static final class Components {
    final String zookeeper;
    final String name;
    Duration layoutLease;
    Duration probeInterval;
    Duration failureTimeout;
    Duration sessionTimeout;
    long rebuildBytesPerSecond;
    Duration rebuildForegroundP99;
    Duration memberHealDelay;
    ZkAuth zookeeperAuth;
    ZkTls zookeeperTls;
    Duration preJoinCopyLimit;

    Components(ClusterConfig c) {
      zookeeper = c.zookeeper;
      name = c.name;
      layoutLease = c.layoutLease;
      probeInterval = c.probeInterval;
      failureTimeout = c.failureTimeout;
      sessionTimeout = c.sessionTimeout;
      rebuildBytesPerSecond = c.rebuildBytesPerSecond;
      rebuildForegroundP99 = c.rebuildForegroundP99;
      memberHealDelay = c.memberHealDelay;
      zookeeperAuth = c.zookeeperAuth;
      zookeeperTls = c.zookeeperTls;
      preJoinCopyLimit = c.preJoinCopyLimit;
    }

    ClusterConfig build() {
      return new ClusterConfig(
          zookeeper,
          name,
          layoutLease,
          probeInterval,
          failureTimeout,
          sessionTimeout,
          rebuildBytesPerSecond,
          rebuildForegroundP99,
          memberHealDelay,
          zookeeperAuth,
          zookeeperTls,
          preJoinCopyLimit);
    }
  }
}
