package io.vcorfu.server;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.runtime.stream.StreamLog;
import io.vcorfu.runtime.stream.StreamLogOptions;
import io.vcorfu.runtime.stream.internal.ClusterStreamLog;
import io.vcorfu.runtime.testing.TestCluster;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Like {@link NodeTestBackend}, but every client holds a read lease: the object runtime's and the
 * collections' suites run once more with tail queries answered from memory wherever a lease
 * covers them, so every consistency property they check (linearizable reads, serializability,
 * opacity, snapshot views) is checked under leases too.
 */
public final class LeasedNodeTestBackend implements TestCluster.Backend {
  private static final InJvmTransport TRANSPORT = new InJvmTransport();
  private static final AtomicInteger NEXT = new AtomicInteger();
  private static final Duration LEASE = Duration.ofMillis(500);

  private final Node node;

  public LeasedNodeTestBackend() {
    node = Node.start(NodeConfig.inMemory(new Endpoint("leased-test-" + NEXT.incrementAndGet(), 9000)), TRANSPORT);
    node.ready().join();
  }

  @Override
  public StreamLog newLog() {
    return ClusterStreamLog.connect(TRANSPORT, node.endpoint(), StreamLogOptions.defaults().withReadLease(LEASE));
  }

  @Override
  public void close() {
    node.close();
  }
}
