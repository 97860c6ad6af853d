package io.vcorfu.client.chain;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.GlobalEntry;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.client.testing.InJvmCluster;
import io.vcorfu.layout.ChainPlan;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.UnknownStreamException;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.Token;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The parallel write rule on real replicas: a writer sends every copy at once, so when it dies any
 * subset of its copies may have landed. For every subset of the plan {@code [log-a, log-b,
 * stream-a, stream-b, stream-c]}, with no layout change or after the removal of any one stream
 * replica (which seals the entry's epoch), a decision must end with the rule's outcome: COMMITTED
 * exactly when the decider holds the entry and every copy of the plan it decides with holds it or,
 * before any seal, can still be written; else ABORTED. Afterwards every copy of the current layout
 * holds the outcome committed (the entry, or a hole), a second decision agrees, and fresh readers
 * read it by global and by stream address.
 */
@Execution(ExecutionMode.CONCURRENT)
class ParallelCopiesTest {
  private static final List<Endpoint> STREAM_REPLICAS =
      List.of(InJvmCluster.STREAM_A, InJvmCluster.STREAM_B, InJvmCluster.STREAM_C);

  InJvmCluster cluster;

  @BeforeEach
  void start() {
    cluster = InJvmCluster.threeStreamReplicas();
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  /** Every subset of the five copies (a bit per visit), with no removal or one of each replica. */
  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (int held = 0; held < 32; held++) {
      out.add(Arguments.of(held, null));
      for (Endpoint removed : STREAM_REPLICAS) {
        out.add(Arguments.of(held, removed));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "copies held {0}, removed {1}")
  @MethodSource("cases")
  void aDecisionEndsWithTheRulesOutcomeEverywhere(int held, Endpoint removed) throws Exception {
    ClusterStreamLog writer = cluster.client();
    ReplicaClient ops = writer.ops();
    StreamId stream = StreamId.of("parallel-copies");
    Token token = ops.token(List.of(stream), null, 1).join().token(0);
    LogEntryMsg entry =
        ChainWriter.dataEntry(
            token, ByteString.copyFromUtf8("entry"), cluster.layout().epoch(), 0x9a7a_11L);
    ChainPlan written = ChainPlan.of(cluster.layout(), entry.getGlobalAddress(), List.of(stream));
    assertThat(written.visits()).hasSize(5);
    List<Endpoint> holding = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      if ((held & (1 << i)) == 0) {
        continue;
      }
      ChainPlan.Visit v = written.visits().get(i);
      if (v.role() == ChainPlan.Role.LOG) {
        ops.logWrite(v.endpoint(), entry, false).join();
      } else {
        ops.streamWrite(v.endpoint(), entry, List.copyOf(entry.getSlotsList()), false).join();
        holding.add(v.endpoint());
      }
    }
    boolean logHeld = (held & 0b11) == 0b11;
    if (removed != null) {
      cluster.changeLayout(cluster.withoutNode(removed));
    }
    Layout now = cluster.layout();
    ChainPlan deciding = ChainPlan.of(now, entry.getGlobalAddress(), List.of(stream));
    Endpoint decider = deciding.last().endpoint();
    List<Endpoint> streamChain = now.streamChain(stream);
    ChainWriter.Outcome expected;
    if (!holding.contains(decider)) {
      expected = ChainWriter.Outcome.ABORTED;
    } else if (removed == null) {
      expected = ChainWriter.Outcome.COMMITTED; // missing copies are written by the decision
    } else {
      // Sealed: nothing is written any more; every copy of the new plan must hold it already.
      expected =
          logHeld && holding.containsAll(streamChain)
              ? ChainWriter.Outcome.COMMITTED
              : ChainWriter.Outcome.ABORTED;
    }

    ClusterStreamLog first = cluster.client();
    ChainWriter.Outcome outcome =
        new ChainWriter(first.ops()).decide(entry).get(10, TimeUnit.SECONDS);
    assertThat(outcome).as("the decision").isEqualTo(expected);
    ClusterStreamLog second = cluster.client();
    assertThat(new ChainWriter(second.ops()).decide(entry).get(10, TimeUnit.SECONDS))
        .as("a second decision")
        .isEqualTo(expected);

    boolean committed = expected == ChainWriter.Outcome.COMMITTED;
    for (Endpoint e : now.logChain(entry.getGlobalAddress())) {
      assertSlot(
          ops.logRead(e, entry.getGlobalAddress(), entry.getGlobalAddress()).join().get(0),
          committed,
          "log copy at " + e);
    }
    long slot = token.getSlots(0).getStreamAddress();
    for (Endpoint e : streamChain) {
      assertSlot(ops.streamRead(e, stream, slot, slot).join().get(0), committed, "copy at " + e);
    }
    ClusterStreamLog reader =
        cluster.client(StreamLogOptions.defaults().withRepairAfter(Duration.ofMillis(20)));
    assertThat(byGlobal(reader, entry.getGlobalAddress()))
        .as("read by global address")
        .isEqualTo(committed ? "entry" : "HOLE");
    assertThat(byStream(reader, stream, slot))
        .as("read by stream address")
        .isEqualTo(committed ? "entry" : "HOLE");
  }

  /**
   * The entry's value, or HOLE. An address no surviving replica held before the new sequencer
   * bootstrapped lies beyond the tail it reads (the slot holds no entry, which is what a hole
   * says).
   */
  private static String byGlobal(ClusterStreamLog reader, long address) throws Exception {
    try {
      GlobalEntry g = reader.readGlobal(address).get(10, TimeUnit.SECONDS);
      return g.isHole() ? "HOLE" : new String(g.payload(), StandardCharsets.UTF_8);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IllegalArgumentException
          && e.getCause().getMessage().contains("beyond the log tail")) {
        return "HOLE";
      }
      throw e;
    }
  }

  /** The slot's value, or HOLE (also for a stream no surviving stream replica ever held). */
  private static String byStream(ClusterStreamLog reader, StreamId stream, long slot)
      throws Exception {
    try {
      StreamEntry s = reader.readStream(stream, slot, slot).get(10, TimeUnit.SECONDS).get(0);
      return s.isHole() ? "HOLE" : new String(s.payload(), StandardCharsets.UTF_8);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownStreamException) {
        return "HOLE";
      }
      throw e;
    }
  }

  /** A copy holds the outcome, committed: the entry, or a hole. */
  private static void assertSlot(ReadResult r, boolean committed, String what) {
    assertThat(r.getStatus()).as(what + ": committed").isEqualTo(ReadResult.Status.COMMITTED);
    assertThat(r.getEntry().getKind())
        .as(what + ": what it holds")
        .isEqualTo(committed ? EntryKind.DATA : EntryKind.HOLE);
  }
}
