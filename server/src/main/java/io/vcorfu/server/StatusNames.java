package io.vcorfu.server;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.DirectoryEntry;
import io.vcorfu.client.NameDirectory;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.collections.CSMRBTree;
import io.vcorfu.collections.CSMRMap;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.checkpoint.Checkpoints;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The names the status page gives stream ids: read from the cluster's name directory ({@link
 * NameDirectory}) by a client of the node, which reads only the records added since its last look.
 * A page waits for that at most {@link #WAIT}; a refresh still running (the cluster does not
 * answer) is not started again, and the page shows the names known so far, the rest by id.
 *
 * <p>Names: a stream written or an object opened by name is called by its name; a map's layout and
 * bucket streams {@code NAME/layout} and {@code NAME/bucket-I}; a B-tree's root {@code NAME/btree};
 * an object's checkpoint stream {@code NAME/checkpoint}; the directory's own stream {@value
 * #DIRECTORY}.
 *
 * <p>Thread-safe.
 */
final class StatusNames implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StatusNames.class);

  /** How long a status page waits for the directory's new records. */
  static final Duration WAIT = Duration.ofMillis(300);

  /** What the status page calls the directory's stream. */
  static final String DIRECTORY = "(name directory)";

  private final Node node;
  private ClusterStreamLog log; // guarded by this
  private NameDirectory directory; // guarded by this
  private CompletableFuture<?> refresh = CompletableFuture.completedFuture(null); // guarded by this
  private boolean closed; // guarded by this

  StatusNames(Node node) {
    this.node = node;
  }

  /** Every stream id the directory names now, with its name (see the class). */
  Map<StreamId, String> names() {
    CompletableFuture<?> waiting;
    NameDirectory d;
    synchronized (this) {
      d = directory();
      if (d == null) {
        return Map.of(NameDirectory.STREAM, DIRECTORY);
      }
      if (refresh.isDone()) {
        refresh = d.list();
      }
      waiting = refresh;
    }
    try {
      waiting.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception notYet) {
      // The names known so far; the page names the others by id.
    }
    return streamNames(d.cached());
  }

  private NameDirectory directory() {
    if (directory == null && !closed) {
      try {
        log =
            ClusterStreamLog.connect(
                node.transport,
                node.endpoint(),
                StreamLogOptions.defaults().withFailoverTimeout(Duration.ofSeconds(5)));
        directory = new NameDirectory(log);
      } catch (RuntimeException e) {
        LOG.debug("the status page cannot read the name directory yet: {}", e.toString());
      }
    }
    return directory;
  }

  /** The stream ids {@code entries} name, with their names (see the class). */
  static Map<StreamId, String> streamNames(Collection<DirectoryEntry> entries) {
    Map<StreamId, String> names = new HashMap<>();
    for (DirectoryEntry e : entries) {
      String name = e.name();
      if (e.kind().equals(DirectoryEntry.MAP)) {
        names.putIfAbsent(CSMRMap.layoutStream(name), name + "/layout");
        for (int i = 0; i < e.parts(); i++) {
          String bucket = CSMRMap.bucketStreamName(name, i);
          names.putIfAbsent(StreamId.of(bucket), bucket);
        }
      } else if (e.stream().equals(CSMRBTree.rootObjectStream(name))) {
        names.putIfAbsent(e.stream(), name + "/btree");
      } else {
        names.putIfAbsent(e.stream(), name);
      }
    }
    for (Map.Entry<StreamId, String> n : List.copyOf(names.entrySet())) {
      names.putIfAbsent(Checkpoints.streamOf(n.getKey()), n.getValue() + "/checkpoint");
    }
    names.put(NameDirectory.STREAM, DIRECTORY);
    return names;
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (log != null) {
      log.close();
    }
  }
}
