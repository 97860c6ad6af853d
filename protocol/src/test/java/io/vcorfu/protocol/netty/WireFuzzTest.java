package io.vcorfu.protocol.netty;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.testing.EchoHandler;
import java.util.ArrayList;
import java.util.List;

/**
 * Arbitrary bytes from a socket through the server pipeline ({@link Framing}, {@link ProtoDecoder},
 * {@link ServerRequestHandler}) on an {@link EmbeddedChannel}. The first input byte chooses how the
 * rest is split into reads (partial frames, several frames per read). Whatever the bytes, the
 * pipeline either hands requests to the handler or closes the channel: no exception leaves the
 * pipeline, no request is larger than the frame limit, and a length prefix over the limit is
 * refused without a request.
 *
 * <p>The corpus in {@code WireFuzzTestInputs/anyBytesEitherRequestsOrAClosedChannel} is replayed by
 * every build; {@code JAZZER_FUZZ=1} fuzzes (see docs/development.md).
 */
class WireFuzzTest {
  static {
    // Every refused input logs a warning; fuzzing refuses millions.
    System.setProperty(
        "org.slf4j.simpleLogger.log.io.vcorfu.protocol.netty.ServerRequestHandler", "error");
  }

  private static final int MAX_FRAME = 4096;

  /** The whole frames within the limit at the start of the input (after its first byte). */
  static int wholeFrames(byte[] input) {
    int frames = 0;
    int offset = 1;
    while (offset + Framing.LENGTH_BYTES <= input.length) {
      long length = Unpooled.wrappedBuffer(input, offset, Framing.LENGTH_BYTES).getUnsignedInt(0);
      if (length > MAX_FRAME || offset + Framing.LENGTH_BYTES + length > input.length) {
        break;
      }
      frames++;
      offset += Framing.LENGTH_BYTES + (int) length;
    }
    return frames;
  }

  @FuzzTest(maxDuration = "10m")
  void anyBytesEitherRequestsOrAClosedChannel(byte[] input) {
    List<Request> seen = new ArrayList<>();
    EchoHandler echo = new EchoHandler("fuzz");
    EmbeddedChannel ch =
        new EmbeddedChannel(
            Framing.newFrameDecoder(MAX_FRAME),
            ProtoDecoder.REQUESTS,
            ProtoEncoder.INSTANCE,
            new ServerRequestHandler(
                request -> {
                  seen.add(request);
                  return echo.handle(request);
                },
                MAX_FRAME));
    int chunk = input.length == 0 ? 1 : 1 + (input[0] & 0x3f);
    int offset = Math.min(1, input.length);
    try {
      while (offset < input.length && ch.isOpen()) {
        int n = Math.min(chunk, input.length - offset);
        ByteBuf read = Unpooled.copiedBuffer(input, offset, n);
        // Throws whatever reached the pipeline's end unhandled.
        ch.writeInbound(read);
        offset += n;
      }
      ch.runPendingTasks();
      ch.checkException();
    } finally {
      ch.finishAndReleaseAll();
    }

    // Every request came from a whole frame within the limit: no more requests than such frames
    // lead the input. (Not judged by a request's size: protobuf parses encodings it would not
    // write, such as a negative int32 in five bytes, so a request can re-encode larger than the
    // frame it came in; the fuzzer found one.)
    assertThat(seen.size()).isLessThanOrEqualTo(wholeFrames(input));
    // A first prefix over the limit: refused before anything is read or allocated for it.
    if (input.length >= 1 + Framing.LENGTH_BYTES) {
      long prefix = Unpooled.wrappedBuffer(input, 1, Framing.LENGTH_BYTES).getUnsignedInt(0);
      if (prefix > MAX_FRAME) {
        assertThat(seen).isEmpty();
        assertThat(ch.isOpen()).isFalse();
      }
    }
  }
}
