package io.vcorfu.server;

import io.vcorfu.client.StreamLogOptions;
import java.time.Duration;

/**
 * Like {@link NodeTestBackend}, but every client holds a read lease: the object runtime's and the
 * collections' suites run once more with tail queries answered from memory wherever a lease covers
 * them, so every consistency property they check (linearizable reads, serializability, opacity,
 * snapshot views) is checked under leases too.
 */
public final class LeasedNodeTestBackend extends NodeTestBackend {
  public LeasedNodeTestBackend() {
    super(StreamLogOptions.defaults().withReadLease(Duration.ofMillis(500)));
  }
}
