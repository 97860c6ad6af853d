package io.vcorfu.microbench;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.logunit.StorageMode;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.TokenResponse;
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
