package io.vcorfu.client.chain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.client.testing.InJvmCluster;
import io.vcorfu.layout.ChainPlan;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.inmemory.FaultRule;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.StreamSlot;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A writer's commits ride on its next message to each node: no commit message of their own while
 * writes go there, one message per node when none does, and every copy of an acknowledged entry
 * ends committed without any reader deciding it.
 */
class RidingCommitsTest {
  InJvmCluster cluster;
  ClusterStreamLog client;
  final AtomicInteger commitMessages = new AtomicInteger();
  final AtomicInteger commitsOnly = new AtomicInteger();
  final AtomicInteger writesCarrying = new AtomicInteger();

  @BeforeEach
  void start() {
    cluster = InJvmCluster.threeNodesBothRoles();
    client = cluster.client();
    // Counts what goes to the nodes, dropping nothing.
    cluster
        .inJvmTransport()
        .faults()
        .add(
            FaultRule.requests()
                .when(
                    q -> {
                      switch (q.getPayloadCase()) {
                        case LOG_COMMIT, STREAM_COMMIT -> commitMessages.incrementAndGet();
                        case CHAIN_WRITE -> {
                          var w = q.getChainWrite();
                          boolean carries = w.getCommitLogCount() + w.getCommitSlotsCount() > 0;
                          if (carries && w.getStepsCount() == 0) {
                            commitsOnly.incrementAndGet();
                          } else if (carries) {
                            writesCarrying.incrementAndGet();
                          }
                        }
                        default -> {}
                      }
                      return false;
                    })
                .drop());
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  private LogEntryMsg entry(ReplicaClient ops, StreamId stream, String value) {
    return ChainWriter.dataEntry(
        ops.token(List.of(stream), null, 1).join().token(0),
        ByteString.copyFromUtf8(value),
        cluster.layout().epoch(),
        value.hashCode() | 1L);
  }

  /** Every copy of {@code entry} as its replica holds it. */
  private List<ReadResult> copies(ReplicaClient ops, LogEntryMsg entry) {
    ChainPlan plan = ChainPlan.of(cluster.layout(), entry.getGlobalAddress(), streamsOf(entry));
    return plan.visits().stream()
        .map(
            v -> {
              if (v.role() == ChainPlan.Role.LOG) {
                return ops.logRead(v.endpoint(), entry.getGlobalAddress(), entry.getGlobalAddress())
                    .join()
                    .get(0);
              }
              StreamSlot s = ChainWriter.slotsFor(entry, v).get(0);
              return ops.streamRead(
                      v.endpoint(),
                      StreamId.fromMsg(s.getStream()),
                      s.getStreamAddress(),
                      s.getStreamAddress())
                  .join()
                  .get(0);
            })
        .toList();
  }

  private static List<StreamId> streamsOf(LogEntryMsg entry) {
    return entry.getSlotsList().stream().map(s -> StreamId.fromMsg(s.getStream())).toList();
  }

  @Test
  void commitsRideOnTheNextWriteToEachNode() throws Exception {
    ReplicaClient ops = client.ops();
    // Commits that would wait a minute for a write: only the next write can carry them.
    ChainWriter writer = new ChainWriter(ops, 60_000_000L);
    StreamId stream = StreamId.of("riding");
    LogEntryMsg first = entry(ops, stream, "first");
    assertThat(writer.drive(first).get(10, TimeUnit.SECONDS))
        .isEqualTo(ChainWriter.Outcome.COMMITTED);
    assertThat(copies(ops, first))
        .as("acknowledged, every copy held, no commit sent yet")
        .allMatch(r -> r.getStatus() == ReadResult.Status.UNCOMMITTED);

    LogEntryMsg second = entry(ops, stream, "second");
    assertThat(writer.drive(second).get(10, TimeUnit.SECONDS))
        .isEqualTo(ChainWriter.Outcome.COMMITTED);

    assertThat(copies(ops, first))
        .as("the first entry's copies, committed by the second's writes")
        .allMatch(r -> r.getStatus() == ReadResult.Status.COMMITTED);
    assertThat(writesCarrying.get()).as("writes carrying commits").isEqualTo(3);
    assertThat(commitMessages.get() + commitsOnly.get()).as("commit messages").isZero();
  }

  @Test
  void commitsWithNothingToRideOnGoOutOnTheirOwnOneMessagePerNode() throws Exception {
    ReplicaClient ops = client.ops();
    ChainWriter writer = new ChainWriter(ops, 1_000L);
    LogEntryMsg only = entry(ops, StreamId.of("alone"), "alone");

    assertThat(writer.drive(only).get(10, TimeUnit.SECONDS))
        .isEqualTo(ChainWriter.Outcome.COMMITTED);

    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                copies(ops, only).stream()
                    .allMatch(r -> r.getStatus() == ReadResult.Status.COMMITTED));
    assertThat(commitsOnly.get()).as("one commit message per node").isEqualTo(3);
    assertThat(commitMessages.get()).as("separate log and stream commits").isZero();
  }
}
