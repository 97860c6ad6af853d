package io.vcorfu.sequencer;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.ByteString;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.PackedTokens;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.protocol.proto.Token;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.protocol.proto.TokenResponse;
import java.util.List;
import java.util.Map;

/**
 * Arbitrary bytes as a packed token batch ({@code TokenRequest.packed}, the layout of {@link
 * PackedTokens}): {@link Sequencer#issuePacked} either issues, and then {@link PackedTokens} reads
 * the answer consistently (one token per asked token, consecutive global addresses after the old
 * tail, one slot per stream of each token, the new tail is the last token), or it throws {@link
 * BadRequestException} and issues nothing (the global tail is unchanged).
 *
 * <p>Corpus: {@code SequencerFuzzTestInputs/anyPackedBatchIssuesConsistentlyOrNothing}.
 */
class SequencerFuzzTest {

  @FuzzTest(maxDuration = "10m")
  void anyPackedBatchIssuesConsistentlyOrNothing(byte[] input) {
    Sequencer s = new Sequencer(64);
    s.bootstrap(-1, Map.of());
    // Some history first, so that backpointers are not all empty.
    s.issue(TokenRequest.newBuilder().setCount(3).addStreams(StreamId.of("a").toMsg()).build());
    long before = s.globalTail();
    TokenRequest request = TokenRequest.newBuilder().setPacked(ByteString.copyFrom(input)).build();
    TokenResponse answer;
    try {
      answer = s.issuePacked(request);
    } catch (BadRequestException refused) {
      assertThat(s.globalTail()).as("a refused batch issues nothing").isEqualTo(before);
      return;
    }
    assertThat(answer.getPacked().size()).isLessThanOrEqualTo(PackedTokens.MAX_ANSWER_BYTES);
    List<Token> tokens = PackedTokens.tokens(request.getPacked(), answer.getPacked());
    assertThat(s.globalTail()).isEqualTo(before + tokens.size());
    assertThat(PackedTokens.lastAddress(answer.getPacked()))
        .isEqualTo(tokens.isEmpty() ? -1 : s.globalTail());
    long slots = 0;
    for (int i = 0; i < tokens.size(); i++) {
      Token t = tokens.get(i);
      assertThat(t.getGlobalAddress()).isEqualTo(before + 1 + i);
      for (StreamSlot slot : t.getSlotsList()) {
        assertThat(slot.getBackpointer()).isLessThan(t.getGlobalAddress());
        assertThat(slot.getStreamAddress()).isGreaterThanOrEqualTo(0);
      }
      slots += t.getSlotsCount();
    }
    assertThat(answer.getPacked().size())
        .isEqualTo(PackedTokens.ANSWER_HEADER_BYTES + PackedTokens.SLOT_BYTES * slots);
  }
}
