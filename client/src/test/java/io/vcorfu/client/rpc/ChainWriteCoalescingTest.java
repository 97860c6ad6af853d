package io.vcorfu.client.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.ChainWriteRequest;
import io.vcorfu.protocol.proto.ChainWriteResponse;
import io.vcorfu.protocol.proto.LogEntryMsg;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Chain writes waiting behind a node's busy messages go out together, but never more bytes in one
 * message than {@link ReplicaClient#CHAIN_WRITE_BATCH_BYTES}, so that a node's frame limit never
 * refuses a message of large entries; a write larger than that alone goes alone; every write is
 * answered by its own part.
 */
class ChainWriteCoalescingTest {
  private final List<ChainWriteRequest> sent = new ArrayList<>();
  private final List<CompletableFuture<ChainWriteResponse>> pending = new ArrayList<>();

  private final Coalescer<ChainWriteRequest, ChainWriteResponse, ChainWriteResponse> writes =
      Coalescer.chainWrites(
          new Endpoint("127.0.0.1", 1),
          r -> {
            sent.add(r);
            CompletableFuture<ChainWriteResponse> f = new CompletableFuture<>();
            pending.add(f);
            return f;
          },
          ReplicaClient.CHAIN_WRITE_MESSAGES_IN_FLIGHT,
          ReplicaClient.CHAIN_WRITE_BATCH,
          ReplicaClient.CHAIN_WRITE_BATCH_BYTES);

  private static ChainWriteRequest write(long address, int bytes) {
    return ChainWriteRequest.newBuilder()
        .setEntry(
            LogEntryMsg.newBuilder()
                .setGlobalAddress(address)
                .setPayload(ByteString.copyFrom(new byte[bytes])))
        .build();
  }

  /** Answers message {@code i}: each write it carried, by its address, in order. */
  private void answer(int i) {
    ChainWriteRequest r = sent.get(i);
    ChainWriteResponse.Builder b = ChainWriteResponse.newBuilder();
    if (r.getBatchCount() == 0) {
      pending.get(i).complete(echo(r));
      return;
    }
    for (ChainWriteRequest one : r.getBatchList()) {
      b.addBatch(echo(one));
    }
    pending.get(i).complete(b.build());
  }

  /** A stand-in answer naming the write's address, so that each caller can check it got its own. */
  private static ChainWriteResponse echo(ChainWriteRequest r) {
    return ChainWriteResponse.newBuilder().setDone((int) r.getEntry().getGlobalAddress()).build();
  }

  @Test
  void waitingLargeWritesGoOutInMessagesWithinTheByteLimit() throws Exception {
    int mib = 1024 * 1024;
    List<CompletableFuture<ChainWriteResponse>> callers = new ArrayList<>();
    List<Integer> sizes = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      // One larger than a combined message may be, in the middle of the queue.
      int size = i == 30 ? (int) ReplicaClient.CHAIN_WRITE_BATCH_BYTES + mib : mib;
      sizes.add(size);
      callers.add(writes.submit(write(i, size)));
    }
    for (int i = 0; i < sent.size(); i++) {
      answer(i);
    }
    for (int i = 0; i < callers.size(); i++) {
      assertThat(callers.get(i)).isDone();
      assertThat(callers.get(i).get().getDone()).as("caller %d", i).isEqualTo(i);
    }
    boolean alone = false;
    for (ChainWriteRequest r : sent) {
      if (r.getBatchCount() > 1) {
        assertThat((long) r.getSerializedSize())
            .as("a combined message of %d writes", r.getBatchCount())
            .isLessThanOrEqualTo(ReplicaClient.CHAIN_WRITE_BATCH_BYTES + 64L * r.getBatchCount());
        assertThat(r.getSerializedSize()).isLessThan(ClientOptions.DEFAULT_MAX_FRAME_BYTES);
      } else if (r.getBatchCount() == 0 && r.getEntry().getGlobalAddress() == 30) {
        alone = true;
      }
    }
    assertThat(alone).as("the write over the limit went alone").isTrue();
    assertThat(sent.size()).as("the rest still coalesced").isLessThan(callers.size() / 3);
  }
}
