package io.vcorfu.runtime.testing;

import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.stream.StreamLog;

/**
 * The one place runtime tests get their stream logs from. Every client of one cluster sees the
 * same log. Today the cluster is an {@link InMemoryStreamLog}; pointing this factory at a real
 * node runs the same tests unchanged.
 */
public final class TestCluster implements AutoCloseable {
  private final InMemoryStreamLog store = new InMemoryStreamLog();

  public static TestCluster create() {
    return new TestCluster();
  }

  /** A new client of this cluster's log. */
  public StreamLog newLog() {
    return store.client();
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
    // The in-memory store holds no resources beyond the heap.
  }
}
