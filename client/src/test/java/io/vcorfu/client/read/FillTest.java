package io.vcorfu.client.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.GlobalEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.client.chain.ChainWriter;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.client.testing.InJvmCluster;
import io.vcorfu.layout.ChainPlan;
import io.vcorfu.protocol.OverwrittenException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.Token;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code fill} (the paper's fillhole) decides a global address at once: a hole where nothing was
 * written, the entry where a write was left incomplete or committed; never an address no token
 * named yet.
 */
class FillTest {
  /** Far longer than any test: a fill must not wait for it. */
  private static final Duration REPAIR_AFTER = Duration.ofMinutes(5);

  private InJvmCluster cluster;
  private ClusterStreamLog log;
  private ReplicaClient ops;

  @BeforeEach
  void start() {
    cluster = InJvmCluster.fiveNodes();
    log = cluster.client(StreamLogOptions.defaults().withRepairAfter(REPAIR_AFTER));
    ops = log.ops();
  }

  @AfterEach
  void stop() {
    log.close();
    cluster.close();
  }

  private LogEntryMsg entryFor(Token token, String value) {
    return ChainWriter.dataEntry(
        token, ByteString.copyFromUtf8(value), log.layout().current().epoch(), 0x0f11_0001L);
  }

  @Test
  void anAddressNobodyWroteBecomesAHoleAndItsTokenCanNoLongerWriteIt() {
    List<StreamId> streams = List.of(StreamId.of("fill-unwritten"));
    Token token = ops.token(streams, null, 1).join().token(0);

    GlobalEntry filled = log.fill(token.getGlobalAddress()).join();

    assertThat(filled.isHole()).as("the decided slot").isTrue();
    assertThat(log.readGlobal(token.getGlobalAddress()).join().isHole())
        .as("a later read of the filled address")
        .isTrue();
    LogEntryMsg late = entryFor(token, "too late");
    ChainPlan plan = ChainPlan.of(log.layout().current(), late.getGlobalAddress(), streams);
    assertThatThrownBy(() -> ops.logWrite(plan.visits().get(0).endpoint(), late, false).join())
        .isInstanceOf(CompletionException.class)
        .hasCauseInstanceOf(OverwrittenException.class);
  }

  @Test
  void anIncompleteWriteIsFinishedNotJunked() {
    List<StreamId> streams = List.of(StreamId.of("fill-half-written"));
    Token token = ops.token(streams, null, 1).join().token(0);
    LogEntryMsg e = entryFor(token, "half-written");
    ChainPlan plan = ChainPlan.of(log.layout().current(), e.getGlobalAddress(), streams);
    ops.logWrite(plan.visits().get(0).endpoint(), e, false).join();

    GlobalEntry filled = log.fill(token.getGlobalAddress()).join();

    assertThat(filled.isHole()).isFalse();
    assertThat(new String(filled.payload(), StandardCharsets.UTF_8)).isEqualTo("half-written");
    assertThat(log.readStream(streams.get(0), 0, 0).join())
        .singleElement()
        .satisfies(s -> assertThat(s.globalAddress()).isEqualTo(token.getGlobalAddress()));
  }

  @Test
  void aCommittedEntryStaysAsItIs() {
    StreamId s = StreamId.of("fill-committed");
    AppendResult r = log.append(List.of(s), "kept".getBytes(StandardCharsets.UTF_8)).join();

    GlobalEntry filled = log.fill(r.globalAddress()).join();

    assertThat(filled.isHole()).isFalse();
    assertThat(new String(filled.payload(), StandardCharsets.UTF_8)).isEqualTo("kept");
  }

  @Test
  void anAddressBeyondTheTailIsRefusedAndNothingIsFilled() {
    StreamId s = StreamId.of("fill-beyond");
    AppendResult r = log.append(List.of(s), "last".getBytes(StandardCharsets.UTF_8)).join();
    long beyond = r.globalAddress() + 10;

    assertThatThrownBy(() -> log.fill(beyond).join())
        .isInstanceOf(CompletionException.class)
        .hasCauseInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("beyond the log tail");
    assertThatThrownBy(() -> log.fill(-1).join())
        .hasCauseInstanceOf(IllegalArgumentException.class);
    AppendResult next = log.append(List.of(s), "next".getBytes(StandardCharsets.UTF_8)).join();
    assertThat(next.globalAddress()).as("the next append").isEqualTo(r.globalAddress() + 1);
  }
}
