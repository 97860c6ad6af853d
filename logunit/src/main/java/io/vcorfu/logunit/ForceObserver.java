package io.vcorfu.logunit;

/**
 * Sees every force (fsync) of a durable store's active segment; called on the store's writer
 * thread, so it must be quick and must not block.
 */
@FunctionalInterface
public interface ForceObserver {
  /** A force took {@code nanos} and made {@code records} appended records durable (a group). */
  void forced(long nanos, long records);

  /** Sees nothing. */
  ForceObserver NONE = (nanos, records) -> {};
}
