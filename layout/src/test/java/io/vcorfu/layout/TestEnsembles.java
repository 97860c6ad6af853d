package io.vcorfu.layout;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;

/**
 * ZooKeeper ensembles and single servers for tests ({@link TestingCluster}, {@link TestingServer})
 * on ports below Linux's ephemeral port range ({@link TestPorts}): Curator's own specs pick ports
 * the kernel hands out for ephemeral use and bind them later, some (a restarted server's election
 * port) seconds later, and a quorum peer that cannot bind its port exits the whole JVM.
 */
public final class TestEnsembles {
  private TestEnsembles() {}

  /**
   * A cluster of {@code size} servers (not started) on ports below the ephemeral range, their data
   * in a directory that {@link TestingCluster#close} removes.
   */
  public static TestingCluster cluster(int size) throws IOException {
    Path dir = Files.createTempDirectory("vcorfu-zk");
    List<InstanceSpec> specs = new ArrayList<>();
    for (int id = 1; id <= size; id++) {
      // Each server's data in a directory of its own under dir, and so the configuration file
      // ZooKeeper writes beside it, removed with dir on close.
      File data = Files.createDirectories(dir.resolve("server-" + id).resolve("data")).toFile();
      specs.add(
          new InstanceSpec(data, TestPorts.free(), TestPorts.free(), TestPorts.free(), true, id));
    }
    return new TestingCluster(specs) {
      @Override
      public void close() throws IOException {
        closeThenDelete(super::close, dir);
      }
    };
  }

  /**
   * A started single ZooKeeper server (Curator's {@link TestingServer}) on a port below the
   * ephemeral range, its data and the configuration file ZooKeeper writes beside them in a
   * directory of its own that {@link TestingServer#close} removes: with Curator's defaults the port
   * is one the kernel hands out for ephemeral use (see above), and every server left a {@code
   * zookeeper.configuration*.properties} file in the system's temporary directory for good.
   */
  public static TestingServer server() throws Exception {
    Path dir = Files.createTempDirectory("vcorfu-zk");
    InstanceSpec spec =
        new InstanceSpec(dir.resolve("data").toFile(), TestPorts.free(), -1, -1, true, -1);
    try {
      return new TestingServer(spec, true) {
        @Override
        public void close() throws IOException {
          closeThenDelete(super::close, dir);
        }
      };
    } catch (Exception e) {
      delete(dir);
      throw e;
    }
  }

  /** A server's or an ensemble's own close. */
  private interface Close {
    void run() throws IOException;
  }

  private static void closeThenDelete(Close close, Path dir) throws IOException {
    try {
      close.run();
    } finally {
      delete(dir);
    }
  }

  private static void delete(Path dir) throws IOException {
    try (var files = Files.walk(dir)) {
      for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(f);
      }
    }
  }
}
