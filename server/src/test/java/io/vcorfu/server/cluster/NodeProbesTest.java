package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.proto.PingResponse;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The probes' failure timeout adapts to the round trips they observe, on a scripted clock: a node
 * whose answers come back late on a loaded host is given longer than the configured failure
 * timeout, up to twice it; a node that answered quickly is judged by the configured one; a node
 * that has answered for only a few seconds (just started) is given at least a second, whatever
 * shorter failure timeout is configured.
 */
class NodeProbesTest {
  private static final long MS = 1_000_000L;

  private final AtomicLong clock = new AtomicLong(1_000 * MS);
  private final Map<Endpoint, ArrayDeque<Pending>> pending = new HashMap<>();

  /** A ping not answered yet, and when it was sent. */
  private record Pending(long sentAt, CompletableFuture<Response> answer) {}

  private final RpcClient rpc =
      new RpcClient() {
        @Override
        public CompletableFuture<Response> call(Endpoint target, Request request) {
          CompletableFuture<Response> f = new CompletableFuture<>();
          pending.computeIfAbsent(target, t -> new ArrayDeque<>()).add(new Pending(clock.get(), f));
          return f;
        }

        @Override
        public void close() {}
      };

  private final Endpoint fast = new Endpoint("fast", 1);
  private final Endpoint slow = new Endpoint("slow", 2);
  private final Endpoint third = new Endpoint("third", 3);
  private final Layout layout = LayoutChanges.initial("probes", List.of(fast, slow, third), 3);

  /** The epoch every ping answer says its node serves (the layout's unless a test lowers it). */
  private long answerEpoch = layout.epoch();

  /** Probes every 1 ms of real time (the wait for answers), judged after 1 s of silence. */
  private final NodeProbes probes =
      new NodeProbes(
          ClusterConfig.of("unused:1", "probes")
              .withProbing(Duration.ofMillis(1), Duration.ofSeconds(1)),
          new NodeCalls(rpc),
          clock::get);

  /**
   * One round every 100 ms of the scripted clock for {@code ms}: every ping to {@code node} is
   * answered {@code rtt} ms after it was sent (never with a negative rtt), every other ping at
   * once.
   */
  private void rounds(long ms, Endpoint node, long rtt) {
    long until = clock.get() + ms * MS;
    while (clock.get() < until) {
      answerDue(node, rtt);
      probes.probe(layout, Runnable::run);
      answerDue(node, rtt);
      clock.addAndGet(100 * MS);
    }
  }

  private void answerDue(Endpoint node, long rtt) {
    for (Map.Entry<Endpoint, ArrayDeque<Pending>> e : pending.entrySet()) {
      ArrayDeque<Pending> q = e.getValue();
      boolean isNode = e.getKey().equals(node);
      while (!q.isEmpty() && rtt >= 0 && (!isNode || clock.get() - q.peek().sentAt() >= rtt * MS)) {
        q.poll()
            .answer()
            .complete(
                Response.newBuilder()
                    .setPing(PingResponse.newBuilder().setCluster("probes").setEpoch(answerEpoch))
                    .build());
      }
    }
  }

  @Test
  void aNodeWhoseAnswersTakeLongerThanTheFailureTimeoutIsNotDown() {
    rounds(5_000, slow, 1_100);
    assertThat(probes.down(slow, clock.get())).as("answers 1.1 s late, every one").isFalse();
    assertThat(probes.down(fast, clock.get())).isFalse();
  }

  @Test
  void aSlowNodeThatFallsSilentIsDownWithinTwiceTheFailureTimeout() {
    rounds(5_000, slow, 1_100);
    rounds(500, slow, -1); // no answer at all from now on
    long silentFrom = clock.get() - 500 * MS - 1_100 * MS;
    assertThat(probes.down(slow, silentFrom + 1_500 * MS))
        .as("1.5 s after the send of its last answered ping")
        .isFalse();
    assertThat(probes.down(slow, silentFrom + 2_001 * MS)).isTrue();
  }

  @Test
  void aNodeThatAnsweredQuicklyIsDownAfterTheFailureTimeout() {
    rounds(5_000, fast, 2);
    long last = clock.get() - 100 * MS;
    rounds(300, fast, -1);
    assertThat(probes.down(fast, last + 900 * MS)).isFalse();
    assertThat(probes.down(fast, last + 1_001 * MS)).isTrue();
  }

  /** The same probes, judging silence after 200 ms. */
  private final NodeProbes quick =
      new NodeProbes(
          ClusterConfig.of("unused:1", "probes")
              .withProbing(Duration.ofMillis(1), Duration.ofMillis(200)),
          new NodeCalls(rpc),
          clock::get);

  /** {@link #rounds} for {@link #quick}, every node answering at once until {@code node} stops. */
  private long quickRounds(long ms, Endpoint silent) {
    long until = clock.get() + ms * MS;
    while (clock.get() < until) {
      answerDue(silent, silent == null ? 0 : -1);
      quick.probe(layout, Runnable::run);
      answerDue(silent, silent == null ? 0 : -1);
      clock.addAndGet(100 * MS);
    }
    return clock.get();
  }

  @Test
  void aNodeThatJustStartedAnsweringIsGivenASecondWhateverShorterTimeoutIsConfigured() {
    quickRounds(2_000, null);
    long last = clock.get() - 100 * MS;
    quickRounds(500, fast);
    assertThat(quick.down(fast, last + 600 * MS))
        .as("answering for 2 s, then silent for 600 ms: still starting")
        .isFalse();
    assertThat(quick.down(fast, last + 1_001 * MS)).isTrue();
  }

  @Test
  void aNodeThatHasAnsweredSteadilyIsJudgedByTheConfiguredTimeout() {
    quickRounds(TimeUnit.NANOSECONDS.toMillis(NodeProbes.STEADY_AFTER_NANOS) + 1_000, null);
    long last = clock.get() - 100 * MS;
    quickRounds(300, fast);
    assertThat(quick.down(fast, last + 150 * MS)).isFalse();
    assertThat(quick.down(fast, last + 201 * MS))
        .as("answering for 11 s, then silent past the 200 ms failure timeout")
        .isTrue();
  }

  @Test
  void aSlowNodeEarnsUpToASecondWhenTheConfiguredTimeoutIsShort() {
    // 200 ms configured; twice that would remove a node whose every answer takes 450 ms.
    long until =
        clock.get() + (TimeUnit.NANOSECONDS.toMillis(NodeProbes.STEADY_AFTER_NANOS) + 2_000) * MS;
    while (clock.get() < until) {
      answerDue(slow, 450);
      quick.probe(layout, Runnable::run);
      answerDue(slow, 450);
      clock.addAndGet(100 * MS);
    }
    assertThat(quick.down(slow, clock.get())).as("answers 450 ms late, every one").isFalse();
    long silentFrom = clock.get();
    answerDue(slow, -1);
    assertThat(quick.down(slow, silentFrom + 1_001 * MS))
        .as("silent for over the 1 s ceiling")
        .isTrue();
  }

  @Test
  void aNodeThatAnswersWithAnOlderEpochThanTheLayoutForOverASecondLagsButIsNotSilent() {
    rounds(12_000, fast, 2);
    assertThat(probes.lagging(fast, clock.get())).isFalse();
    answerEpoch = layout.epoch() - 1;
    long from = clock.get();
    rounds(800, fast, 2);
    assertThat(probes.lagging(fast, clock.get()))
        .as("answering epoch %d for 800 ms", answerEpoch)
        .isFalse();
    rounds(400, fast, 2);
    assertThat(probes.lagging(fast, clock.get()))
        .as("answering epoch %d for %d ms", answerEpoch, (clock.get() - from) / MS)
        .isTrue();
    assertThat(probes.down(fast, clock.get())).as("it answers").isFalse();
    assertThat(probes.answering(fast, clock.get())).as("not a node to build on").isFalse();
    assertThat(probes.whyDown(fast, clock.get())).contains("has not adopted the agreed layout");
    answerEpoch = layout.epoch();
    rounds(200, fast, 2);
    assertThat(probes.lagging(fast, clock.get())).as("caught up").isFalse();
  }
}
