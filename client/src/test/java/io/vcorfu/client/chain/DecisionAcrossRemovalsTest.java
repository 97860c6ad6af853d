package io.vcorfu.client.chain;

import static io.vcorfu.client.testing.InJvmCluster.NODE_0;
import static io.vcorfu.client.testing.InJvmCluster.NODE_1;
import static io.vcorfu.client.testing.InJvmCluster.NODE_2;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.GlobalEntry;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.client.testing.InJvmCluster;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.inmemory.FaultRule;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Token;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Decisions stay decided through two removals, in the two interleavings the write-path model found
 * against the serial chain as it was ({@code WritePathModelTest}), played here on real replicas of
 * three nodes that host both roles:
 *
 * <ul>
 *   <li>A decision begun under one layout never acts under a later one: a request of a decision
 *       refused for a wrong epoch makes it start again at the decider of the new layout, never go
 *       on at the nodes that remain (fix A).
 *   <li>An abort leaves the copies it replaces uncommitted holes until its decider's hole is
 *       committed, so no reader takes one for the outcome while a removal could still hand the
 *       decision to a copy the abort has not reached (fix B).
 * </ul>
 *
 * <p>The deciding parties run with the layout watch off: a process paused between two steps of its
 * decision is not helped by it either.
 */
class DecisionAcrossRemovalsTest {
  private static final Duration REPAIR_AFTER = Duration.ofMillis(20);
  private static final StreamId STREAM = StreamId.of("stale-decision");

  InJvmCluster cluster;

  @AfterEach
  void stop() {
    cluster.close();
  }

  /** {@code WritePathModelTest.theUnfixedSerialRuleCommitsOnAHoleAfterTwoRemovalsOfThree}. */
  @Test
  void anAbortBegunBeforeTwoRemovalsCannotUndoAnEntryDecidedAfterThem() throws Exception {
    cluster = InJvmCluster.threeNodesBothRoles();
    ReplicaClient ops = cluster.client().ops();
    LogEntryMsg entry = newEntry(ops, 0x57a1eL);
    // The writer wrote every log copy and the stream chain's head, then stopped.
    for (Endpoint n : List.of(NODE_0, NODE_1, NODE_2)) {
      ops.logWrite(n, entry, false).join();
    }
    ops.streamWrite(NODE_1, entry, entry.getSlotsList(), false).join();

    // Stream chain [node-1, node-2]: its decider, node-2, holds nothing, so an aborter leaves its
    // hole there; its first replacement, of the stream copy at node-1, is held in flight.
    cluster.changeLayout(cluster.withoutNode(NODE_0));
    ClusterStreamLog aborter = pausable();
    FaultRule abortFill =
        hold(aborter, NODE_1, Request.PayloadCase.STREAM_FILL, q -> q.getStreamFill().getAbort());
    CompletableFuture<ChainWriter.Outcome> aborting = new ChainWriter(aborter.ops()).decide(entry);
    await().atMost(Duration.ofSeconds(10)).until(() -> abortFill.heldCount() == 1);

    // Stream chain [node-1]: node-1 decides now, and holds the entry. A second party's decision
    // finds it there; its commit is held until the aborter's fill has landed.
    cluster.changeLayout(cluster.withoutNode(NODE_2));
    ClusterStreamLog committer = pausable();
    FaultRule commit = hold(committer, NODE_1, Request.PayloadCase.STREAM_COMMIT, q -> true);
    CompletableFuture<ChainWriter.Outcome> committing =
        new ChainWriter(committer.ops()).decide(entry);
    await().atMost(Duration.ofSeconds(10)).until(() -> commit.heldCount() == 1);

    abortFill.releaseHeld();
    await().atMost(Duration.ofSeconds(10)).until(aborting::isDone);
    commit.releaseHeld();
    ChainWriter.Outcome decided = committing.get(10, TimeUnit.SECONDS);

    assertThat(decided)
        .as("the entry was found at the decider")
        .isEqualTo(ChainWriter.Outcome.COMMITTED);
    ClusterStreamLog reader =
        cluster.client(StreamLogOptions.defaults().withRepairAfter(REPAIR_AFTER));
    StreamEntry s =
        reader
            .readStream(
                STREAM, entry.getSlots(0).getStreamAddress(), entry.getSlots(0).getStreamAddress())
            .get(10, TimeUnit.SECONDS)
            .get(0);
    GlobalEntry g = reader.readGlobal(entry.getGlobalAddress()).get(10, TimeUnit.SECONDS);
    assertThat(s.isHole()).as("the stream slot of the committed entry reads as a hole").isFalse();
    assertThat(new String(s.payload(), StandardCharsets.UTF_8)).isEqualTo("entry");
    assertThat(g.isHole()).as("the log's copy of the committed entry reads as a hole").isFalse();
    assertThat(aborting)
        .as("the aborter, refused at the new epoch, decided again at the new decider")
        .isCompletedWithValue(ChainWriter.Outcome.COMMITTED);
  }

  /**
   * {@code
   * WritePathModelTest.anEmptiedDecidingChainHandsTheDecisionToALogCopyTheAbortHadNotReached} (log
   * chain {@code [node-0, node-1]}, stream chain {@code [node-1, node-2]}).
   */
  @Test
  void aHoleReadWhileAnAbortIsUnderWayStaysAHoleWhenTheLogAloneDecides() throws Exception {
    cluster = InJvmCluster.overlappingChainsOfTwo();
    ReplicaClient ops = cluster.client().ops();
    LogEntryMsg entry = newEntry(ops, 0x0b0e_1L);
    // The writer wrote the log chain's head, then stopped.
    ops.logWrite(NODE_0, entry, false).join();

    // Stream chain [node-1]: its decider holds nothing, so an aborter leaves its hole there and
    // replaces the copies last first: the log's copy at node-1 (a hole in an empty slot), then the
    // one at node-0, which is held in flight.
    cluster.changeLayout(cluster.withoutNode(NODE_2));
    ClusterStreamLog aborter = pausable();
    FaultRule replaceHead =
        hold(aborter, NODE_0, Request.PayloadCase.LOG_FILL, q -> q.getLogFill().getAbort());
    CompletableFuture<ChainWriter.Outcome> aborting = new ChainWriter(aborter.ops()).decide(entry);
    await().atMost(Duration.ofSeconds(10)).until(() -> replaceHead.heldCount() == 1);

    // A reader of the global address meets the abort under way at the log's last replica.
    String before = globalSlot(entry);

    // node-1 goes too: the stream chain is left empty, and the log's one replica decides alone.
    cluster.changeLayout(cluster.withEmptyStreamChainsOf(NODE_1));
    String after = globalSlot(entry);
    replaceHead.releaseHeld();

    assertThat(before).as("the entry was never acknowledged: it aborts").isEqualTo("HOLE");
    assertThat(after).as("what a reader saw before node-1 went").isEqualTo(before);
    assertThat(aborting.get(10, TimeUnit.SECONDS))
        .as("the aborter, refused at the new epoch, finds its abort finished")
        .isEqualTo(ChainWriter.Outcome.ABORTED);
  }

  /**
   * An entry of the test's stream at a fresh token (with writer nonce {@code nonce}), written
   * nowhere yet.
   */
  private LogEntryMsg newEntry(ReplicaClient ops, long nonce) {
    Token token = ops.token(List.of(STREAM), null, 1).join().token(0);
    return ChainWriter.dataEntry(
        token, ByteString.copyFromUtf8("entry"), cluster.layout().epoch(), nonce);
  }

  /** {@code entry}'s global address as a fresh reader sees it. */
  private String globalSlot(LogEntryMsg entry) throws Exception {
    ClusterStreamLog reader =
        cluster.client(StreamLogOptions.defaults().withRepairAfter(REPAIR_AFTER));
    GlobalEntry g = reader.readGlobal(entry.getGlobalAddress()).get(10, TimeUnit.SECONDS);
    return g.isHole() ? "HOLE" : new String(g.payload(), StandardCharsets.UTF_8);
  }

  /** A client whose requests are not abandoned when the layout moves on (see the class comment). */
  private ClusterStreamLog pausable() {
    return cluster.client(
        StreamLogOptions.defaults()
            .withLayoutCheckAfter(Duration.ZERO)
            .withRepairAfter(REPAIR_AFTER)
            .withRpc(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(30))));
  }

  /**
   * Holds in flight the first request of kind {@code kind} that {@code from} sends to {@code node}
   * and {@code test} accepts, until the rule releases it.
   */
  private FaultRule hold(
      ClusterStreamLog from, Endpoint node, Request.PayloadCase kind, Predicate<Request> test) {
    StreamId sender = from.ops().rpc().clientId();
    return cluster
        .inJvmTransport()
        .faults()
        .add(
            FaultRule.requests()
                .to(node)
                .ofCase(kind)
                .when(
                    q ->
                        StreamId.fromMsg(q.getHeader().getClientId()).equals(sender)
                            && test.test(q))
                .limit(1)
                .reorder(1_000));
  }
}
