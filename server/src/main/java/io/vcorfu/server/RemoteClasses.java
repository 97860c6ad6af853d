package io.vcorfu.server;

import java.time.Duration;

/**
 * Whether and how a node's remote-view host takes object classes from clients (see {@link
 * ShippedClasses}).
 *
 * @param accept whether it takes them at all ({@code vcorfu server --accept-remote-classes}); off
 *     by default: shipped classes are code the node runs
 * @param idle a shipped bundle no call used for this long is dropped, with its hosted views, so its
 *     classes can be unloaded
 * @param maxBundles the most bundles the node holds at once; a new one replaces the least recently
 *     used idle one
 * @param maxBundleBytes the most bytes (class names and class files) one bundle may hold
 */
public record RemoteClasses(boolean accept, Duration idle, int maxBundles, long maxBundleBytes) {
  public static final Duration DEFAULT_IDLE = Duration.ofMinutes(5);
  public static final int DEFAULT_MAX_BUNDLES = 16;
  public static final long DEFAULT_MAX_BUNDLE_BYTES = 8L << 20;

  /** The default: shipped classes refused. */
  public static final RemoteClasses REFUSED =
      new RemoteClasses(false, DEFAULT_IDLE, DEFAULT_MAX_BUNDLES, DEFAULT_MAX_BUNDLE_BYTES);

  /** Shipped classes accepted, with the default limits. */
  public static final RemoteClasses ACCEPTED =
      new RemoteClasses(true, DEFAULT_IDLE, DEFAULT_MAX_BUNDLES, DEFAULT_MAX_BUNDLE_BYTES);

  public RemoteClasses {
    if (idle == null || idle.isNegative() || idle.isZero()) {
      throw new IllegalArgumentException(
          "the idle time of shipped classes must be positive, not " + idle);
    }
    if (maxBundles < 1) {
      throw new IllegalArgumentException(
          "a node must be able to hold at least 1 class bundle, not " + maxBundles);
    }
    if (maxBundleBytes < 1024) {
      throw new IllegalArgumentException(
          "a class bundle must be allowed at least 1 KiB, not " + maxBundleBytes + " bytes");
    }
  }

  /** These settings with {@code after} as the idle time. */
  public RemoteClasses withIdle(Duration after) {
    return new RemoteClasses(accept, after, maxBundles, maxBundleBytes);
  }

  /** These settings with these limits. */
  public RemoteClasses withLimits(int bundles, long bundleBytes) {
    return new RemoteClasses(accept, idle, bundles, bundleBytes);
  }
}
