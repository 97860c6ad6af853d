package io.vcorfu.runtime;

import io.vcorfu.runtime.serialization.DefaultSerializer;
import io.vcorfu.runtime.serialization.Serializer;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a {@link VCorfuRuntime}.
 *
 * @param serializer serializer of objects opened without one of their own
 * @param maxTransactionAttempts how many times {@link VCorfuRuntime#transaction} and
 *     {@code @TransactionalMethod} run a transaction before giving up with the last abort
 * @param backoffInitial pause after the first abort; doubled after each further abort
 * @param backoffMax upper bound of the pause (a random jitter of up to half of it is added)
 * @param ioTimeout how long a call waits for the stream log before failing with {@link
 *     io.vcorfu.protocol.RpcTimeoutException}
 * @param retainedHistoryBytes how many bytes the runtime's live local views keep in memory, all
 *     together, to rebuild old versions (transaction snapshots, snapshot views) without log reads:
 *     serialized updates, and the captured versions of {@link VersionCapturing} objects, each
 *     estimated at its update's serialized arguments (the values it replaced stay reachable from
 *     older versions) plus 256 bytes for the copied path. A view that adds while the bound is spent
 *     gives back its oldest captured versions, or its whole update history (its old versions are
 *     then replayed from the log), so a runtime with thousands of busy objects holds no more than
 *     the bound plus one version per view
 * @param retainedVersions how many of its newest captured versions a local view of a {@link
 *     VersionCapturing} object keeps for snapshot views opened later ({@code asOf}), which start
 *     from a kept version in O(1); older versions are kept only while an open transaction of the
 *     runtime may read them (all within {@code retainedHistoryBytes}), so a runtime without open
 *     transactions holds no more. Versions share structure, so each costs about what its update
 *     copied (O(log n) nodes) plus an index entry. Snapshots older than the oldest kept version are
 *     rebuilt by replay, as for other objects; 0 turns capturing off
 * @param retention automatic checkpoints of the objects open as live views, and the history kept
 *     when their streams are trimmed (see {@link Retention})
 */
public record RuntimeOptions(
    Serializer serializer,
    int maxTransactionAttempts,
    Duration backoffInitial,
    Duration backoffMax,
    Duration ioTimeout,
    long retainedHistoryBytes,
    int retainedVersions,
    Retention retention) {

  public RuntimeOptions {
    Objects.requireNonNull(retention, "retention");
    Objects.requireNonNull(serializer, "serializer");
    if (maxTransactionAttempts < 1) {
      throw new IllegalArgumentException("maxTransactionAttempts must be at least 1");
    }
    if (backoffInitial.isNegative() || backoffMax.compareTo(backoffInitial) < 0) {
      throw new IllegalArgumentException("need 0 <= backoffInitial <= backoffMax");
    }
    if (ioTimeout.isNegative() || ioTimeout.isZero()) {
      throw new IllegalArgumentException("ioTimeout must be positive");
    }
    if (retainedHistoryBytes < 0) {
      throw new IllegalArgumentException("retainedHistoryBytes must not be negative");
    }
    if (retainedVersions < 0) {
      throw new IllegalArgumentException("retainedVersions must not be negative");
    }
  }

  /**
   * A fresh {@link DefaultSerializer}, 20 attempts, backoff 1 ms doubling to 100 ms, 30 s I/O
   * timeout, 64 MiB of old versions for all live views, the newest 32 captured versions of each
   * object kept for snapshot views (and older ones while open transactions may read them), and
   * {@link Retention#DEFAULT}.
   */
  public static RuntimeOptions defaults() {
    return new RuntimeOptions(
        new DefaultSerializer(),
        20,
        Duration.ofMillis(1),
        Duration.ofMillis(100),
        Duration.ofSeconds(30),
        64L << 20,
        32,
        Retention.DEFAULT);
  }

  /** These options with {@code r} as the objects' checkpoints and retention. */
  public RuntimeOptions withRetention(Retention r) {
    return new RuntimeOptions(
        serializer,
        maxTransactionAttempts,
        backoffInitial,
        backoffMax,
        ioTimeout,
        retainedHistoryBytes,
        retainedVersions,
        r);
  }

  public RuntimeOptions withSerializer(Serializer s) {
    return new RuntimeOptions(
        s,
        maxTransactionAttempts,
        backoffInitial,
        backoffMax,
        ioTimeout,
        retainedHistoryBytes,
        retainedVersions,
        retention);
  }

  public RuntimeOptions withMaxTransactionAttempts(int n) {
    return new RuntimeOptions(
        serializer,
        n,
        backoffInitial,
        backoffMax,
        ioTimeout,
        retainedHistoryBytes,
        retainedVersions,
        retention);
  }

  public RuntimeOptions withBackoff(Duration initial, Duration max) {
    return new RuntimeOptions(
        serializer,
        maxTransactionAttempts,
        initial,
        max,
        ioTimeout,
        retainedHistoryBytes,
        retainedVersions,
        retention);
  }

  public RuntimeOptions withIoTimeout(Duration timeout) {
    return new RuntimeOptions(
        serializer,
        maxTransactionAttempts,
        backoffInitial,
        backoffMax,
        timeout,
        retainedHistoryBytes,
        retainedVersions,
        retention);
  }

  public RuntimeOptions withRetainedHistoryBytes(long bytes) {
    return new RuntimeOptions(
        serializer,
        maxTransactionAttempts,
        backoffInitial,
        backoffMax,
        ioTimeout,
        bytes,
        retainedVersions,
        retention);
  }

  public RuntimeOptions withRetainedVersions(int versions) {
    return new RuntimeOptions(
        serializer,
        maxTransactionAttempts,
        backoffInitial,
        backoffMax,
        ioTimeout,
        retainedHistoryBytes,
        versions,
        retention);
  }
}
