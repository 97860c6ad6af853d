package io.vcorfu.server.cluster;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * A node's permission to serve the layout it has adopted, renewed by confirming that layout with
 * ZooKeeper.
 *
 * <p>Invariant: the lease is valid at time {@code t} (this node's monotonic clock) only if some
 * read of the layout's znode version, <em>sent</em> at {@code s > t - lease}, found a version no
 * newer than the one adopted. A layout committed after that read takes effect (its sequencer issues
 * a token) only {@code lease} after its sequencer adopted it, so later than {@code s + lease}:
 * while this lease is valid, nothing the node serves can be stale. A process paused (SIGSTOP, a
 * long GC) past its lease finds it expired when it resumes, whatever it believed before the pause,
 * because the monotonic clock runs on during the pause. Requests are checked both when they arrive
 * and when their answer is ready.
 *
 * <p>Thread-safe.
 */
public final class LayoutLease {
  private final long leaseNanos;
  private final LongSupplier nanoTime;
  private volatile long adoptedVersion = -1;
  private volatile boolean confirmed;
  private volatile long validUntilNanos;
  private volatile long lastConfirmedNanos;

  public LayoutLease(Duration lease) {
    this(lease, System::nanoTime);
  }

  LayoutLease(Duration lease, LongSupplier nanoTime) {
    this.leaseNanos = lease.toNanos();
    this.nanoTime = nanoTime;
  }

  /** The node adopted the layout at znode version {@code version}. */
  public synchronized void adopted(long version) {
    if (version > adoptedVersion) {
      adoptedVersion = version;
    }
  }

  /**
   * A read sent at {@code sentNanos} found the znode at {@code version}: renews the lease if that
   * is the adopted version (a newer one is on its way to the node; an older one cannot be).
   */
  public synchronized void confirmed(long sentNanos, long version) {
    if (version < 0 || version > adoptedVersion) {
      return;
    }
    long until = sentNanos + leaseNanos;
    if (!confirmed || until - validUntilNanos > 0) {
      validUntilNanos = until;
      lastConfirmedNanos = sentNanos;
      confirmed = true;
    }
  }

  /**
   * Every other node of the adopted layout answered a probe sent at {@code sentNanos} with a sealed
   * epoch no later than this node's: renews the lease as a confirmation from ZooKeeper would.
   */
  public synchronized void confirmedByPeers(long sentNanos) {
    long until = sentNanos + leaseNanos;
    if (!confirmed || until - validUntilNanos > 0) {
      validUntilNanos = until;
      lastConfirmedNanos = sentNanos;
      confirmed = true;
    }
  }

  /** True while the node may serve (see the class comment). */
  public boolean valid() {
    return confirmed && nanoTime.getAsLong() - validUntilNanos < 0;
  }

  /** Why the lease is not valid, for a person; null when it is. */
  public String whyNotValid() {
    if (!confirmed) {
      return "it has not yet confirmed its layout with ZooKeeper";
    }
    long now = nanoTime.getAsLong();
    if (now - validUntilNanos < 0) {
      return null;
    }
    return "its layout lease ran out: it last confirmed its layout (with ZooKeeper or with every"
        + " other node of the layout) "
        + (now - lastConfirmedNanos) / 1_000_000
        + " ms ago";
  }
}
