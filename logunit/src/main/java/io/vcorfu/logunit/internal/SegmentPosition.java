package io.vcorfu.logunit.internal;

/**
 * A record's place on disk packed in one long: segment id in the high 24 bits, byte offset in the
 * low 40 (segments are capped at 1 GiB, far below 2^40).
 */
final class SegmentPosition {
  private static final long OFFSET_MASK = (1L << 40) - 1;

  private SegmentPosition() {}

  static long of(int segment, long offset) {
    return ((long) segment << 40) | offset;
  }

  static int segment(long pos) {
    return (int) (pos >>> 40);
  }

  static long offset(long pos) {
    return pos & OFFSET_MASK;
  }
}
