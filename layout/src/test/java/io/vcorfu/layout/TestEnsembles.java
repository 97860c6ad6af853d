package io.vcorfu.layout;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;

/**
 * ZooKeeper ensembles and single servers for tests ({@link TestingCluster}, {@link TestingServer})
 * whose client, election and quorum ports lie below Linux's ephemeral port range (32768 and up).
 * Curator's own specs pick ports the kernel hands out for ephemeral use and bind them later, some
 * (a restarted server's election port) seconds later; meanwhile any outgoing connection on the
 * machine, from another test process running at the same time, may take that port as its local one,
 * and a quorum peer that cannot bind its port exits the whole JVM. Ports here lie in 20000-31999,
 * so they meet no ephemeral port.
 *
 * <p>The test JVMs of one module run at once (surefire's forks), and a port checked free here is
 * bound by a child process seconds later: two forks picking at random from one range collided about
 * once in a few dozen builds (a node that could not bind). So each fork takes ports from a slice of
 * the range of its own ({@code vcorfu.test.fork}, surefire's fork number), one after another from a
 * random start, never the same port twice until the slice wraps.
 */
public final class TestEnsembles {
  private static final int LOW = 20_000;
  private static final int HIGH = 32_000;
  private static final int SLICES = 8;
  private static final int SLICE = (HIGH - LOW) / SLICES;
  private static final int FIRST = LOW + SLICE * (Math.floorMod(fork() - 1, SLICES));
  private static final AtomicInteger NEXT =
      new AtomicInteger(ThreadLocalRandom.current().nextInt(SLICE));

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
      specs.add(new InstanceSpec(data, freePort(), freePort(), freePort(), true, id));
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
        new InstanceSpec(dir.resolve("data").toFile(), freePort(), -1, -1, true, -1);
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

  /**
   * A free port below the ephemeral range, for a server a test starts in another process (which
   * binds it seconds later, once its JVM runs): no outgoing connection can take it meanwhile.
   */
  public static int freePort() {
    for (int attempt = 0; attempt < SLICE; attempt++) {
      int port = FIRST + Math.floorMod(NEXT.getAndIncrement(), SLICE);
      try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        return s.getLocalPort();
      } catch (IOException inUse) {
        // Taken by something else: try another.
      }
    }
    throw new IllegalStateException(
        "no free port between " + FIRST + " and " + (FIRST + SLICE - 1));
  }

  /** Surefire's number for this test JVM (1 and up), 1 outside a fork. */
  private static int fork() {
    try {
      return Integer.parseInt(System.getProperty("vcorfu.test.fork", "1"));
    } catch (NumberFormatException notAFork) {
      return 1;
    }
  }
}
