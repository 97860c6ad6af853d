package io.vcorfu.layout;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Ports for the servers tests start (nodes and ZooKeeper, in the test's JVM or in processes of
 * their own), below Linux's ephemeral port range (32768 and up): a port checked free is bound
 * later, for a process seconds later, and meanwhile any outgoing connection on the machine, from
 * another test process running at the same time, may take an ephemeral port as its local one. Ports
 * here lie in 20000-31999, so they meet no ephemeral port.
 *
 * <p>The test JVMs of one module run at once (surefire's forks): two forks picking at random from
 * one range collided about once in a few dozen builds (a node that could not bind). So each fork
 * takes ports from a slice of the range of its own ({@code vcorfu.test.fork}, surefire's fork
 * number), one after another from a random start, never the same port twice until the slice wraps.
 * No ZooKeeper test classes here, so that modules without them can use it.
 */
public final class TestPorts {
  private static final int LOW = 20_000;
  private static final int HIGH = 32_000;
  private static final int SLICES = 8;
  private static final int SLICE = (HIGH - LOW) / SLICES;
  private static final int FIRST = LOW + SLICE * (Math.floorMod(fork() - 1, SLICES));
  private static final AtomicInteger NEXT =
      new AtomicInteger(ThreadLocalRandom.current().nextInt(SLICE));

  private TestPorts() {}

  /**
   * A free port below the ephemeral range, for a server a test starts in another process (which
   * binds it seconds later, once its JVM runs): no outgoing connection can take it meanwhile.
   */
  public static int free() {
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
