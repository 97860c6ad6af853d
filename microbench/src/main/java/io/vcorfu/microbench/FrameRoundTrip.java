package io.vcorfu.microbench;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.vcorfu.protocol.netty.Framing;
import io.vcorfu.protocol.netty.ProtoDecoder;
import io.vcorfu.protocol.netty.ProtoEncoder;
import org.openjdk.jmh.annotations.TearDown;

/**
 * A request and its answer through both ends' codecs with no socket, for the token codec
 * benchmarks: the client's encoder, the node's decoder, the node's encoder, the client's decoder.
 */
abstract class FrameRoundTrip extends Microbenchmark {
  EmbeddedChannel clientOut;
  EmbeddedChannel nodeIn;
  EmbeddedChannel nodeOut;
  EmbeddedChannel clientIn;

  /** Opens the four ends; a subclass's setup calls it. */
  void openChannels() {
    clientOut = new EmbeddedChannel(ProtoEncoder.INSTANCE);
    nodeOut = new EmbeddedChannel(ProtoEncoder.INSTANCE);
    nodeIn = new EmbeddedChannel(Framing.newFrameDecoder(64 << 20), ProtoDecoder.REQUESTS);
    clientIn = new EmbeddedChannel(Framing.newFrameDecoder(64 << 20), ProtoDecoder.RESPONSES);
  }

  @TearDown
  public void tearDown() {
    clientOut.finishAndReleaseAll();
    nodeIn.finishAndReleaseAll();
    nodeOut.finishAndReleaseAll();
    clientIn.finishAndReleaseAll();
  }

  /** {@code message} written by {@code out} and read back by {@code in}. */
  static Object through(EmbeddedChannel out, EmbeddedChannel in, Object message) {
    out.writeOutbound(message);
    ByteBuf frame = out.readOutbound();
    in.writeInbound(frame);
    return in.readInbound();
  }
}
