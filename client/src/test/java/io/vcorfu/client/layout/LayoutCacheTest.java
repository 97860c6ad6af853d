package io.vcorfu.client.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.client.testing.InJvmCluster;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.Errors;
import io.vcorfu.protocol.NotServingException;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.RpcTimeoutException;
import io.vcorfu.protocol.TransportException;
import io.vcorfu.protocol.inmemory.FaultRule;
import io.vcorfu.protocol.proto.Request.PayloadCase;
import io.vcorfu.protocol.proto.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;

/**
 * A connecting client's first layout read survives lost answers, within a bound, and dead seeds; a
 * refresh is as quick as the quickest server that knows a newer layout, and concurrent refreshes
 * share their requests.
 */
class LayoutCacheTest {
  private static final ClientOptions SHORT =
      ClientOptions.defaults().withRequestTimeout(Duration.ofMillis(200));

  /** A fault on the answers to {@code cluster}'s layout requests. */
  private static FaultRule onLayoutAnswers(
      InJvmCluster cluster, Function<FaultRule.Matcher, FaultRule> fault) {
    return cluster
        .inJvmTransport()
        .faults()
        .add(fault.apply(FaultRule.responses().ofCase(PayloadCase.GET_LAYOUT)));
  }

  /** A connecting client fetches {@code cluster}'s layout from the sequencer's node. */
  private static void assertFetchesTheLayout(InJvmCluster cluster) {
    try (RpcClient rpc = cluster.transport().newClient(SHORT)) {
      LayoutCache cache = LayoutCache.fetch(rpc, InJvmCluster.SEQUENCER);
      assertThat(cache.current().epoch()).isEqualTo(cluster.layout().epoch());
    }
  }

  /** A connecting client fails to fetch the layout; the assertion on the failure's cause. */
  private static AbstractThrowableAssert<?, ? extends Throwable> assertFetchFails(
      InJvmCluster cluster) {
    try (RpcClient rpc = cluster.transport().newClient(SHORT)) {
      return assertThatThrownBy(() -> LayoutCache.fetch(rpc, InJvmCluster.SEQUENCER))
          .isInstanceOf(CompletionException.class)
          .cause();
    }
  }

  @Test
  void aLostLayoutAnswerIsAskedForAgain() {
    try (InJvmCluster cluster = InJvmCluster.fiveNodes()) {
      FaultRule lost = onLayoutAnswers(cluster, m -> m.limit(2).drop());
      assertFetchesTheLayout(cluster);
      assertThat(lost.hits()).as("answers lost before the one that arrived").isEqualTo(2);
    }
  }

  @Test
  void aSeedThatNeverAnswersFailsWithATimeoutAfterTheBoundedAttempts() {
    try (InJvmCluster cluster = InJvmCluster.fiveNodes()) {
      FaultRule lost = onLayoutAnswers(cluster, FaultRule.Matcher::drop);
      assertFetchFails(cluster).isInstanceOf(RpcTimeoutException.class);
      assertThat(lost.hits()).isEqualTo(LayoutCache.FETCH_ATTEMPTS);
    }
  }

  @Test
  void noSeedAnsweringSaysWhatEachSeedSaid() {
    try (InJvmCluster cluster = InJvmCluster.fiveNodes();
        RpcClient rpc = cluster.transport().newClient(SHORT)) {
      Endpoint a = new Endpoint("gone-a", 1);
      Endpoint b = new Endpoint("gone-b", 2);
      assertThatThrownBy(() -> LayoutCache.fetch(rpc, List.of(a, b)))
          .isInstanceOf(CompletionException.class)
          .cause()
          .isInstanceOf(TransportException.class)
          .hasMessageContaining("no seed answered a layout request")
          .hasMessageContaining("gone-a:1 (cannot connect")
          .hasMessageContaining("gone-b:2 (cannot connect");
    }
  }

  /** What a node started moments ago answers a layout request until it adopts its first layout. */
  private static final Response NO_LAYOUT_YET =
      Errors.toResponse(new NotServingException("layout", "node 127.0.0.1:9000 has no layout yet"));

  @Test
  void aSeedWithNoLayoutYetIsAskedAgainUntilItHasOne() {
    try (InJvmCluster cluster = InJvmCluster.fiveNodes()) {
      FaultRule notYet = onLayoutAnswers(cluster, m -> m.limit(3).replaceWith(NO_LAYOUT_YET));
      assertFetchesTheLayout(cluster);
      assertThat(notYet.hits()).as("answers of no layout yet before the layout").isEqualTo(3);
    }
  }

  @Test
  void aSeedThatNeverHasALayoutFailsWithItsAnswerOnceThePatienceIsOver() {
    try (InJvmCluster cluster = InJvmCluster.fiveNodes()) {
      FaultRule notYet = onLayoutAnswers(cluster, m -> m.replaceWith(NO_LAYOUT_YET));
      long started = System.nanoTime();
      assertFetchFails(cluster)
          .isInstanceOf(NotServingException.class)
          .hasMessage("node 127.0.0.1:9000 has no layout yet");
      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .as("it kept asking for the whole patience")
          .isGreaterThanOrEqualTo(LayoutCache.NOT_YET_PATIENCE);
      // Pauses of 50, 100, 200, then 400 ms: a bounded number of requests.
      assertThat(notYet.hits()).isBetween(2L, 12L);
    }
  }

  @Test
  void aRefusalOtherThanNoLayoutYetIsNotAskedAgain() {
    try (InJvmCluster cluster = InJvmCluster.fiveNodes()) {
      FaultRule refused =
          onLayoutAnswers(
              cluster, m -> m.replaceWith(Errors.toResponse(new NotServingException("sequencer"))));
      assertFetchFails(cluster).isInstanceOf(NotServingException.class);
      assertThat(refused.hits()).isEqualTo(1);
    }
  }

  @Test
  void aRefreshEndsAsSoonAsOneServerReportsANewerEpochWhileAnotherIsSilent() {
    try (InJvmCluster cluster = InJvmCluster.fiveNodes();
        RpcClient rpc =
            cluster
                .transport()
                .newClient(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(30)))) {
      LayoutCache cache = LayoutCache.fetch(rpc, InJvmCluster.SEQUENCER);
      // A paused node: it takes requests and never answers.
      cluster.inJvmTransport().faults().add(FaultRule.requests().to(InJvmCluster.LOG_A).drop());
      Layout next = cluster.layout().withEpoch(2);
      cluster.changeLayout(next);

      assertThat(cache.refresh())
          .succeedsWithin(Duration.ofSeconds(10))
          .extracting(Layout::epoch)
          .isEqualTo(2L);
      assertThat(cache.current()).isEqualTo(next);
    }
  }

  @Test
  void aRefreshThatFindsNothingNewerDoesNotWaitOutASilentServer() {
    try (InJvmCluster cluster = InJvmCluster.fiveNodes();
        RpcClient rpc =
            cluster
                .transport()
                .newClient(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(60)))) {
      LayoutCache cache = LayoutCache.fetch(rpc, InJvmCluster.SEQUENCER);
      // A paused node: it takes requests and never answers, for longer than the test waits.
      cluster.inJvmTransport().faults().add(FaultRule.requests().to(InJvmCluster.LOG_A).drop());

      assertThat(cache.refresh())
          .as("the other servers answer the same epoch; the silent one is not waited for")
          .succeedsWithin(Duration.ofSeconds(20))
          .extracting(Layout::epoch)
          .isEqualTo(cluster.layout().epoch());
    }
  }

  @Test
  void concurrentRefreshesShareTheirRequests() {
    try (InJvmCluster cluster = InJvmCluster.fiveNodes();
        RpcClient rpc = cluster.transport().newClient(SHORT)) {
      LayoutCache cache = LayoutCache.fetch(rpc, InJvmCluster.SEQUENCER);
      FaultRule asked =
          cluster
              .inJvmTransport()
              .faults()
              .add(
                  FaultRule.requests().ofCase(PayloadCase.GET_LAYOUT).delay(Duration.ofMillis(50)));
      List<CompletableFuture<Layout>> refreshes = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        refreshes.add(cache.refresh());
      }
      CompletableFuture.allOf(refreshes.toArray(CompletableFuture[]::new)).join();
      int servers = cluster.layout().allServers().size();
      assertThat(asked.hits())
          .as("layout requests for 20 refreshes")
          .isLessThanOrEqualTo(2L * servers);
    }
  }
}
