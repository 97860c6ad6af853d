package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.vcorfu.layout.EpochFence;
import io.vcorfu.layout.Layout;
import io.vcorfu.logunit.ReplicaStore;
import io.vcorfu.logunit.StorageOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.Header;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Request.PayloadCase;
import io.vcorfu.protocol.proto.SequencedWriteRequest;
import io.vcorfu.protocol.proto.SequencedWriteResponse;
import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.sequencer.Sequencer;
import io.vcorfu.sequencer.SequencerService;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A retried append whose earlier attempt the node found in its log, and whose writer then learnt
 * that attempt aborted (a reader filled one of its slots), takes a fresh token on its next retry:
 * it is not answered with the aborted attempt again. (Before, the found attempt kept no address in
 * the writer table, so every retry was answered with it, and the append gave up after its attempts
 * ran out; a kill -9 of the sequencer mid-append showed it.)
 */
class SequencedWriteRetryTest {
  private static final Endpoint NODE = Endpoint.parse("node:9000");
  private static final StreamId CLIENT = StreamId.of("retrying-client");
  private static final StreamId STREAM = StreamId.of("s");
  private static final long SEQ = 7;

  @Test
  void aRetryToldThatItsFoundAttemptAbortedTakesAFreshToken() throws Exception {
    Layout layout = Layout.singleNode(NODE, "retry");
    try (ReplicaStore store = ReplicaStore.open(StorageOptions.memory())) {
      // An earlier sequencer's attempt of append SEQ, stored at address 0 and not committed.
      LogEntryMsg earlier =
          LogEntryMsg.newBuilder()
              .setGlobalAddress(0)
              .setKind(EntryKind.DATA)
              .addSlots(
                  StreamSlot.newBuilder()
                      .setStream(STREAM.toMsg())
                      .setStreamAddress(0)
                      .setBackpointer(-1))
              .setPayload(ByteString.copyFromUtf8("v"))
              .setEpoch(1)
              .setNonce(11)
              .setWriter(CLIENT.toMsg())
              .setWriterSeq(SEQ)
              .build();
      store.logReplica().write(earlier, false).get(5, TimeUnit.SECONDS);
      SequencerRole role = role(0);
      var table = handlers(role, store, layout);

      SequencedWriteResponse first =
          table
              .get(PayloadCase.SEQUENCED_WRITE)
              .handle(retry(-1))
              .get(5, TimeUnit.SECONDS)
              .getSequencedWrite();
      assertThat(first.hasStored()).as("the retry finds the earlier attempt").isTrue();
      assertThat(first.getStored().getGlobalAddress()).isZero();

      SequencedWriteResponse again =
          table
              .get(PayloadCase.SEQUENCED_WRITE)
              .handle(retry(0))
              .get(5, TimeUnit.SECONDS)
              .getSequencedWrite();
      assertThat(again.hasStored())
          .as("a retry that says the attempt at 0 aborted is not answered with it again")
          .isFalse();
      assertThat(again.getToken().getTokens(0).getGlobalAddress())
          .as("it takes a fresh token")
          .isEqualTo(1);
      role.close();
    }
  }

  /**
   * An append whose writer said it has the outcome (a later write's {@code settled_below}) is
   * forgotten by the table; a retry of it anyway (a buggy or late one) is found in the log, not
   * stored again.
   */
  @Test
  void aSettledAppendIsForgottenAndARetryOfItIsFoundInTheLogNotStoredTwice() throws Exception {
    Layout layout = Layout.singleNode(NODE, "retry");
    try (ReplicaStore store = ReplicaStore.open(StorageOptions.memory())) {
      SequencerRole role = role(-1);
      RpcHandler handler = handlers(role, store, layout).get(PayloadCase.SEQUENCED_WRITE);
      SequencedWriteResponse first =
          handler.handle(write(1, false, 0)).get(5, TimeUnit.SECONDS).getSequencedWrite();
      long at = first.getToken().getTokens(0).getGlobalAddress();
      SequencedWriteResponse repeated =
          handler.handle(write(1, true, 0)).get(5, TimeUnit.SECONDS).getSequencedWrite();
      assertThat(repeated.hasStored()).as("known to the table: its answer again").isFalse();
      assertThat(repeated.getToken().getTokens(0).getGlobalAddress()).isEqualTo(at);

      handler.handle(write(2, false, 2)).get(5, TimeUnit.SECONDS);
      SequencedWriteResponse late =
          handler.handle(write(1, true, 0)).get(5, TimeUnit.SECONDS).getSequencedWrite();
      assertThat(late.hasStored()).as("forgotten by the table, found in the log").isTrue();
      assertThat(late.getStored().getGlobalAddress()).isEqualTo(at);
      assertThat(role.sequencer().token(TokenRequest.newBuilder().setCount(1).build()).join())
          .as("no token issued for the late retry: appends 1 and 2 only")
          .matches(r -> r.getTokens(0).getGlobalAddress() == at + 2);
      role.close();
    }
  }

  /** A sequencer role whose sequencer starts at global tail {@code globalTail}, epoch 1. */
  private static SequencerRole role(long globalTail) throws Exception {
    SequencerService sequencer = new SequencerService(new Sequencer());
    sequencer.bootstrap(1, globalTail, Map.of()).get(5, TimeUnit.SECONDS);
    return new SequencerRole(sequencer, null, CompletableFuture.completedFuture(null), 0);
  }

  /** The node's request handlers over {@code store} and {@code role}, in epoch 1. */
  private static Map<PayloadCase, RpcHandler> handlers(
      SequencerRole role, ReplicaStore store, Layout layout) {
    return RoleHandlers.table(
        new Roles(role, store.logReplica(), store.streamReplica(), store, null, null),
        () -> layout,
        new EpochFence(1));
  }

  /** Append {@code seq} of CLIENT, saying every append below {@code settledBelow} has finished. */
  private static Request write(long seq, boolean retry, long settledBelow) {
    return Request.newBuilder()
        .setHeader(Header.newBuilder().setEpoch(1).setClientId(CLIENT.toMsg()))
        .setSequencedWrite(
            SequencedWriteRequest.newBuilder()
                .setToken(TokenRequest.newBuilder().setCount(1).addStreams(STREAM.toMsg()))
                .setPayload(ByteString.copyFromUtf8("v" + seq))
                .setNonce(100 + seq)
                .setWriterSeq(seq)
                .setRetry(retry)
                .setNotBelow(0)
                .setSettledBelow(settledBelow))
        .build();
  }

  /** A retry of append SEQ; {@code aborted} >= 0 says the attempt there aborted. */
  private static Request retry(long aborted) {
    SequencedWriteRequest.Builder w =
        SequencedWriteRequest.newBuilder()
            .setToken(TokenRequest.newBuilder().setCount(1).addStreams(STREAM.toMsg()))
            .setPayload(ByteString.copyFromUtf8("v"))
            .setNonce(12)
            .setWriterSeq(SEQ)
            .setRetry(true)
            .setNotBelow(0);
    if (aborted >= 0) {
      w.setHasAborted(true).setAbortedAddress(aborted);
    }
    return Request.newBuilder()
        .setHeader(Header.newBuilder().setEpoch(1).setClientId(CLIENT.toMsg()))
        .setSequencedWrite(w)
        .build();
  }
}
