package io.vcorfu.client.chain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.GlobalEntry;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.client.testing.InJvmCluster;
import io.vcorfu.layout.ChainPlan;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.UnknownStreamException;
import io.vcorfu.protocol.inmemory.FaultRule;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Token;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A decision survives any two removals from a deciding chain of three, even when the writer died
 * part way through its chain and the party aborting the entry died part way through its abort.
 *
 * <p>Every combination is tried: the writer wrote the first {@code written} visits of the plan
 * {@code [log-a, log-b, stream-a, stream-b, stream-c]}; an aborter left its uncommitted hole at
 * {@code stream-c} and got {@code replaced} of its later fills through before it died; then two
 * stream replicas are removed, one layout change each, and after each change fresh readers read the
 * slot by global and by stream address. Every reader, after either change, must see the same
 * outcome (the entry or a hole).
 *
 * <p>Each case has a cluster of its own and mostly waits (an aborter's request timeout, readers'
 * repair delay), so the cases run concurrently.
 */
@Execution(ExecutionMode.CONCURRENT)
class AbortOrderTest {
  private static final List<Endpoint> STREAM_REPLICAS =
      List.of(InJvmCluster.STREAM_A, InJvmCluster.STREAM_B, InJvmCluster.STREAM_C);
  private static final Duration REPAIR_AFTER = Duration.ofMillis(20);

  InJvmCluster cluster;

  @BeforeEach
  void start() {
    cluster = InJvmCluster.threeStreamReplicas();
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (int streams = 1; streams <= 2; streams++) {
      // Copies an abort replaces before it commits the decider's hole: the two log copies and
      // the slots of the two stream visits before the decider.
      int copies = 2 + 2 * streams;
      for (int written = 1; written <= 4; written++) {
        for (int replaced = 0; replaced <= copies; replaced++) {
          for (Endpoint first : STREAM_REPLICAS) {
            for (Endpoint second : STREAM_REPLICAS) {
              if (!first.equals(second)) {
                out.add(Arguments.of(streams, written, replaced, first, second));
              }
            }
          }
        }
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} streams, written {1}, replaced {2}, removed {3} then {4}")
  @MethodSource("cases")
  void aDecisionSurvivesTwoRemovals(
      int streamCount, int written, int replaced, Endpoint first, Endpoint second)
      throws Exception {
    ClusterStreamLog writer = cluster.client();
    ReplicaClient ops = writer.ops();
    List<StreamId> streams =
        streamCount == 1
            ? List.of(StreamId.of("abort-order"))
            : List.of(StreamId.of("abort-order"), StreamId.of("abort-order-2"));
    Token token = ops.token(streams, null, 1).join().token(0);
    LogEntryMsg entry =
        ChainWriter.dataEntry(
            token, ByteString.copyFromUtf8("entry"), cluster.layout().epoch(), 0x0ab0_47L);
    ChainPlan plan = ChainPlan.of(cluster.layout(), entry.getGlobalAddress(), streams);
    assertThat(plan.visits()).hasSize(5);
    for (int i = 0; i < written; i++) {
      ChainPlan.Visit v = plan.visits().get(i);
      if (v.role() == ChainPlan.Role.LOG) {
        ops.logWrite(v.endpoint(), entry, false).join();
      } else {
        ops.streamWrite(v.endpoint(), entry, List.copyOf(entry.getSlotsList()), false).join();
      }
    }

    // The aborter: its first fill (which leaves the uncommitted hole at the decider) goes through,
    // then `replaced` more, then it is gone.
    AtomicInteger later = new AtomicInteger();
    FaultRule dies =
        cluster
            .inJvmTransport()
            .faults()
            .add(
                FaultRule.requests()
                    .ofCase(Request.PayloadCase.LOG_FILL, Request.PayloadCase.STREAM_FILL)
                    .when(q -> changes(q) && later.getAndIncrement() >= replaced)
                    .drop());
    ClusterStreamLog aborter =
        cluster.client(
            StreamLogOptions.defaults()
                .withRpc(ClientOptions.defaults().withRequestTimeout(Duration.ofMillis(100))));
    assertThatThrownBy(() -> new ChainWriter(aborter.ops()).decide(entry).get(10, TimeUnit.SECONDS))
        .as("the aborter dies before it commits its hole")
        .isNotNull();
    cluster.inJvmTransport().faults().remove(dies);
    aborter.close();

    cluster.changeLayout(cluster.withoutNode(first));
    Set<String> afterFirst = outcomes(streams, token);
    cluster.changeLayout(cluster.withoutNode(second));
    Set<String> afterSecond = outcomes(streams, token);

    assertThat(afterFirst).as("readers after the first removal agree").hasSize(1);
    assertThat(afterSecond)
        .as("the decision readers saw survives the second removal")
        .isEqualTo(afterFirst);
  }

  /** A fill that changes what a slot holds for good: an abort-fill or a commit of a hole. */
  private static boolean changes(Request q) {
    return switch (q.getPayloadCase()) {
      case LOG_FILL -> q.getLogFill().getAbort() || q.getLogFill().getCommit();
      case STREAM_FILL -> q.getStreamFill().getAbort() || q.getStreamFill().getCommit();
      default -> false;
    };
  }

  /**
   * The slot as a stream reader sees it. A stream no surviving stream replica ever held is unknown
   * to the new sequencer too (its tails come from the stream replicas), so reading it fails with
   * {@link UnknownStreamException}: the slot holds no entry, which is what a hole says.
   */
  private static String streamSlot(ClusterStreamLog reader, StreamId stream, long address)
      throws Exception {
    try {
      StreamEntry s = reader.readStream(stream, address, address).get(10, TimeUnit.SECONDS).get(0);
      return s.isHole() ? "HOLE" : new String(s.payload(), StandardCharsets.UTF_8);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownStreamException) {
        return "HOLE";
      }
      throw e;
    }
  }

  /** What two fresh readers make of the entry, by global address and by each stream slot. */
  private Set<String> outcomes(List<StreamId> streams, Token token) throws Exception {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 2; i++) {
      ClusterStreamLog reader =
          cluster.client(StreamLogOptions.defaults().withRepairAfter(REPAIR_AFTER));
      // Stream slots first in one reader, the global address first in the other.
      if (i == 1) {
        GlobalEntry g = reader.readGlobal(token.getGlobalAddress()).get(10, TimeUnit.SECONDS);
        seen.add(g.isHole() ? "HOLE" : new String(g.payload(), StandardCharsets.UTF_8));
      }
      for (int k = 0; k < streams.size(); k++) {
        seen.add(streamSlot(reader, streams.get(k), token.getSlots(k).getStreamAddress()));
      }
      if (i == 0) {
        GlobalEntry g = reader.readGlobal(token.getGlobalAddress()).get(10, TimeUnit.SECONDS);
        seen.add(g.isHole() ? "HOLE" : new String(g.payload(), StandardCharsets.UTF_8));
      }
      reader.close();
    }
    return seen;
  }
}
