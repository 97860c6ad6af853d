package io.vcorfu.server.cluster;

import io.vcorfu.server.ServerProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;

/**
 * One {@code vcorfu zookeeper} process for the clusters a test class starts one after another
 * ({@link ProcessCluster#start(ServerProcess, Path, String, int, java.util.List,
 * java.util.function.Function)}), each under a name of its own: a test that fails nodes, not
 * ZooKeeper, need not start a ZooKeeper of its own. Its data lives in a temporary directory it
 * deletes when closed; only its own process is ended, by its handle.
 */
final class SharedZooKeeper implements AutoCloseable {
  private final Path dir;
  private final ServerProcess process;
  private int clusters;

  private SharedZooKeeper(Path dir, ServerProcess process) {
    this.dir = dir;
    this.process = process;
  }

  /** Starts ZooKeeper and returns once it serves. */
  static SharedZooKeeper start() {
    try {
      Path dir = Files.createTempDirectory("vcorfu-zk");
      return new SharedZooKeeper(dir, ProcessCluster.startZooKeeper(dir));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  ServerProcess process() {
    return process;
  }

  /** A cluster name not used on this ZooKeeper yet: {@code prefix} and a number. */
  String newClusterName(String prefix) {
    return prefix + ++clusters;
  }

  @Override
  public void close() {
    process.close();
    try (var paths = Files.walk(dir)) {
      for (Path f : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(f);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
