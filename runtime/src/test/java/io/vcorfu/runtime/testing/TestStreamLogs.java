package io.vcorfu.runtime.testing;

import io.vcorfu.client.StreamLog;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.VCorfuRuntime;

/**
 * The one place runtime tests get their stream logs from: every client of one {@code
 * TestStreamLogs} sees the same log. By default an {@link InMemoryStreamLog}; the {@value
 * #BACKEND_PROPERTY} system property points it at real nodes, so the same tests run unchanged
 * against a server. (The server's own {@code TestCluster} is a cluster of nodes; this is only a
 * source of stream-log clients.)
 */
public final class TestStreamLogs implements AutoCloseable {
  /**
   * System property naming a {@link Backend} class with a no-argument constructor; unset = the
   * in-memory stream log. The server module sets it to run these tests against real nodes.
   */
  public static final String BACKEND_PROPERTY = "vcorfu.test.backend";

  /** Where a test cluster's stream logs come from. */
  public interface Backend extends AutoCloseable {
    /** A new client of this cluster's log. */
    StreamLog newLog();

    @Override
    void close();
  }

  private final Backend backend;

  private TestStreamLogs(Backend backend) {
    this.backend = backend;
  }

  public static TestStreamLogs create() {
    String name = System.getProperty(BACKEND_PROPERTY);
    if (name == null || name.isEmpty()) {
      InMemoryStreamLog store = new InMemoryStreamLog();
      return new TestStreamLogs(
          new Backend() {
            @Override
            public StreamLog newLog() {
              return store.client();
            }

            @Override
            public void close() {
              // The in-memory store holds no resources beyond the heap.
            }
          });
    }
    try {
      return new TestStreamLogs(
          (Backend) Class.forName(name).getDeclaredConstructor().newInstance());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot create test backend " + name, e);
    }
  }

  /** A new client of this cluster's log. */
  public StreamLog newLog() {
    return backend.newLog();
  }

  /** A new runtime on a new client, with default options. */
  public VCorfuRuntime newRuntime() {
    return VCorfuRuntime.using(newLog());
  }

  public VCorfuRuntime newRuntime(RuntimeOptions options) {
    return VCorfuRuntime.using(newLog(), options);
  }

  @Override
  public void close() {
    backend.close();
  }
}
