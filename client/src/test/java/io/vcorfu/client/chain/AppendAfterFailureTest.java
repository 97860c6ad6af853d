package io.vcorfu.client.chain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.client.AppendOutcomeUnknownException;
import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An append whose chain write fails asks the decider what became of its entry and reports that:
 * success when the entry committed, a fresh attempt when it aborted, and a typed "outcome unknown"
 * error when the decider cannot be asked.
 */
class AppendAfterFailureTest {
  InJvmCluster cluster;
  InJvmTransport transport;
  List<StreamId> streams;
  Endpoint decider;

  @BeforeEach
  void start() {
    cluster = InJvmCluster.fiveNodes();
    transport = (InJvmTransport) cluster.transport();
    ClusterStreamLog probe = cluster.client();
    streams = ChainFaults.earlierAndDeciding(probe.layout().current(), "after-failure");
    List<Endpoint> chain = probe.layout().current().streamChain(streams.get(1));
    decider = chain.get(chain.size() - 1);
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  /** A writer that asks a decider that does not answer again for one second before it gives up. */
  private ClusterStreamLog writer() {
    return cluster.client(
        StreamLogOptions.defaults()
            .withRpc(ClientOptions.defaults().withRequestTimeout(Duration.ofMillis(300)))
            .withFailoverTimeout(Duration.ofSeconds(1)));
  }

  @Test
  void appendWhoseDecidingRepliesAreLostReportsTheCommittedEntry() throws Exception {
    AtomicLong written = new AtomicLong(-1);
    FaultRule loseReplies =
        transport
            .faults()
            .add(
                FaultRule.responses()
                    .to(decider)
                    .ofCase(Request.PayloadCase.CHAIN_WRITE)
                    .when(
                        q -> {
                          written.compareAndSet(
                              -1, q.getChainWrite().getEntry().getGlobalAddress());
                          return true;
                        })
                    .drop());

    AppendResult r =
        writer()
            .append(streams, "acked".getBytes(StandardCharsets.UTF_8))
            .get(20, TimeUnit.SECONDS);

    assertThat(loseReplies.hits()).isPositive();
    transport.faults().remove(loseReplies);
    assertThat(r.globalAddress()).isEqualTo(written.get());
    assertThat(ChainFaults.copiesInLog(cluster.client(), "acked")).isEqualTo(1);
  }

  @Test
  void appendWhoseEntryAbortedAfterAFailureIsRetriedOnce() throws Exception {
    AtomicLong lost = new AtomicLong(-1);
    // The first entry's deciding write never arrives; the decision then finds no entry there.
    FaultRule loseFirstWrite =
        transport
            .faults()
            .add(
                FaultRule.requests()
                    .to(decider)
                    .ofCase(Request.PayloadCase.CHAIN_WRITE)
                    .when(
                        q -> {
                          long g = q.getChainWrite().getEntry().getGlobalAddress();
                          lost.compareAndSet(-1, g);
                          return lost.get() == g;
                        })
                    .drop());

    AppendResult r =
        writer()
            .append(streams, "retried".getBytes(StandardCharsets.UTF_8))
            .get(20, TimeUnit.SECONDS);

    transport.faults().remove(loseFirstWrite);
    assertThat(loseFirstWrite.hits()).isPositive();
    assertThat(r.globalAddress()).isNotEqualTo(lost.get());
    ClusterStreamLog reader = cluster.client();
    assertThat(reader.readGlobal(lost.get()).join().isHole()).isTrue();
    assertThat(ChainFaults.copiesInLog(reader, "retried")).isEqualTo(1);
  }

  @Test
  void appendThatCannotLearnItsOutcomeSaysSo() {
    FaultRule cutDecider =
        transport
            .faults()
            .add(
                FaultRule.requests()
                    .to(decider)
                    .ofCase(Request.PayloadCase.CHAIN_WRITE, Request.PayloadCase.STREAM_FILL)
                    .drop());

    assertThatThrownBy(
            () ->
                writer()
                    .append(streams, "unknown".getBytes(StandardCharsets.UTF_8))
                    .get(20, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(AppendOutcomeUnknownException.class)
        .hasMessageContaining("may or may not have committed")
        .hasMessageContaining("retried for");
    assertThat(cutDecider.hits()).isPositive();
  }
}
