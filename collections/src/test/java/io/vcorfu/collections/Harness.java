package io.vcorfu.collections;

import io.vcorfu.client.StreamLog;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.testing.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One test cluster and the runtimes a test opened on it; closes them all. Registered with
 * {@code @RegisterExtension} it closes itself after each test; {@link #close} may be called more
 * than once.
 */
final class Harness implements AutoCloseable, AfterEachCallback {
  private final TestCluster cluster = TestCluster.create();
  private final List<VCorfuRuntime> runtimes = new ArrayList<>();
  private boolean closed;

  /** A new runtime (a new client of the cluster) that retries transactions patiently. */
  VCorfuRuntime runtime() {
    return runtime(
        RuntimeOptions.defaults()
            .withMaxTransactionAttempts(1_000)
            .withBackoff(Duration.ZERO, Duration.ofMillis(5)));
  }

  /** A new runtime with the cluster's default options; closed with this harness. */
  VCorfuRuntime defaultRuntime() {
    return register(cluster.newRuntime());
  }

  /** A new runtime with {@code options}; closed with this harness. */
  VCorfuRuntime runtime(RuntimeOptions options) {
    return register(cluster.newRuntime(options));
  }

  private VCorfuRuntime register(VCorfuRuntime rt) {
    synchronized (runtimes) {
      runtimes.add(rt);
    }
    return rt;
  }

  /** A new client of the cluster's log, owned by the caller. */
  StreamLog newLog() {
    return cluster.newLog();
  }

  @SuppressWarnings("unchecked")
  static <E> SMRList<E> list(VCorfuRuntime rt, String name) {
    return rt.objects().open(name, SMRList.class);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    close();
  }

  @Override
  public void close() {
    synchronized (runtimes) {
      if (closed) {
        return;
      }
      closed = true;
      runtimes.forEach(VCorfuRuntime::close);
    }
    cluster.close();
  }

  /** What a call produced: its value, or the class of what it threw. */
  record Outcome(Object value, Class<?> thrown) {
    static Outcome of(Supplier<?> call) {
      try {
        return new Outcome(call.get(), null);
      } catch (RuntimeException e) {
        return new Outcome(null, e.getClass());
      }
    }
  }
}
