package io.vcorfu.client.read;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.GlobalEntry;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.client.chain.ChainWriter;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.client.testing.ChainFaults;
import io.vcorfu.client.testing.InJvmCluster;
import io.vcorfu.layout.ChainPlan;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.inmemory.FaultRule;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.Token;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A writer that dies at each step of the write path: readers finish within a bound of the repair
 * delay, and every reader (by global address and by stream address) sees the same outcome.
 */
class WriterFailureRepairTest {
  private static final Duration REPAIR_AFTER = Duration.ofMillis(150);

  /** Generous multiple of the repair delay: readers must finish well inside it. */
  private static final long READER_BOUND_MS = 5_000;

  InJvmCluster cluster;
  ClusterStreamLog log;
  ReplicaClient ops;

  @BeforeEach
  void start() {
    cluster = InJvmCluster.fiveNodes();
    log = cluster.client(StreamLogOptions.defaults().withRepairAfter(REPAIR_AFTER));
    ops = log.ops();
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  private LogEntryMsg entryFor(Token token, String value) {
    return ChainWriter.dataEntry(
        token, ByteString.copyFromUtf8(value), log.layout().current().epoch(), 0x5eed_0001L);
  }

  private ChainPlan plan(LogEntryMsg e, List<StreamId> streams) {
    return ChainPlan.of(log.layout().current(), e.getGlobalAddress(), streams);
  }

  /** What every reader concluded: the value, or null for a hole. */
  private Set<String> outcomes(List<StreamId> streams, Token token) throws Exception {
    List<ClusterStreamLog> readers =
        List.of(
            log,
            cluster.client(StreamLogOptions.defaults().withRepairAfter(REPAIR_AFTER)),
            cluster.client(StreamLogOptions.defaults().withRepairAfter(REPAIR_AFTER)));
    List<CompletableFuture<String>> views = new ArrayList<>();
    for (ClusterStreamLog r : readers) {
      views.add(r.readGlobal(token.getGlobalAddress()).thenApply(WriterFailureRepairTest::text));
      for (int i = 0; i < streams.size(); i++) {
        long address = token.getSlots(i).getStreamAddress();
        views.add(r.readStream(streams.get(i), address, address).thenApply(l -> text(l.get(0))));
      }
    }
    Set<String> seen = new HashSet<>();
    for (CompletableFuture<String> v : views) {
      seen.add(v.get(READER_BOUND_MS, TimeUnit.MILLISECONDS));
    }
    return seen;
  }

  private static String text(GlobalEntry e) {
    return e.isHole() ? "HOLE" : new String(e.payload(), StandardCharsets.UTF_8);
  }

  private static String text(StreamEntry e) {
    return e.isHole() ? "HOLE" : new String(e.payload(), StandardCharsets.UTF_8);
  }

  @Test
  void writerDiesAfterTokenLeavesAHoleEveryoneAgreesOn() throws Exception {
    List<StreamId> streams = List.of(StreamId.of("after-token"));
    Token token = ops.token(streams, null, 1).join().token(0);

    assertThat(outcomes(streams, token)).containsExactly("HOLE");
    // The stream goes on: the next append lands right after the hole.
    var next = log.append(streams, "next".getBytes(StandardCharsets.UTF_8)).join();
    assertThat(next.streamAddresses().get(streams.get(0)))
        .isEqualTo(token.getSlots(0).getStreamAddress() + 1);
  }

  /**
   * An old slot whose writer died is decided from the stream's next entry back, not from the
   * stream's tail: a few log reads, however long the stream has grown since.
   */
  @Test
  void anOldEmptySlotIsDecidedFromTheNextEntryNotTheTail() throws Exception {
    List<StreamId> streams = List.of(StreamId.of("old-slot"));
    Token token = ops.token(streams, null, 1).join().token(0);
    for (int i = 0; i < 300; i++) {
      log.append(streams, ("after-" + i).getBytes(StandardCharsets.UTF_8)).join();
    }
    ClusterStreamLog reader =
        cluster.client(StreamLogOptions.defaults().withRepairAfter(REPAIR_AFTER));
    long address = token.getSlots(0).getStreamAddress();

    StreamEntry read =
        reader
            .readStream(streams.get(0), address, address)
            .get(READER_BOUND_MS, TimeUnit.MILLISECONDS)
            .get(0);

    assertThat(read.isHole()).isTrue();
    assertThat(reader.logReadsForStreamRepairs()).as("log reads to decide it").isLessThan(5);
  }

  @Test
  void writerDiesAfterLogWriteEveryoneAgrees() throws Exception {
    List<StreamId> streams = List.of(StreamId.of("after-log"));
    Token token = ops.token(streams, null, 1).join().token(0);
    LogEntryMsg e = entryFor(token, "half-written");
    ChainPlan p = plan(e, streams);
    ops.logWrite(p.visits().get(0).endpoint(), e, false).join();

    Set<String> seen = outcomes(streams, token);
    assertThat(seen).hasSize(1);
    assertThat(seen).containsAnyOf("HOLE", "half-written");
  }

  /**
   * A stream reader that decides a slot whose writer wrote only the log copy leaves that copy
   * agreeing with its decision, as stored: a stream hole never stands beside a log copy of the
   * entry (were the stream's chain lost, the log would decide that entry committed). Here the
   * reader finishes the write: the log holds the entry, and the stream reads it.
   */
  @Test
  void aStreamSlotIsDecidedAsTheLogCopyIs() throws Exception {
    List<StreamId> streams = List.of(StreamId.of("log-first"));
    Token token = ops.token(streams, null, 1).join().token(0);
    LogEntryMsg e = entryFor(token, "log-only");
    ChainPlan p = plan(e, streams);
    ops.logWrite(p.visits().get(0).endpoint(), e, false).join();

    long address = token.getSlots(0).getStreamAddress();
    StreamEntry read =
        log.readStream(streams.get(0), address, address)
            .get(READER_BOUND_MS, TimeUnit.MILLISECONDS)
            .get(0);
    var copy =
        ops.logRead(p.visits().get(0).endpoint(), e.getGlobalAddress(), e.getGlobalAddress())
            .join()
            .get(0);

    assertThat(read.isHole()).isFalse();
    assertThat(text(read)).isEqualTo("log-only");
    assertThat(copy.getEntry().getKind())
        .as("the log's copy of the entry, read as stored")
        .isEqualTo(io.vcorfu.protocol.proto.EntryKind.DATA);
    assertThat(outcomes(streams, token)).containsExactly("log-only");
  }

  @Test
  void writerDiesBeforeCommitsReadersFinishTheCommit() throws Exception {
    List<StreamId> streams = List.of(StreamId.of("before-commit"));
    Token token = ops.token(streams, null, 1).join().token(0);
    LogEntryMsg e = entryFor(token, "decided");
    ChainPlan p = plan(e, streams);
    ops.logWrite(p.visits().get(0).endpoint(), e, false).join();
    ops.streamWrite(p.last().endpoint(), e, List.copyOf(e.getSlotsList()), true).join();

    // The last replica holds it: the entry committed, and every reader must say so.
    assertThat(outcomes(streams, token)).containsExactly("decided");
  }

  @Test
  void multiStreamWriterDiesMidChainEveryoneAgrees() throws Exception {
    Layout layout = log.layout().current();
    StreamId first = StreamId.of("mid-0");
    StreamId second = null;
    for (int i = 1; second == null; i++) {
      StreamId candidate = StreamId.of("mid-" + i);
      if (!layout.streamChain(candidate).equals(layout.streamChain(first))) {
        second = candidate;
      }
    }
    List<StreamId> streams = List.of(first, second);
    Token token = ops.token(streams, null, 1).join().token(0);
    LogEntryMsg e = entryFor(token, "mid-chain");
    ChainPlan p = plan(e, streams);
    assertThat(p.visits()).hasSize(3);
    ops.logWrite(p.visits().get(0).endpoint(), e, false).join();
    ChainPlan.Visit middle = p.visits().get(1);
    ops.streamWrite(middle.endpoint(), e, slots(e, middle), false).join();

    Set<String> seen = outcomes(streams, token);
    assertThat(seen).hasSize(1);
    assertThat(seen).containsAnyOf("HOLE", "mid-chain");
  }

  @Test
  void lostCommitMessagesAreFinishedByReaders() throws Exception {
    InJvmTransport transport = (InJvmTransport) cluster.transport();
    FaultRule dropCommits = ChainFaults.dropCommitMessages(transport);
    ClusterStreamLog writer =
        cluster.client(
            StreamLogOptions.defaults()
                .withRpc(
                    io.vcorfu.protocol.ClientOptions.defaults()
                        .withRequestTimeout(Duration.ofMillis(200))));
    List<StreamId> streams = List.of(StreamId.of("lost-commit"));
    var r = writer.append(streams, "kept".getBytes(StandardCharsets.UTF_8)).join();
    // The commits go out on their own shortly after the acknowledgement (no later write carries
    // them), and are lost.
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> dropCommits.hits() > 0);
    transport.faults().remove(dropCommits);

    GlobalEntry g = log.readGlobal(r.globalAddress()).get(READER_BOUND_MS, TimeUnit.MILLISECONDS);
    assertThat(text(g)).isEqualTo("kept");
  }

  private static List<io.vcorfu.protocol.proto.StreamSlot> slots(LogEntryMsg e, ChainPlan.Visit v) {
    Set<StreamId> hosted = new HashSet<>(v.streams());
    return e.getSlotsList().stream()
        .filter(s -> hosted.contains(StreamId.fromMsg(s.getStream())))
        .toList();
  }
}
