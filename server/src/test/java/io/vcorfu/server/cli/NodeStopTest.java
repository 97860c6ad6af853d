package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A node's stop closes every part once, in order, and releases its waiter whatever a part throws:
 * the process exits 1 after a failed close instead of hanging (seen when a node's jar was replaced
 * under it: closing its ZooKeeper watch threw {@code NoClassDefFoundError}, and the node never
 * exited on SIGTERM).
 */
class NodeStopTest {
  private final List<String> said = new CopyOnWriteArrayList<>();
  private final List<String> closed = new CopyOnWriteArrayList<>();

  private AutoCloseable part(String name) {
    return () -> closed.add(name);
  }

  @Test
  void everyPartClosesOnceInOrderAndTheExitCodeIsZero() throws Exception {
    NodeStop stop =
        new NodeStop("vcorfu node n", said::add)
            .then("a", () -> part("a"))
            .then("absent", () -> null)
            .then("b", () -> part("b"));

    stop.stop("SIGTERM");
    stop.stop("shutdown");

    assertThat(stop.await()).isZero();
    assertThat(closed).containsExactly("a", "b");
    assertThat(said).containsExactly("vcorfu node n stopping (SIGTERM)", "vcorfu node n stopped");
  }

  @Test
  void aPartThatThrowsAnErrorStillLetsTheRestCloseAndTheWaiterGo() throws Exception {
    NodeStop stop =
        new NodeStop("vcorfu node n", said::add)
            .then(
                "watch",
                () ->
                    () -> {
                      throw new NoClassDefFoundError("org/example/Gone");
                    })
            .then("node", () -> part("node"))
            .then("transport", () -> part("transport"));

    Thread stopper = new Thread(() -> stop.stop("SIGTERM"));
    stopper.start();

    assertThat(stop.await()).as("the exit code after a failed close").isEqualTo(1);
    assertThat(closed).containsExactly("node", "transport");
    assertThat(said)
        .containsExactly(
            "vcorfu node n stopping (SIGTERM)",
            "vcorfu node n: closing its watch failed: java.lang.NoClassDefFoundError:"
                + " org/example/Gone",
            "vcorfu node n stopped, not cleanly (see above)");
  }
}
