package io.vcorfu.server;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.runtime.testing.TestStreamLogs;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs the object runtime's test suites against a real node: a fresh in-memory node per test
 * cluster, reached through the in-JVM transport (every message serialized). Selected with the
 * {@code vcorfu.test.backend} system property.
 */
public class NodeTestBackend implements TestStreamLogs.Backend {
  private static final InJvmTransport TRANSPORT = new InJvmTransport();
  private static final AtomicInteger NEXT = new AtomicInteger();

  private final Node node;
  private final StreamLogOptions options;

  public NodeTestBackend() {
    this(StreamLogOptions.defaults());
  }

  /** A node whose clients connect with {@code options}. */
  protected NodeTestBackend(StreamLogOptions options) {
    this.options = options;
    // The global log keeps its entries for the suites' whole length: some replay it from the start
    // (the log's trim has tests of its own).
    node =
        Node.start(
            NodeConfig.inMemory(new Endpoint("runtime-test-" + NEXT.incrementAndGet(), 9000))
                .withLogRetention(java.time.Duration.ofMinutes(10)),
            TRANSPORT);
    node.ready().join();
  }

  @Override
  public StreamLog newLog() {
    return ClusterStreamLog.connect(TRANSPORT, node.endpoint(), options);
  }

  @Override
  public void close() {
    node.close();
  }
}
