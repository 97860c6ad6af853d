package io.vcorfu.server;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.SnapshotsRequest;
import io.vcorfu.protocol.proto.SnapshotsResponse;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The snapshots clients hold, at the sequencer: per client, the oldest snapshot it has in use (a
 * running transaction's, an open snapshot view's) and until when its lease holds. Whoever trims a
 * stream asks for the oldest one first and never trims past it.
 *
 * <p>Invariant: while a client renews its registration within its lease, every answer names a
 * snapshot no newer than its one, once the answer is complete. A registration is soft state: a
 * sequencer that starts answers {@code complete = false} until a whole {@link #MAX_LEASE_MS} has
 * passed, by when every client still holding a snapshot has registered it again here.
 *
 * <p>Thread-safe.
 */
final class SnapshotRegistry {
  /** The longest lease a client may ask for. */
  static final long MAX_LEASE_MS = 10_000;

  private final LongSupplier clock;
  private final long startedNanos;
  private final Map<StreamId, long[]> byClient = new HashMap<>();

  SnapshotRegistry() {
    this(System::nanoTime);
  }

  SnapshotRegistry(LongSupplier clock) {
    this.clock = clock;
    this.startedNanos = clock.getAsLong();
  }

  /** Registers (or drops) {@code client}'s oldest snapshot; answers the oldest of all. */
  synchronized SnapshotsResponse register(StreamId client, SnapshotsRequest request) {
    long now = clock.getAsLong();
    long leaseMs = Math.max(1, Math.min(MAX_LEASE_MS, request.getLeaseMs()));
    if (client != null) {
      if (request.getOldest() >= 0) {
        byClient.put(
            client, new long[] {request.getOldest(), now + TimeUnit.MILLISECONDS.toNanos(leaseMs)});
      } else {
        byClient.remove(client);
      }
    }
    long oldest = Long.MAX_VALUE;
    for (Iterator<long[]> it = byClient.values().iterator(); it.hasNext(); ) {
      long[] r = it.next();
      if (r[1] - now < 0) {
        it.remove();
      } else {
        oldest = Math.min(oldest, r[0]);
      }
    }
    boolean complete = now - startedNanos >= TimeUnit.MILLISECONDS.toNanos(MAX_LEASE_MS);
    return SnapshotsResponse.newBuilder().setOldestRegistered(oldest).setComplete(complete).build();
  }
}
