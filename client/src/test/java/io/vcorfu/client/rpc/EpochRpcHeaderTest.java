package io.vcorfu.client.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.layout.LayoutCache;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.Header;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.proto.TailRequest;
import io.vcorfu.protocol.proto.TailResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The header every request carries: the epoch and cluster of the layout it is sent in. */
class EpochRpcHeaderTest {
  private static final Endpoint NODE = new Endpoint("127.0.0.1", 9000);

  /** Records every request and answers it with an empty tail answer in the request's epoch. */
  private static final class Recording implements RpcClient {
    final List<Request> sent = new ArrayList<>();

    @Override
    public CompletableFuture<Response> call(Endpoint target, Request request) {
      sent.add(request);
      return CompletableFuture.completedFuture(
          Response.newBuilder()
              .setHeader(Header.newBuilder().setEpoch(request.getHeader().getEpoch()))
              .setTail(TailResponse.getDefaultInstance())
              .build());
    }

    @Override
    public void close() {}
  }

  @Test
  void eachRequestCarriesTheEpochAndClusterOfTheLayoutItIsSentInAndTheClientsId() {
    Recording rpc = new Recording();
    Layout first = Layout.singleNode(NODE, "cluster-a");
    Layout second = first.withEpoch(first.epoch() + 1);
    StreamId client = StreamId.of("client-1");
    EpochRpc epochRpc = new EpochRpc(rpc, LayoutCache.of(rpc, first), client);

    for (Layout in : List.of(first, first, second, first, second)) {
      epochRpc
          .callIn(in, Layout::sequencer, Request.newBuilder().setTail(TailRequest.newBuilder()))
          .join();
    }

    assertThat(rpc.sent)
        .extracting(r -> r.getHeader().getEpoch())
        .containsExactly(
            first.epoch(), first.epoch(), second.epoch(), first.epoch(), second.epoch());
    for (Request r : rpc.sent) {
      assertThat(r.getHeader().getClusterId()).isEqualTo("cluster-a");
      assertThat(StreamId.fromMsg(r.getHeader().getClientId())).isEqualTo(client);
      assertThat(r.getHeader().getProtocolVersion()).isEqualTo(EpochRpc.PROTOCOL_VERSION);
    }
  }
}
