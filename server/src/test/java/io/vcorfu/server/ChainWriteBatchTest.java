package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.chain.ChainWriter;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.ChainStep;
import io.vcorfu.protocol.proto.ChainWriteRequest;
import io.vcorfu.protocol.proto.ChainWriteResponse;
import io.vcorfu.protocol.proto.ErrorMsg;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.TokenResponse;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node answers a batch of chain writes ({@code ChainWriteRequest.batch}) write by write, as if
 * each had come alone: in order, each in its own part of the response, a write that fails (here an
 * address already taken by another entry) failing alone with its own error while the writes around
 * it are stored.
 */
class ChainWriteBatchTest {
  private static LogEntryMsg entry(TokenResponse t, int i, String value, long nonce) {
    return ChainWriter.dataEntry(
        t.getTokens(i), ByteString.copyFromUtf8(value), t.getEpoch(), nonce);
  }

  private static ChainWriteRequest logWrite(LogEntryMsg e) {
    return ChainWriteRequest.newBuilder()
        .setEntry(e)
        .addSteps(ChainStep.newBuilder().setLog(true))
        .build();
  }

  @Test
  void eachWriteOfABatchIsAnsweredOnItsOwnAndAFailedOneHarmsNoOther(@TempDir Path tmp)
      throws Exception {
    try (InProcessCluster c = InProcessCluster.fiveNodes(tmp, tmp.resolve("data"))) {
      ClusterStreamLog log = c.client();
      TokenResponse t =
          log.ops().token(List.of(StreamId.of("batched")), null, 3).join().toResponse();
      long first = t.getTokens(0).getGlobalAddress();
      long third = t.getTokens(2).getGlobalAddress();
      Endpoint head = log.layout().current().logChain(first).get(0);
      assertThat(log.layout().current().logChain(third).get(0))
          .as("addresses two apart share a log chain")
          .isEqualTo(head);

      LogEntryMsg a = entry(t, 0, "a", 1);
      LogEntryMsg clash = entry(t, 0, "clash", 2);
      LogEntryMsg b = entry(t, 2, "b", 3);
      ChainWriteRequest batch =
          ChainWriteRequest.newBuilder()
              .addBatch(logWrite(a))
              .addBatch(logWrite(clash))
              .addBatch(logWrite(b))
              .build();
      ChainWriteResponse answer =
          log.ops()
              .rpc()
              .call(head, Request.newBuilder().setChainWrite(batch))
              .join()
              .getChainWrite();

      assertThat(answer.getBatchCount()).isEqualTo(3);
      assertThat(answer.getBatch(0).hasError()).isFalse();
      assertThat(answer.getBatch(0).getDone()).isEqualTo(1);
      assertThat(answer.getBatch(1).getDone()).isZero();
      assertThat(answer.getBatch(1).getError().getErrorCase())
          .as(answer.getBatch(1).getError().getMessage())
          .isEqualTo(ErrorMsg.ErrorCase.OVERWRITTEN);
      assertThat(answer.getBatch(2).hasError()).isFalse();
      assertThat(answer.getBatch(2).getDone()).isEqualTo(1);

      ReadResult atFirst = log.ops().logRead(head, first, first).join().get(0);
      assertThat(atFirst.getEntry().getPayload().toStringUtf8()).isEqualTo("a");
      assertThat(atFirst.getEntry().getNonce()).isEqualTo(1);
      ReadResult atThird = log.ops().logRead(head, third, third).join().get(0);
      assertThat(atThird.getEntry().getPayload().toStringUtf8()).isEqualTo("b");
    }
  }
}
