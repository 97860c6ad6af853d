package io.vcorfu.client.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.vcorfu.client.testing.InJvmCluster;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.RpcTimeoutException;
import io.vcorfu.protocol.proto.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * A watched request is answered as its call is; one sent in an epoch the layout has moved past is
 * abandoned once it has waited the check delay, one of the current epoch is not; answered requests
 * leave the watch.
 */
class LayoutWatchTest {
  private static final Duration CHECK_AFTER = Duration.ofMillis(40);

  @Test
  void answeredRequestsCompleteAndLeaveTheWatch() {
    try (InJvmCluster cluster = InJvmCluster.fiveNodes();
        RpcClient rpc = cluster.transport().newClient(ClientOptions.defaults());
        LayoutWatch watch =
            new LayoutWatch(LayoutCache.fetch(rpc, InJvmCluster.SEQUENCER), CHECK_AFTER)) {
      long epoch = cluster.layout().epoch();
      List<CompletableFuture<Response>> calls = new ArrayList<>();
      List<CompletableFuture<Response>> answers = new ArrayList<>();
      for (int i = 0; i < 1000; i++) {
        CompletableFuture<Response> call = new CompletableFuture<>();
        calls.add(call);
        answers.add(watch.watch(InJvmCluster.SEQUENCER, epoch, call));
      }
      assertThat(watch.waiting()).isEqualTo(1000);
      for (int i = 0; i < calls.size(); i++) {
        Response r = Response.newBuilder().build();
        calls.get(i).complete(r);
        assertThat(answers.get(i).join()).isSameAs(r);
      }
      assertThat(watch.waiting()).isZero();
    }
  }

  @Test
  void onlyARequestOfAnOlderEpochIsAbandonedAfterTheCheckDelay() {
    try (InJvmCluster cluster = InJvmCluster.fiveNodes();
        RpcClient rpc = cluster.transport().newClient(ClientOptions.defaults());
        LayoutWatch watch =
            new LayoutWatch(LayoutCache.fetch(rpc, InJvmCluster.SEQUENCER), CHECK_AFTER)) {
      long epoch = cluster.layout().epoch();
      CompletableFuture<Response> stale =
          watch.watch(InJvmCluster.SEQUENCER, epoch - 1, new CompletableFuture<>());
      CompletableFuture<Response> current =
          watch.watch(InJvmCluster.SEQUENCER, epoch, new CompletableFuture<>());
      CompletableFuture<Response> answered = new CompletableFuture<>();
      CompletableFuture<Response> later = watch.watch(InJvmCluster.SEQUENCER, epoch - 1, answered);
      answered.complete(Response.getDefaultInstance());
      await().atMost(Duration.ofSeconds(10)).until(stale::isDone);
      assertThatThrownBy(stale::join)
          .isInstanceOf(CompletionException.class)
          .cause()
          .isInstanceOf(RpcTimeoutException.class)
          .hasMessageContaining("abandoned the request to " + InJvmCluster.SEQUENCER);
      assertThat(later.join()).isSameAs(Response.getDefaultInstance());
      // Several more looks over the requests: the one of the current epoch still waits.
      long from = watch.looks();
      await().atMost(Duration.ofSeconds(10)).until(() -> watch.looks() >= from + 4);
      assertThat(current).isNotDone();
      assertThat(watch.waiting()).isEqualTo(1);
    }
  }
}
