package io.vcorfu.protocol;

/**
 * The one rule for trim marks, checked by replicas (so every client is protected) and by clients
 * before they do any work for a trim: a mark is at least 0 and at most {@code tail + 1}, the next
 * address after the highest one held. A mark past the tail would release addresses not written yet,
 * and every later write there would be refused.
 */
public final class TrimBounds {
  private TrimBounds() {}

  /**
   * Throws {@link BadRequestException}, with a message naming {@code what}, the mark and the tail,
   * unless {@code 0 <= before <= tail + 1}.
   */
  public static void check(String what, long before, long tail) {
    if (before < 0) {
      throw new BadRequestException(
          "cannot trim " + what + " below " + before + ": a trim mark is an address, at least 0");
    }
    if (before > tail + 1) {
      throw new BadRequestException(
          "cannot trim "
              + what
              + " below "
              + before
              + ": its tail is "
              + tail
              + (tail < 0 ? " (nothing written yet)" : "")
              + ", so the highest trim mark allowed is "
              + (tail + 1)
              + " (a mark past the tail would release addresses not written yet)");
    }
  }
}
