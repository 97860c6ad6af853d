package io.vcorfu.server;

import io.vcorfu.client.ClusterRetention;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.server.cluster.ClusterConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * How to run one node.
 *
 * @param listen where to serve; port 0 picks a free port (single-node layouts then name the real
 *     one)
 * @param dataDir where durable state lives; null keeps everything in memory
 * @param layoutFile a layout to adopt; null = a single node hosting every role
 * @param fsyncInterval null = group-committed fsync before every acknowledgement (the default);
 *     otherwise acknowledge after the write and fsync at this interval
 * @param classpath where the remote-view host loads object classes from (directories and jars);
 *     null = the server's own class path
 * @param checkpointEvery the remote-view host checkpoints a hosted object once this many entries of
 *     its stream were played since its last checkpoint
 * @param checkpointInterval the remote-view host also checkpoints, at this interval, every hosted
 *     object that changed since its last checkpoint
 * @param noEarlierLeases the caller vouches that no client holds a read lease from an earlier run
 *     of this node's sequencer (it starts a new in-memory cluster). Only matters without a data
 *     directory in a multi-node layout: such a sequencer otherwise waits out the longest lease
 *     ({@code ReadLeases.MAX_LEASE}) after it starts before it reveals any token, since it cannot
 *     know what it granted before. False by default.
 * @param cluster null for a node serving a static layout (its {@code layoutFile}, or a single
 *     node); otherwise the cluster whose layout, agreed in ZooKeeper, the node follows
 * @param logRetention how long the global log keeps an entry's log copy when this node drives the
 *     log's trim (see {@code LogPrefixTrim}); the streams keep their own history
 * @param retention the history every runtime without its own retention keeps readable, announced by
 *     this node's sequencer (a static layout's: {@code vcorfu server --retain-versions
 *     --retain-time}); a cluster node announces its cluster's, set in ZooKeeper, and takes none
 * @param segmentBytes the length of the storage's segment files (0: the storage's default, 16 MiB);
 *     smaller segments are compacted sooner, at the cost of more files
 * @param compactionBytesPerSecond the most payload bytes per second compaction copies (0: the
 *     storage's default, 16 MiB)
 * @param access how the node authorizes requests by their principals' grants; null: it does not
 *     (every caller may do everything)
 * @param remoteClasses whether the remote-view host takes object classes from clients, and its
 *     limits; null: {@link RemoteClasses#REFUSED}
 */
public record NodeConfig(
    Endpoint listen,
    Path dataDir,
    Path layoutFile,
    Duration fsyncInterval,
    List<Path> classpath,
    long checkpointEvery,
    Duration checkpointInterval,
    boolean noEarlierLeases,
    ClusterConfig cluster,
    Duration logRetention,
    ClusterRetention retention,
    long segmentBytes,
    long compactionBytesPerSecond,
    io.vcorfu.server.access.AccessConfig access,
    RemoteClasses remoteClasses) {
  public static final long DEFAULT_CHECKPOINT_EVERY = 10_000;

  /** See {@code LogPrefixTrim.DEFAULT_WINDOW}. */
  public static final Duration DEFAULT_LOG_RETENTION = Duration.ofSeconds(3);

  public static final Duration DEFAULT_CHECKPOINT_INTERVAL = Duration.ofMinutes(1);

  public NodeConfig {
    classpath = classpath == null ? null : List.copyOf(classpath);
    retention = retention == null ? ClusterRetention.NONE : retention;
    remoteClasses = remoteClasses == null ? RemoteClasses.REFUSED : remoteClasses;
    if (segmentBytes != 0 && (segmentBytes < (1 << 20) || segmentBytes > (1L << 30))) {
      throw new IllegalArgumentException(
          "segments must be between 1 MiB and 1 GiB long, not " + segmentBytes + " bytes");
    }
    if (compactionBytesPerSecond < 0) {
      throw new IllegalArgumentException(
          "the compaction rate cannot be negative, not " + compactionBytesPerSecond);
    }
    if (logRetention == null || logRetention.isNegative() || logRetention.isZero()) {
      throw new IllegalArgumentException(
          "the log's retention must be positive, not " + logRetention);
    }
    if (checkpointEvery < 1) {
      throw new IllegalArgumentException(
          "checkpoints must be at least 1 update apart, not " + checkpointEvery);
    }
    if (checkpointInterval == null
        || checkpointInterval.isNegative()
        || checkpointInterval.isZero()) {
      throw new IllegalArgumentException(
          "the checkpoint interval must be positive, not " + checkpointInterval);
    }
  }

  /** A node with the remote-view host's defaults. */
  public NodeConfig(Endpoint listen, Path dataDir, Path layoutFile, Duration fsyncInterval) {
    this(
        listen,
        dataDir,
        layoutFile,
        fsyncInterval,
        null,
        DEFAULT_CHECKPOINT_EVERY,
        DEFAULT_CHECKPOINT_INTERVAL,
        false,
        null,
        DEFAULT_LOG_RETENTION,
        ClusterRetention.NONE,
        0,
        0,
        null,
        null);
  }

  public static NodeConfig inMemory(Endpoint listen) {
    return new NodeConfig(listen, null, null, null);
  }

  public static NodeConfig durable(Endpoint listen, Path dataDir) {
    return new NodeConfig(listen, dataDir, null, null);
  }

  public NodeConfig withLayout(Path file) {
    Change c = new Change(this);
    c.layoutFile = file;
    return c.done();
  }

  /** The same node with the remote-view host's class path and checkpoint policy replaced. */
  public NodeConfig withViews(
      List<Path> classpath, long checkpointEvery, Duration checkpointInterval) {
    Change c = new Change(this);
    c.classpath = classpath;
    c.checkpointEvery = checkpointEvery;
    c.checkpointInterval = checkpointInterval;
    return c.done();
  }

  /** The same node, vouching that no client holds a read lease from an earlier run of it. */
  public NodeConfig withNoEarlierLeases() {
    Change c = new Change(this);
    c.noEarlierLeases = true;
    return c.done();
  }

  /** The same node, keeping the global log's entries for {@code kept} (see logRetention). */
  public NodeConfig withLogRetention(Duration kept) {
    Change c = new Change(this);
    c.logRetention = kept;
    return c.done();
  }

  /** The same node, following the agreed layout of a cluster instead of a static one. */
  public NodeConfig inCluster(ClusterConfig clusterConfig) {
    if (layoutFile != null) {
      throw new IllegalArgumentException(
          "a cluster node follows its cluster's agreed layout; it takes no layout file");
    }
    Change c = new Change(this);
    c.cluster = clusterConfig;
    return c.done();
  }

  /** The same node, announcing {@code r} as the retention of runtimes without their own. */
  public NodeConfig withRetention(ClusterRetention r) {
    Change c = new Change(this);
    c.retention = r;
    return c.done();
  }

  /** The same node, with segment files of {@code bytes} (0: the storage's default). */
  public NodeConfig withSegmentBytes(long bytes) {
    Change c = new Change(this);
    c.segmentBytes = bytes;
    return c.done();
  }

  /**
   * The same node, its compaction copying at most {@code bytesPerSecond} (0: the storage's
   * default).
   */
  public NodeConfig withCompactionRate(long bytesPerSecond) {
    Change c = new Change(this);
    c.compactionBytesPerSecond = bytesPerSecond;
    return c.done();
  }

  /** The same node, authorizing requests as {@code a} says (null: not at all). */
  public NodeConfig withAccess(io.vcorfu.server.access.AccessConfig a) {
    Change c = new Change(this);
    c.access = a;
    return c.done();
  }

  /** The same node, taking object classes from clients as {@code r} says. */
  public NodeConfig withRemoteClasses(RemoteClasses r) {
    Change c = new Change(this);
    c.remoteClasses = r;
    return c.done();
  }

  /** A configuration being changed by one of the {@code with} methods. */
  private static final class Change {
    Endpoint listen;
    Path dataDir;
    Path layoutFile;
    Duration fsyncInterval;
    List<Path> classpath;
    long checkpointEvery;
    Duration checkpointInterval;
    boolean noEarlierLeases;
    ClusterConfig cluster;
    Duration logRetention;
    ClusterRetention retention;
    long segmentBytes;
    long compactionBytesPerSecond;
    io.vcorfu.server.access.AccessConfig access;
    RemoteClasses remoteClasses;

    Change(NodeConfig c) {
      listen = c.listen;
      dataDir = c.dataDir;
      layoutFile = c.layoutFile;
      fsyncInterval = c.fsyncInterval;
      classpath = c.classpath;
      checkpointEvery = c.checkpointEvery;
      checkpointInterval = c.checkpointInterval;
      noEarlierLeases = c.noEarlierLeases;
      cluster = c.cluster;
      logRetention = c.logRetention;
      retention = c.retention;
      segmentBytes = c.segmentBytes;
      compactionBytesPerSecond = c.compactionBytesPerSecond;
      access = c.access;
      remoteClasses = c.remoteClasses;
    }

    NodeConfig done() {
      return new NodeConfig(
          listen,
          dataDir,
          layoutFile,
          fsyncInterval,
          classpath,
          checkpointEvery,
          checkpointInterval,
          noEarlierLeases,
          cluster,
          logRetention,
          retention,
          segmentBytes,
          compactionBytesPerSecond,
          access,
          remoteClasses);
    }
  }

  public boolean durable() {
    return dataDir != null;
  }
}
