package io.vcorfu.layout;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;

/**
 * ZooKeeper ensembles for tests ({@link TestingCluster}) whose client, election and quorum ports
 * lie below Linux's ephemeral port range (32768 and up). Curator's own specs pick ports the kernel
 * hands out for ephemeral use and bind them later, some (a restarted server's election port)
 * seconds later; meanwhile any outgoing connection on the machine, from another test process
 * running at the same time, may take that port as its local one, and a quorum peer that cannot bind
 * its port exits the whole JVM. Ports here are picked at random from 20000-31999, each checked
 * free, so they meet no ephemeral port and, most likely, no other test's ensemble.
 */
public final class TestEnsembles {
  private static final int LOW = 20_000;
  private static final int HIGH = 32_000;

  private TestEnsembles() {}

  /** A cluster of {@code size} servers (not started) on ports below the ephemeral range. */
  public static TestingCluster cluster(int size) {
    Set<Integer> taken = new HashSet<>();
    List<InstanceSpec> specs = new ArrayList<>();
    for (int id = 1; id <= size; id++) {
      specs.add(
          new InstanceSpec(null, freePort(taken), freePort(taken), freePort(taken), true, id));
    }
    return new TestingCluster(specs);
  }

  /**
   * A free port below the ephemeral range, for a server a test starts in another process (which
   * binds it seconds later, once its JVM runs): no outgoing connection can take it meanwhile.
   */
  public static int freePort() {
    return freePort(new HashSet<>());
  }

  private static int freePort(Set<Integer> taken) {
    for (int attempt = 0; attempt < 1_000; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(LOW, HIGH);
      if (taken.contains(port)) {
        continue;
      }
      try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        taken.add(s.getLocalPort());
        return s.getLocalPort();
      } catch (IOException inUse) {
        // Taken by something else: try another.
      }
    }
    throw new IllegalStateException("no free port between " + LOW + " and " + HIGH);
  }
}
