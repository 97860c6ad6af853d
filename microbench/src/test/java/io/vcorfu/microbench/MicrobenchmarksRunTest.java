package io.vcorfu.microbench;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.logunit.StorageMode;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.proto.TokenResponse;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every benchmark's method, called directly a few times outside JMH, does the work its name says
 * (so a change that breaks a benchmark fails the build, not the next person who runs it).
 */
class MicrobenchmarksRunTest {
  @Test
  void theCodecGivesBackTheRequestItWasGiven() {
    WireCodecBench b = new WireCodecBench();
    b.payloadBytes = 1024;
    b.setUp();
    try {
      Request once = b.roundTrip();
      assertThat(once.getSequencedWrite().getPayload().size()).isEqualTo(1024);
      assertThat(b.batchRoundTrip()).isEqualTo(once);
    } finally {
      b.tearDown();
    }
  }

  @Test
  void aTokenRequestAndItsAnswerComeBackTheSameAsFixedFramesAsAsProtobuf() {
    for (FrameRoundTrip b : List.of(new LoneTokenCodecBench(), new PackedTokenCodecBench())) {
      Supplier<Response> fixed;
      Supplier<Response> protobuf;
      if (b instanceof LoneTokenCodecBench lone) {
        lone.setUp();
        fixed = lone::fixed;
        protobuf = lone::protobuf;
      } else {
        PackedTokenCodecBench packed = (PackedTokenCodecBench) b;
        packed.setUp();
        fixed = packed::fixed;
        protobuf = packed::protobuf;
      }
      try {
        for (int i = 0; i < 3; i++) {
          Response f = fixed.get();
          assertThat(f.getToken())
              .as(b.getClass().getSimpleName())
              .isEqualTo(protobuf.get().getToken());
          assertThat(f.getHeader().getRequestId()).isEqualTo(123_456_789L);
        }
      } finally {
        b.tearDown();
      }
    }
  }

  @Test
  void theSequencerIssuesConsecutiveTokensAndConditionalOnesPass() {
    SequencerBench b = new SequencerBench();
    b.setUp();
    TokenResponse first = b.tokenOneStream();
    TokenResponse four = b.tokenFourStreams();
    assertThat(four.getTokens(0).getGlobalAddress())
        .isEqualTo(first.getTokens(0).getGlobalAddress() + 1);
    assertThat(four.getTokens(0).getSlotsCount()).isEqualTo(4);
    for (int i = 0; i < 100; i++) {
      assertThat(b.conditionalToken().getTokensCount()).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @EnumSource(StorageMode.class)
  void storageWritesSucceed(StorageMode mode) throws Exception {
    StorageBench b = new StorageBench();
    b.mode = mode;
    b.setUp();
    try {
      assertThat(b.oneAtATime().failure()).isNull();
      assertThat(b.grouped().failure()).isNull();
    } finally {
      b.tearDown();
    }
  }

  @Test
  void aBatchIsBuiltForEveryEntry() {
    BatchBuildBench b = new BatchBuildBench();
    b.setUp();
    assertThat(b.buildBatch()).isGreaterThan(BatchBuildBench.BATCH * 1024L);
  }

  @Test
  void anEncodedPutAppliesToTheMap() throws Exception {
    SmrApplyBench b = new SmrApplyBench();
    b.setUp();
    assertThat(b.encodeUpdate()).hasSizeGreaterThan(1024);
    assertThat(b.applyUpdate()).as("the first put of a key has no previous value").isNull();
  }
}
