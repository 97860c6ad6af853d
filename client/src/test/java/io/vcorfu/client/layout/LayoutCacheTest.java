package io.vcorfu.client.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.client.testing.InJvmCluster;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.RpcTimeoutException;
import io.vcorfu.protocol.TransportException;
import io.vcorfu.protocol.inmemory.FaultRule;
import io.vcorfu.protocol.proto.Request.PayloadCase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * A connecting client's first layout read survives lost answers, within a bound, and dead seeds; a
 * refresh is as quick as the quickest server that knows a newer layout, and concurrent refreshes
 * share their requests.
 */
class LayoutCacheTest {
  private static final ClientOptions SHORT =
      ClientOptions.defaults().withRequestTimeout(Duration.ofMillis(200));

  @Test
  void aLostLayoutAnswerIsAskedForAgain() {
    try (InJvmCluster cluster = InJvmCluster.fiveNodes()) {
      FaultRule lost =
          cluster
              .inJvmTransport()
              .faults()
              .add(FaultRule.responses().ofCase(PayloadCase.GET_LAYOUT).limit(2).drop());
      try (RpcClient rpc = cluster.transport().newClient(SHORT)) {
        LayoutCache cache = LayoutCache.fetch(rpc, InJvmCluster.SEQUENCER);
        assertThat(cache.current().epoch()).isEqualTo(cluster.layout().epoch());
      }
      assertThat(lost.hits()).as("answers lost before the one that arrived").isEqualTo(2);
    }
  }

  @Test
  void aSeedThatNeverAnswersFailsWithATimeoutAfterTheBoundedAttempts() {
    try (InJvmCluster cluster = InJvmCluster.fiveNodes()) {
      FaultRule lost =
          cluster
              .inJvmTransport()
              .faults()
              .add(FaultRule.responses().ofCase(PayloadCase.GET_LAYOUT).drop());
      try (RpcClient rpc = cluster.transport().newClient(SHORT)) {
        assertThatThrownBy(() -> LayoutCache.fetch(rpc, InJvmCluster.SEQUENCER))
            .isInstanceOf(CompletionException.class)
            .hasCauseInstanceOf(RpcTimeoutException.class);
      }
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
