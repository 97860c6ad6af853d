package io.vcorfu.microbench;

import com.google.protobuf.ByteString;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.ConflictKey;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.protocol.proto.TokenResponse;
import io.vcorfu.protocol.proto.TxResolution;
import io.vcorfu.sequencer.Sequencer;
import java.util.Map;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;

/**
 * The sequencer's issuance, as its service thread runs it for a decoded request: a token for one
 * stream, a token for four streams at once, and a transaction's conditional token (a read set of
 * four keys checked against what was written after the snapshot, a write set of two keys recorded).
 */
public class SequencerBench extends Microbenchmark {
  private Sequencer sequencer;
  private TokenRequest oneStream;
  private TokenRequest fourStreams;
  private TxResolution.Builder tx;
  private TokenRequest.Builder conditional;
  private int key;

  @Setup
  public void setUp() {
    sequencer = new Sequencer();
    sequencer.bootstrap(1, -1, Map.of());
    oneStream = TokenRequest.newBuilder().addStreams(StreamId.of("s0").toMsg()).build();
    TokenRequest.Builder four = TokenRequest.newBuilder();
    for (int i = 0; i < 4; i++) {
      four.addStreams(StreamId.of("s" + i).toMsg());
    }
    fourStreams = four.build();
    tx = TxResolution.newBuilder().setSnapshotEpoch(1);
    conditional = TokenRequest.newBuilder().addStreams(StreamId.of("map").toMsg());
  }

  private static ConflictKey key(int k) {
    return ConflictKey.newBuilder()
        .setStream(StreamId.of("map").toMsg())
        .setKey(ByteString.copyFromUtf8("key-" + (k & 4095)))
        .build();
  }

  @Benchmark
  public TokenResponse tokenOneStream() {
    return sequencer.issue(oneStream);
  }

  @Benchmark
  public TokenResponse tokenFourStreams() {
    return sequencer.issue(fourStreams);
  }

  /**
   * A conditional token: the request is built in the benchmark (a decoded request is new each time
   * on the node too), its snapshot the current tail so that it is issued.
   */
  @Benchmark
  public TokenResponse conditionalToken() {
    tx.clear().setSnapshotEpoch(1).setSnapshot(sequencer.globalTail());
    for (int i = 0; i < 4; i++) {
      tx.addReadSet(key(key + i));
    }
    tx.addWriteSet(key(key)).addWriteSet(key(key + 1));
    key += 2;
    return sequencer.issue(conditional.setTx(tx).build());
  }
}
