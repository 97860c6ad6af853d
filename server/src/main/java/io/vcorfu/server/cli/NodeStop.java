package io.vcorfu.server.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * How a serving process stops, on the first of a signal or the JVM's end: its parts closed once, in
 * the order added (a part not there yet, null, is skipped).
 *
 * <p>Invariant: {@link #await} returns once, and only once, every part's close has been tried,
 * whatever any of them threw: a part that fails is reported on its own line and the parts after it
 * still close (the node's storage still syncs what was written, its port still closes), and the
 * process then exits 1 instead of hanging on a latch no one counts down.
 */
final class NodeStop {
  private record Part(String name, Supplier<? extends AutoCloseable> closeable) {}

  private final String what;
  private final Consumer<String> say;
  private final List<Part> parts = new ArrayList<>();
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile boolean failed;

  /** A stop of {@code what} ("vcorfu node HOST:PORT") that tells each step through {@code say}. */
  NodeStop(String what, Consumer<String> say) {
    this.what = what;
    this.say = say;
  }

  /** Adds a part, closed after those added before it; {@code closeable} may give null. */
  NodeStop then(String name, Supplier<? extends AutoCloseable> closeable) {
    parts.add(new Part(name, closeable));
    return this;
  }

  /** Closes every part, once; later calls return at once. */
  void stop(String why) {
    if (!stopping.compareAndSet(false, true)) {
      return;
    }
    say.accept(what + " stopping (" + why + ")");
    try {
      for (Part part : parts) {
        try {
          AutoCloseable c = part.closeable().get();
          if (c != null) {
            c.close();
          }
        } catch (Throwable t) {
          failed = true;
          say.accept(what + ": closing its " + part.name() + " failed: " + t);
        }
      }
      say.accept(failed ? what + " stopped, not cleanly (see above)" : what + " stopped");
    } finally {
      stopped.countDown();
    }
  }

  /** Waits for {@link #stop}: the process's exit code, 0 when every part closed, else 1. */
  int await() throws InterruptedException {
    stopped.await();
    return failed ? 1 : 0;
  }
}
