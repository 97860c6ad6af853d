package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.SnapshotsRequest;
import io.vcorfu.protocol.proto.SnapshotsResponse;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The sequencer's registry of snapshots in use: the oldest of the clients' registrations that have
 * not expired, a client's own dropped with -1, and answers incomplete until a whole lease has
 * passed since the registry started.
 */
class SnapshotRegistryTest {
  private static final StreamId A = StreamId.of("client-a");
  private static final StreamId B = StreamId.of("client-b");

  private static SnapshotsRequest holding(long oldest, int leaseMs) {
    return SnapshotsRequest.newBuilder().setOldest(oldest).setLeaseMs(leaseMs).build();
  }

  @Test
  void theOldestLiveRegistrationWinsAndLeasesRunOut() {
    AtomicLong now = new AtomicLong(1_000);
    SnapshotRegistry r = new SnapshotRegistry(now::get);
    SnapshotsResponse first = r.register(A, holding(50, 2_000));
    assertThat(first.getOldestRegistered()).isEqualTo(50);
    assertThat(first.getComplete()).as("a lease has not passed since it started").isFalse();
    assertThat(r.register(B, holding(30, 5_000)).getOldestRegistered()).isEqualTo(30);

    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(3_000)); // A's first lease ran out; A renews
    assertThat(r.register(A, holding(60, 5_000)).getOldestRegistered()).isEqualTo(30);
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(2_500)); // B's lease ran out
    assertThat(r.register(null, holding(-1, 1)).getOldestRegistered()).isEqualTo(60);
    assertThat(r.register(A, holding(-1, 1)).getOldestRegistered())
        .as("A dropped its registration")
        .isEqualTo(Long.MAX_VALUE);

    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(SnapshotRegistry.MAX_LEASE_MS));
    assertThat(r.register(null, holding(-1, 1)).getComplete()).isTrue();
  }

  @Test
  void aLeaseIsCappedAtTheLongestAllowed() {
    AtomicLong now = new AtomicLong(0);
    SnapshotRegistry r = new SnapshotRegistry(now::get);
    r.register(A, holding(7, Integer.MAX_VALUE));
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(SnapshotRegistry.MAX_LEASE_MS + 1));
    assertThat(r.register(null, holding(-1, 1)).getOldestRegistered()).isEqualTo(Long.MAX_VALUE);
  }
}
