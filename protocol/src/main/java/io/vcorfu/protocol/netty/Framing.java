package io.vcorfu.protocol.netty;

import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;

/**
 * Framing of the vcorfu TCP stream: every message is a 4-byte big-endian length followed by that
 * many bytes. Decoding the bytes of a frame is the job of {@link ProtoDecoder}, not of framing.
 */
public final class Framing {
  /** Bytes of the length prefix. */
  public static final int LENGTH_BYTES = 4;

  /** Stateless, shared by every channel. */
  public static final LengthFieldPrepender PREPENDER = new LengthFieldPrepender(LENGTH_BYTES);

  private Framing() {}

  /**
   * A new frame decoder (stateful: one per channel) that rejects, as soon as the prefix is read, a
   * frame longer than {@code maxFrameBytes}, with {@link
   * io.netty.handler.codec.TooLongFrameException}.
   */
  public static LengthFieldBasedFrameDecoder newFrameDecoder(int maxFrameBytes) {
    if (maxFrameBytes <= 0) {
      throw new IllegalArgumentException("maximum frame size must be positive, got " + maxFrameBytes);
    }
    return new LengthFieldBasedFrameDecoder(
        maxFrameBytes + LENGTH_BYTES, 0, LENGTH_BYTES, 0, LENGTH_BYTES, true);
  }
}
