package io.vcorfu.client.chain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.client.testing.ChainFaults;
import io.vcorfu.client.testing.InJvmCluster;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.inmemory.FaultRule;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.protocol.proto.Request;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Trimming the stream whose replica decides a multi-stream entry never turns the entry into a hole
 * on its other streams, and never makes its writer append it twice (see {@code ChainWriter}).
 */
class TrimmedDeciderTest {
  private static final Duration REPAIR_AFTER = Duration.ofMillis(150);

  InJvmCluster cluster;
  InJvmTransport transport;
  List<StreamId> streams;
  StreamId earlier;
  StreamId deciding;
  Endpoint decider;

  @BeforeEach
  void start() {
    cluster = InJvmCluster.fiveNodes();
    transport = (InJvmTransport) cluster.transport();
    ClusterStreamLog probe = cluster.client();
    streams = ChainFaults.earlierAndDeciding(probe.layout().current(), "trimmed-decider");
    earlier = streams.get(0);
    deciding = streams.get(1);
    List<Endpoint> chain = probe.layout().current().streamChain(deciding);
    decider = chain.get(chain.size() - 1);
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  private ClusterStreamLog client(Duration requestTimeout) {
    return client(requestTimeout, StreamLogOptions.DEFAULT_FAILOVER_TIMEOUT);
  }

  private ClusterStreamLog client(Duration requestTimeout, Duration failoverTimeout) {
    return cluster.client(
        StreamLogOptions.defaults()
            .withRepairAfter(REPAIR_AFTER)
            .withRpc(ClientOptions.defaults().withRequestTimeout(requestTimeout))
            .withFailoverTimeout(failoverTimeout));
  }

  private static String text(StreamEntry e) {
    return e.isHole() ? "HOLE" : new String(e.payload(), StandardCharsets.UTF_8);
  }

  @Test
  void trimmingTheDecidingStreamKeepsTheEntryOnItsOtherStream() throws Exception {
    // The writer's commits (sent on their own: no later write carries them) are lost: the entry
    // is committed only by the decision of the first reader of the deciding stream.
    FaultRule dropCommits = ChainFaults.dropCommitMessages(transport);
    ClusterStreamLog writer = client(Duration.ofSeconds(1));
    AppendResult r = writer.append(streams, "atomic".getBytes(StandardCharsets.UTF_8)).join();
    await().atMost(Duration.ofSeconds(5)).until(() -> dropCommits.hits() >= 2);
    transport.faults().remove(dropCommits);

    long onDeciding = r.streamAddresses().get(deciding);
    ClusterStreamLog deciderReader = client(Duration.ofSeconds(2));
    assertThat(text(deciderReader.readStream(deciding, onDeciding, onDeciding).join().get(0)))
        .isEqualTo("atomic");

    client(Duration.ofSeconds(2)).trimStream(deciding, onDeciding + 1).get(10, TimeUnit.SECONDS);

    // A fresh reader of the other stream, and of the log, still sees the committed entry.
    ClusterStreamLog reader = client(Duration.ofSeconds(2));
    long onEarlier = r.streamAddresses().get(earlier);
    assertThat(
            text(reader.readStream(earlier, onEarlier, onEarlier).get(10, TimeUnit.SECONDS).get(0)))
        .isEqualTo("atomic");
    var global = reader.readGlobal(r.globalAddress()).get(10, TimeUnit.SECONDS);
    assertThat(global.isHole()).isFalse();
    assertThat(new String(global.payload(), StandardCharsets.UTF_8)).isEqualTo("atomic");
  }

  @Test
  void writerWhoseDecidingReplyWasLostBeforeATrimIsToldCommitted() throws Exception {
    AtomicBoolean trimmed = new AtomicBoolean();
    AtomicLong firstGlobal = new AtomicLong(-1);
    // The decider takes the write, but its answers are lost until the deciding stream is trimmed.
    FaultRule loseReplies =
        transport
            .faults()
            .add(
                FaultRule.responses()
                    .to(decider)
                    .ofCase(Request.PayloadCase.CHAIN_WRITE)
                    .when(
                        q -> {
                          firstGlobal.compareAndSet(
                              -1, q.getChainWrite().getEntry().getGlobalAddress());
                          return !trimmed.get();
                        })
                    .drop());
    ClusterStreamLog writer = client(Duration.ofSeconds(1));
    CompletableFuture<AppendResult> append =
        writer.append(streams, "once".getBytes(StandardCharsets.UTF_8));
    await().atMost(Duration.ofSeconds(5)).until(() -> loseReplies.hits() >= 1);

    // The deciding stream's first slot (address 0) holds the entry: trim it away.
    client(Duration.ofSeconds(2)).trimStream(deciding, 1).get(10, TimeUnit.SECONDS);
    trimmed.set(true);

    AppendResult r = append.get(20, TimeUnit.SECONDS);
    transport.faults().remove(loseReplies);
    assertThat(r.globalAddress()).as("the entry the decider took").isEqualTo(firstGlobal.get());
    ClusterStreamLog reader = client(Duration.ofSeconds(2));
    assertThat(ChainFaults.copiesInLog(reader, "once"))
        .as("copies of the entry in the log")
        .isEqualTo(1);
    long onEarlier = r.streamAddresses().get(earlier);
    assertThat(
            text(reader.readStream(earlier, onEarlier, onEarlier).get(10, TimeUnit.SECONDS).get(0)))
        .isEqualTo("once");
  }

  @Test
  void aTrimThatCannotCommitEveryCopyTrimsNothing() throws Exception {
    FaultRule dropCommits =
        transport
            .faults()
            .add(
                FaultRule.requests()
                    .ofCase(Request.PayloadCase.LOG_COMMIT, Request.PayloadCase.STREAM_COMMIT)
                    .drop());
    ClusterStreamLog writer = client(Duration.ofMillis(500));
    AppendResult r = writer.append(streams, "kept".getBytes(StandardCharsets.UTF_8)).join();
    long onDeciding = r.streamAddresses().get(deciding);

    // Lost commits look like a node that does not answer: the trim retries them for its failover
    // timeout, then fails.
    CompletableFuture<Long> trim =
        client(Duration.ofMillis(200), Duration.ofSeconds(1)).trimStream(deciding, onDeciding + 1);
    assertThat(trim)
        .failsWithin(Duration.ofSeconds(10))
        .withThrowableOfType(java.util.concurrent.ExecutionException.class)
        .withCauseInstanceOf(io.vcorfu.protocol.RpcTimeoutException.class)
        .withMessageContaining("retried for");
    transport.faults().remove(dropCommits);

    ClusterStreamLog reader = client(Duration.ofSeconds(2));
    assertThat(
            text(
                reader
                    .readStream(deciding, onDeciding, onDeciding)
                    .get(10, TimeUnit.SECONDS)
                    .get(0)))
        .as("the deciding stream was not trimmed")
        .isEqualTo("kept");
    long onEarlier = r.streamAddresses().get(earlier);
    assertThat(
            text(reader.readStream(earlier, onEarlier, onEarlier).get(10, TimeUnit.SECONDS).get(0)))
        .isEqualTo("kept");
  }

  @Test
  void anEntryWhoseDecidingSlotWasFilledAndTrimmedIsAbortedEverywhere() throws Exception {
    ClusterStreamLog setup = client(Duration.ofSeconds(2));
    var ops = setup.ops();
    // A committed entry first, so the deciding stream exists on its replica.
    setup.append(List.of(deciding), "before".getBytes(StandardCharsets.UTF_8)).join();
    var token = ops.token(streams, null, 1).join().token(0);
    var e =
        io.vcorfu.client.chain.ChainWriter.dataEntry(
            token,
            com.google.protobuf.ByteString.copyFromUtf8("stalled"),
            setup.layout().current().epoch(),
            0x5eed_0007L);
    var plan =
        io.vcorfu.layout.ChainPlan.of(setup.layout().current(), e.getGlobalAddress(), streams);
    // The writer wrote the log copy and the earlier stream's copy, then stalled; a reader filled
    // the deciding slot, and the deciding stream was trimmed past it.
    ops.logWrite(plan.visits().get(0).endpoint(), e, false).join();
    var middle = plan.visits().get(1);
    var earlierSlot =
        e.getSlotsList().stream()
            .filter(x -> io.vcorfu.protocol.StreamId.fromMsg(x.getStream()).equals(earlier))
            .findFirst()
            .orElseThrow();
    var decidingSlot =
        e.getSlotsList().stream()
            .filter(x -> io.vcorfu.protocol.StreamId.fromMsg(x.getStream()).equals(deciding))
            .findFirst()
            .orElseThrow();
    ops.streamWrite(middle.endpoint(), e, List.of(earlierSlot), false).join();
    ops.streamFill(decider, deciding, decidingSlot.getStreamAddress(), false, 0).join();
    setup.trimStream(deciding, decidingSlot.getStreamAddress() + 1).get(10, TimeUnit.SECONDS);

    ClusterStreamLog reader = client(Duration.ofSeconds(2));
    long onEarlier = earlierSlot.getStreamAddress();
    assertThat(
            text(reader.readStream(earlier, onEarlier, onEarlier).get(10, TimeUnit.SECONDS).get(0)))
        .isEqualTo("HOLE");
    assertThat(reader.readGlobal(e.getGlobalAddress()).get(10, TimeUnit.SECONDS).isHole()).isTrue();
  }
}
