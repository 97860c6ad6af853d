package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.vcorfu.layout.EpochFence;
import io.vcorfu.layout.Layout;
import io.vcorfu.logunit.ReplicaStore;
import io.vcorfu.logunit.StorageOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.SealedException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.Header;
import io.vcorfu.protocol.proto.LogReadRequest;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Request.PayloadCase;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.proto.SequencedWriteRequest;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.sequencer.Sequencer;
import io.vcorfu.sequencer.SequencerService;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A sequenced write (token and whole chain in one request, on a one-node layout) passes the node's
 * epoch fence like every other write: once a seal of a newer epoch has answered, no entry stamped
 * with an older epoch is stored, even by a write that arrived before the seal and was parked until
 * the sequencer was ready.
 */
class SequencedWriteFenceTest {
  private static final Endpoint NODE = Endpoint.parse("node:9000");

  @Test
  void aWriteParkedBeforeASealStoresNothingOnceTheSealHasAnswered() throws Exception {
    Layout layout = Layout.singleNode(NODE, "fence");
    try (ReplicaStore store = ReplicaStore.open(StorageOptions.memory())) {
      SequencerService sequencer = new SequencerService(new Sequencer());
      sequencer.bootstrap(1, -1, Map.of()).join();
      CompletableFuture<Void> booted = new CompletableFuture<>();
      SequencerRole role = new SequencerRole(sequencer, null, booted, 0);
      EpochFence fence = new EpochFence(1);
      var table =
          RoleHandlers.table(
              new Roles(role, store.logReplica(), store.streamReplica(), store, null, null),
              () -> layout,
              fence);

      CompletableFuture<Response> write =
          table.get(PayloadCase.SEQUENCED_WRITE).handle(sequencedWrite("parked"));
      assertThat(write).as("parked until the sequencer is ready").isNotDone();

      CompletableFuture<Void> sealed = fence.seal(2);
      sealed.get(5, TimeUnit.SECONDS);
      long tailAtSeal = store.maxGlobal();

      booted.complete(null);
      Throwable refused = null;
      try {
        write.get(5, TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException e) {
        refused = e.getCause() instanceof CompletionException c ? c.getCause() : e.getCause();
      }
      assertThat(refused)
          .as("an epoch-1 write after the seal of epoch 2 answered is refused")
          .isInstanceOf(SealedException.class);
      assertThat(store.maxGlobal()).as("nothing stored after the seal").isEqualTo(tailAtSeal);
      ReadResult at0 =
          store
              .logReplica()
              .read(LogReadRequest.newBuilder().setFrom(0).setTo(0).build())
              .get(5, TimeUnit.SECONDS)
              .getResults(0);
      assertThat(at0.getStatus()).isEqualTo(ReadResult.Status.EMPTY);
      role.close();
    }
  }

  private static Request sequencedWrite(String value) {
    return Request.newBuilder()
        .setHeader(Header.newBuilder().setEpoch(1))
        .setSequencedWrite(
            SequencedWriteRequest.newBuilder()
                .setToken(
                    TokenRequest.newBuilder().setCount(1).addStreams(StreamId.of("s").toMsg()))
                .setPayload(ByteString.copyFromUtf8(value))
                .setNonce(7))
        .build();
  }
}
