package io.vcorfu.client.tails;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.ReadLeaseResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The client's side of a read lease, against a scripted sequencer and a manual clock. */
class ReadLeaseTest {
  private static final StreamId A = StreamId.of("a");
  private static final StreamId B = StreamId.of("b");

  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final List<CompletableFuture<ReadLeaseResponse>> requests = new ArrayList<>();
  private final List<Long> acks = new ArrayList<>();
  private final List<String> learnt = new ArrayList<>();
  private int releases;

  private final ReadLease.Channel channel =
      new ReadLease.Channel() {
        @Override
        public synchronized CompletableFuture<ReadLeaseResponse> request(
            int leaseMs, long applied) {
          CompletableFuture<ReadLeaseResponse> f = new CompletableFuture<>();
          requests.add(f);
          acks.add(applied);
          return f;
        }

        @Override
        public CompletableFuture<ReadLeaseResponse> release() {
          releases++;
          return CompletableFuture.completedFuture(ReadLeaseResponse.getDefaultInstance());
        }

        @Override
        public void learnStream(StreamId stream, long tail, long lastGlobal) {
          learnt.add((stream.equals(A) ? "a" : stream.toString()) + "@" + tail + "/" + lastGlobal);
        }

        @Override
        public void learnGlobal(long globalTail) {
          learnt.add("global@" + globalTail);
        }

        @Override
        public void schedule(Runnable task, long delayNanos) {}
      };

  private final ReadLease lease = new ReadLease(channel, Duration.ofSeconds(1), now::get);

  private static ReadLeaseResponse.Builder grant(long incarnation) {
    return ReadLeaseResponse.newBuilder().setLeaseMs(1000).setIncarnation(incarnation);
  }

  @Test
  void aStreamIsAnsweredFromMemoryOnlyOnceATailAnswerUnderTheLeaseCoversIt() {
    assertThat(lease.covers(List.of(A))).isFalse(); // starts the lease
    assertThat(requests).hasSize(1);
    assertThat(lease.generationIfValid()).isEqualTo(-1);

    requests.get(0).complete(grant(7).build());
    assertThat(lease.valid()).isTrue();
    assertThat(lease.covers(List.of(A))).isFalse();

    long gen = lease.generationIfValid();
    assertThat(gen).isNotNegative();
    lease.learnt(gen, List.of(A));
    assertThat(lease.covers(List.of(A))).isTrue();
    assertThat(lease.covers(List.of(A, B))).isFalse();
    assertThat(lease.coveredStreams()).isEqualTo(1);
  }

  @Test
  void theLeaseIsUsedOnlyUntilASafetyMarginBeforeItEnds() {
    lease.covers(List.of(A));
    requests.get(0).complete(grant(7).build());
    lease.learnt(lease.generationIfValid(), List.of(A));

    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(850));
    assertThat(lease.covers(List.of(A))).isTrue();
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(100)); // past 900 ms: a tenth of the lease is kept
    assertThat(lease.valid()).isFalse();
    assertThat(lease.covers(List.of(A))).isFalse();
  }

  @Test
  void aNewIncarnationUncoversEveryStream() {
    lease.covers(List.of(A));
    requests.get(0).complete(grant(7).build());
    long before = lease.generationIfValid();
    lease.learnt(before, List.of(A));
    assertThat(lease.covers(List.of(A))).isTrue();

    // The renewal answers for a lease the sequencer started afresh.
    requests.get(1).complete(grant(8).build());
    assertThat(lease.covers(List.of(A))).isFalse();
    assertThat(lease.coveredStreams()).isZero();
    // An answer to a request sent under the old generation covers nothing now.
    lease.learnt(before, List.of(A));
    assertThat(lease.covers(List.of(A))).isFalse();
  }

  @Test
  void pushedTokensAreLearntStreamsFirstAcknowledgedAndTheStablePointOnlyGrows() {
    lease.covers(List.of(A));
    requests
        .get(0)
        .complete(
            grant(7)
                .addStreams(A.toMsg())
                .addStreamTails(3)
                .addStreamLastGlobal(10)
                .setGlobalTail(10)
                .setStable(9)
                .build());
    assertThat(learnt).containsExactly("a@3/10", "global@10");
    assertThat(lease.stable()).isEqualTo(9);
    // The renewal acknowledges every token the answer carried.
    assertThat(acks).containsExactly(-1L, 10L);

    lease.pushedWithAnswer(ReadLeaseResponse.newBuilder().setGlobalTail(-1).setStable(4).build());
    assertThat(lease.stable()).isEqualTo(9);
  }

  @Test
  void closingReleasesAHeldLease() {
    lease.covers(List.of(A));
    requests.get(0).complete(grant(7).build());
    lease.close(Duration.ofSeconds(1));
    assertThat(releases).isEqualTo(1);
    assertThat(lease.valid()).isFalse();
    assertThat(lease.covers(List.of(A))).isFalse();
  }
}
