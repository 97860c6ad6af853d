package io.vcorfu.sequencer;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.ByteString;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.PackedTokens;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.Token;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.protocol.proto.TokenResponse;
import java.nio.ByteBuffer;
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
    // The answer read straight from the bytes (an answer may hold half a million slots: a message
    // per slot would make each such input cost tens of milliseconds).
    ByteBuffer q = request.getPacked().asReadOnlyByteBuffer();
    ByteBuffer a = answer.getPacked().asReadOnlyByteBuffer();
    long first = a.getLong();
    int issued = a.getInt();
    long global = before + 1;
    long slots = 0;
    while (q.hasRemaining()) {
      int count = q.getInt();
      int n = q.getInt();
      q.position(q.position() + PackedTokens.STREAM_BYTES * n);
      for (int t = 0; t < count; t++, global++) {
        for (int i = 0; i < n; i++, slots++) {
          long streamAddress = a.getLong();
          long backpointer = a.getLong();
          if (streamAddress < 0 || backpointer >= global) {
            throw new AssertionError(
                "token "
                    + global
                    + ": stream address "
                    + streamAddress
                    + ", backpointer "
                    + backpointer);
          }
        }
      }
    }
    assertThat(a.hasRemaining()).as("answer bytes left over").isFalse();
    long tokens = global - before - 1;
    assertThat(issued).isEqualTo(tokens);
    assertThat(s.globalTail()).isEqualTo(before + tokens);
    if (tokens > 0) {
      assertThat(first).isEqualTo(before + 1);
    }
    assertThat(PackedTokens.lastAddress(answer.getPacked()))
        .isEqualTo(tokens == 0 ? -1 : s.globalTail());
    assertThat(answer.getPacked().size())
        .isEqualTo(PackedTokens.ANSWER_HEADER_BYTES + PackedTokens.SLOT_BYTES * slots);
    if (slots <= 256) {
      // PackedTokens' own reading of a small answer agrees.
      List<Token> read = PackedTokens.tokens(request.getPacked(), answer.getPacked());
      assertThat(read).hasSize((int) tokens);
      for (int i = 0; i < read.size(); i++) {
        assertThat(read.get(i).getGlobalAddress()).isEqualTo(before + 1 + i);
      }
      assertThat(read.stream().mapToLong(Token::getSlotsCount).sum()).isEqualTo(slots);
    }
  }
}
