package io.vcorfu.runtime;

/**
 * As of which version an object is seen: {@link #LIVE}, the latest state (a live view follows the
 * stream's tail), or {@link #at} one global address (a snapshot view: every update at or below the
 * address applied, none above; -1 is the state before any write). Immutable.
 */
public final class Version {
  /** The latest state. */
  public static final Version LIVE = new Version(Long.MAX_VALUE);

  /** How {@link #LIVE} travels in a remote-view call, whose as-of field is a plain address. */
  private static final long WIRE_LIVE = -2;

  private final long address;

  private Version(long address) {
    this.address = address;
  }

  /**
   * The state as of global address {@code address}.
   *
   * @throws IllegalArgumentException if {@code address} is below -1
   */
  public static Version at(long address) {
    if (address < -1) {
      throw new IllegalArgumentException(
          "a snapshot address must be -1 (before any write) or more, not " + address);
    }
    return new Version(address);
  }

  /** True for {@link #LIVE}. */
  public boolean isLive() {
    return this == LIVE;
  }

  /**
   * The global address of a snapshot version.
   *
   * @throws IllegalStateException for {@link #LIVE}
   */
  public long address() {
    if (isLive()) {
      throw new IllegalStateException("the live version has no fixed address");
    }
    return address;
  }

  /**
   * The highest global address a view of this version plays: the snapshot address, or {@link
   * Long#MAX_VALUE} (no bound but the log's tail) for {@link #LIVE}.
   */
  public long playUntil() {
    return address;
  }

  /** This version as a remote-view call's as-of field. */
  public long toWire() {
    return isLive() ? WIRE_LIVE : address;
  }

  /**
   * The version a remote-view call's as-of field names.
   *
   * @throws IllegalArgumentException if {@code wire} is neither the live marker nor an address of
   *     -1 or more
   */
  public static Version fromWire(long wire) {
    return wire == WIRE_LIVE ? LIVE : at(wire);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Version v && v.address == address;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(address);
  }

  @Override
  public String toString() {
    return isLive() ? "live" : "as of " + address;
  }
}
