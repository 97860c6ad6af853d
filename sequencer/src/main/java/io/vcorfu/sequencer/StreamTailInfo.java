package io.vcorfu.sequencer;

/**
 * What the replicas know about one stream's end, used to bootstrap a sequencer.
 *
 * @param tail the stream's last written stream address (-1 when the stream is empty)
 * @param lastGlobal the global address of the stream's last entry (-1 when the stream is empty)
 */
public record StreamTailInfo(long tail, long lastGlobal) {
  public StreamTailInfo {
    if (tail < -1 || lastGlobal < -1) {
      throw new IllegalArgumentException(
          "stream tail and last global address must be >= -1, got " + tail + " and " + lastGlobal);
    }
    if ((tail == -1) != (lastGlobal == -1)) {
      throw new IllegalArgumentException(
          "a stream is either empty (tail and last global -1) or not, got tail "
              + tail + " and last global " + lastGlobal);
    }
  }
}
