package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.SequencedWriteResponse;
import org.junit.jupiter.api.Test;

/** What the table of retried appends forgets when a writer says it has outcomes. */
class WriterTableTest {
  private static final StreamId W = StreamId.of("writer");
  private static final StreamId OTHER = StreamId.of("other-writer");

  private static WriterTable.Attempt taken(WriterTable t, StreamId writer, long seq, long address) {
    WriterTable.Key key = new WriterTable.Key(writer, seq);
    assertThat(t.claim(key, -1)).as("a new append").isNull();
    WriterTable.Attempt a = t.claimed(key);
    t.issued(a, address);
    return a;
  }

  @Test
  void answeredAttemptsBelowTheSettledNumberAreForgottenAndRetriesSearchBelowThem() {
    WriterTable t = new WriterTable();
    taken(t, W, 1, 10).answer().complete(SequencedWriteResponse.getDefaultInstance());
    taken(t, W, 2, 11).answer().complete(SequencedWriteResponse.getDefaultInstance());
    WriterTable.Attempt inFlight = taken(t, W, 3, 12);
    taken(t, OTHER, 1, 13).answer().complete(SequencedWriteResponse.getDefaultInstance());
    assertThat(t.searchBelow()).as("nothing evicted: the lowest address taken").isEqualTo(10);

    t.settle(W, 4);
    assertThat(t.size()).as("W's append 3 unanswered, the other writer's untouched").isEqualTo(2);
    assertThat(t.claim(new WriterTable.Key(W, 3), -1)).as("still known").isSameAs(inFlight);
    assertThat(t.searchBelow())
        .as("a retry of 1 or 2 now searches the log up to their addresses")
        .isEqualTo(12);
    assertThat(t.claim(new WriterTable.Key(W, 2), -1)).as("forgotten: claimed anew").isNull();
  }

  @Test
  void aSettledNumberThatGoesBackForgetsNothingMore() {
    WriterTable t = new WriterTable();
    taken(t, W, 5, 20).answer().complete(SequencedWriteResponse.getDefaultInstance());
    t.settle(W, 9);
    WriterTable.Attempt later = taken(t, W, 9, 21);
    later.answer().complete(SequencedWriteResponse.getDefaultInstance());
    t.settle(W, 3);
    assertThat(t.claim(new WriterTable.Key(W, 9), -1)).isSameAs(later);
    t.settle(W, 10);
    assertThat(t.size()).isZero();
  }
}
