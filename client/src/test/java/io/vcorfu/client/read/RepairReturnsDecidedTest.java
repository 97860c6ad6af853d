package io.vcorfu.client.read;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.client.testing.ChainFaults;
import io.vcorfu.client.testing.InJvmCluster;
import io.vcorfu.layout.ChainPlan;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.VCorfuException;
import io.vcorfu.protocol.inmemory.FaultRule;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.protocol.proto.Token;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A reader that repairs an entry returns only what the chain decided, or a typed error. */
class RepairReturnsDecidedTest {
  private static final Duration REPAIR_AFTER = Duration.ofMillis(100);

  InJvmCluster cluster;
  InJvmTransport transport;

  @BeforeEach
  void start() {
    cluster = InJvmCluster.fiveNodes();
    transport = (InJvmTransport) cluster.transport();
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  /** A reader that retries lost messages for one second (see Failover) before it gives up. */
  private ClusterStreamLog reader(Duration requestTimeout) {
    return cluster.client(
        StreamLogOptions.defaults()
            .withRepairAfter(REPAIR_AFTER)
            .withRpc(ClientOptions.defaults().withRequestTimeout(requestTimeout))
            .withFailoverTimeout(Duration.ofSeconds(1)));
  }

  @Test
  void anAbortedEntryWhoseAbortFillIsLostIsNeverReturnedAsData() throws Exception {
    ClusterStreamLog setup = cluster.client();
    ReplicaClient ops = setup.ops();
    List<StreamId> streams =
        ChainFaults.earlierAndDeciding(setup.layout().current(), "aborted-read");
    StreamId earlier = streams.get(0);
    Token token = ops.token(streams, null, 1).join().token(0);
    LogEntryMsg e =
        LogEntryMsg.newBuilder()
            .setGlobalAddress(token.getGlobalAddress())
            .setKind(EntryKind.DATA)
            .addAllSlots(token.getSlotsList())
            .setPayload(ByteString.copyFromUtf8("doomed"))
            .setEpoch(setup.layout().current().epoch())
            .setNonce(0x5eed_0003L)
            .build();
    ChainPlan plan = ChainPlan.of(setup.layout().current(), e.getGlobalAddress(), streams);
    assertThat(plan.visits()).hasSize(3);
    // The writer wrote the log copy and the earlier stream's copy, then died; a reader of the
    // deciding stream filled its slot, so the entry is aborted.
    ops.logWrite(plan.visits().get(0).endpoint(), e, false).join();
    ChainPlan.Visit middle = plan.visits().get(1);
    ops.streamWrite(middle.endpoint(), e, slots(e, middle), false).join();
    StreamSlot decided = slots(e, plan.last()).get(0);
    ops.streamFill(
            plan.last().endpoint(),
            StreamId.fromMsg(decided.getStream()),
            decided.getStreamAddress(),
            false,
            0)
        .join();

    // Abort-fills to the earlier stream's replica are lost; plain fills get through.
    FaultRule loseAbortFills =
        transport
            .faults()
            .add(
                FaultRule.requests()
                    .to(middle.endpoint())
                    .ofCase(Request.PayloadCase.STREAM_FILL)
                    .when(q -> q.getStreamFill().getAbort())
                    .drop());
    long address = slots(e, middle).get(0).getStreamAddress();
    CompletableFuture<List<StreamEntry>> read =
        reader(Duration.ofMillis(300)).readStream(earlier, address, address);
    try {
      StreamEntry got = read.get(20, TimeUnit.SECONDS).get(0);
      assertThat(got.isHole()).as("an aborted entry read back as data").isTrue();
    } catch (ExecutionException failed) {
      assertThat(failed.getCause()).isInstanceOf(VCorfuException.class);
    }
    assertThat(loseAbortFills.hits()).isPositive();
    transport.faults().remove(loseAbortFills);

    // Once the messages get through, every reader sees the hole.
    assertThat(
            reader(Duration.ofSeconds(5))
                .readStream(earlier, address, address)
                .get(20, TimeUnit.SECONDS)
                .get(0)
                .isHole())
        .isTrue();
    assertThat(
            reader(Duration.ofSeconds(5))
                .readGlobal(e.getGlobalAddress())
                .get(20, TimeUnit.SECONDS)
                .isHole())
        .isTrue();
  }

  private static List<StreamSlot> slots(LogEntryMsg e, ChainPlan.Visit v) {
    Set<StreamId> hosted = new HashSet<>(v.streams());
    return e.getSlotsList().stream()
        .filter(s -> hosted.contains(StreamId.fromMsg(s.getStream())))
        .toList();
  }

  static String text(StreamEntry e) {
    return e.isHole() ? "HOLE" : new String(e.payload(), StandardCharsets.UTF_8);
  }
}
