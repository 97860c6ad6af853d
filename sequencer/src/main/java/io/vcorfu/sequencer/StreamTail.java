package io.vcorfu.sequencer;

/**
 * What the replicas know about one stream's end, used to bootstrap a sequencer.
 *
 * @param tail the stream's last written stream address (-1 when the stream is empty)
 * @param lastGlobal the global address of the stream's last DATA entry, skipping holes after it (-1
 *     when the stream holds no data: it is empty or holds only holes)
 */
public record StreamTail(long tail, long lastGlobal) {
  public StreamTail {
    if (tail < -1 || lastGlobal < -1) {
      throw new IllegalArgumentException(
          "stream tail and last global address must be >= -1, got " + tail + " and " + lastGlobal);
    }
    if (tail == -1 && lastGlobal != -1) {
      throw new IllegalArgumentException(
          "an empty stream (tail -1) has no last global address, got " + lastGlobal);
    }
  }
}
