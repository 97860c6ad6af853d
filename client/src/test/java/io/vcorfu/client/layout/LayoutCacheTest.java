package io.vcorfu.client.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.client.testing.InJvmCluster;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.RpcTimeoutException;
import io.vcorfu.protocol.inmemory.FaultRule;
import io.vcorfu.protocol.proto.Request.PayloadCase;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** A connecting client's first layout read survives lost answers, within a bound. */
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
}
