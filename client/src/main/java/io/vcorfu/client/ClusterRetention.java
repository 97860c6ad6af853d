package io.vcorfu.client;

import java.time.Duration;

/**
 * The history a cluster keeps readable below every object's newest checkpoint, as set with {@code
 * vcorfu cluster retention} (or {@code vcorfu server --retain-versions/--retain-time} on a single
 * node): at least the last {@code retainVersions} updates of each object, and at least {@code
 * retainTime} of its history. A negative value (or a null time) is not set: the runtime's own value
 * holds for it.
 */
public record ClusterRetention(long retainVersions, Duration retainTime) {
  /** No cluster retention: every runtime keeps what its own retention says. */
  public static final ClusterRetention NONE = new ClusterRetention(-1, null);

  /** Whether either value is set. */
  public boolean isSet() {
    return retainVersions >= 0 || retainTime != null;
  }

  /** As carried on the wire: -1 for a value that is not set. */
  public static ClusterRetention fromWire(long retainVersions, long retainTimeMs) {
    return new ClusterRetention(
        retainVersions < 0 ? -1 : retainVersions,
        retainTimeMs < 0 ? null : Duration.ofMillis(retainTimeMs));
  }

  /** What {@code vcorfu cluster retention} prints: both values, "not set" for a missing one. */
  public String describe() {
    return "retain-versions "
        + (retainVersions < 0 ? "not set" : Long.toString(retainVersions))
        + ", retain-time "
        + (retainTime == null ? "not set" : retainTime.toMillis() + " ms");
  }
}
