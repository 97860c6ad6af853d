package io.vcorfu.server.views;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.inmemory.FaultRule;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.protocol.proto.Request.PayloadCase;
import io.vcorfu.runtime.Retention;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.example.Counter;
import io.vcorfu.server.InProcessCluster;
import io.vcorfu.server.Node;
import io.vcorfu.server.NodeConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The remote-view host reads the stream replica and sequencer of its own node in process: running
 * remote accessors sends no stream read, stream tail or tail request to the host's own node, and
 * every accessor still returns the state after every update acknowledged before it was called.
 */
class RemoteViewLocalReadsTest {
  /**
   * Runtimes without automatic checkpoints: their background passes ask for tails and read streams,
   * which are not the requests these tests count.
   */
  private static final RuntimeOptions QUIET =
      RuntimeOptions.defaults().withRetention(Retention.OFF);

  private static final Logger LOG = LoggerFactory.getLogger(RemoteViewLocalReadsTest.class);

  @TempDir Path tmp;

  @Test
  void aOneNodeHostAnswersFromItsOwnReplicaAndSequencer() {
    Endpoint node = Endpoint.parse("views-local:9000");
    try (InJvmTransport transport = new InJvmTransport();
        Node started = Node.start(NodeConfig.inMemory(node), transport)) {
      started.ready().join();
      try (VCorfuRuntime writer =
              VCorfuRuntime.using(
                  ClusterStreamLog.connect(transport, node, StreamLogOptions.defaults()), QUIET);
          VCorfuRuntime reader =
              VCorfuRuntime.using(
                  ClusterStreamLog.connect(transport, node, StreamLogOptions.defaults()), QUIET)) {
        Counter local = writer.objects().open("counter", Counter.class);
        Counter remote = reader.objects().builder("counter", Counter.class).remote().open();
        FaultRule selfReads =
            transport
                .faults()
                .add(
                    FaultRule.requests()
                        .to(node)
                        .ofCase(
                            PayloadCase.TAIL,
                            PayloadCase.STREAM_READ,
                            PayloadCase.STREAM_TAIL,
                            PayloadCase.LOG_READ)
                        .delay(Duration.ZERO));
        FaultRule viewCalls =
            transport
                .faults()
                .add(FaultRule.requests().ofCase(PayloadCase.VIEW_CALL).delay(Duration.ZERO));
        long expected = 0;
        for (int i = 0; i < 40; i++) {
          local.add(i);
          expected += i;
          assertThat(remote.get()).as("remote read after update %d", i).isEqualTo(expected);
        }
        assertThat(viewCalls.hits()).as("the accessors ran on the host").isEqualTo(40);
        assertThat(selfReads.hits())
            .as("tail and read requests the host sent to its own node")
            .isZero();
      }
    }
  }

  /**
   * Five nodes: the host of a stream is the last replica of its chain and not the sequencer, so its
   * tails come from the sequencer node over the network, but its stream reads come from its own
   * replica: no stream replica receives a read or tail request at all.
   */
  @Test
  void aStreamReplicaHostReadsItsOwnReplica() {
    long seed = System.nanoTime();
    LOG.info("seed {}", seed);
    Random random = new Random(seed);
    try (InProcessCluster cluster = InProcessCluster.fiveNodes(tmp)) {
      InJvmTransport transport = (InJvmTransport) cluster.transport();
      try (VCorfuRuntime writer =
              VCorfuRuntime.using(
                  ClusterStreamLog.connect(
                      transport, InProcessCluster.SEQUENCER, StreamLogOptions.defaults()),
                  QUIET);
          VCorfuRuntime reader =
              VCorfuRuntime.using(
                  ClusterStreamLog.connect(
                      transport, InProcessCluster.SEQUENCER, StreamLogOptions.defaults()),
                  QUIET)) {
        // Opened (and their names registered: a read of the name directory) before counting.
        long[] expected = new long[4];
        Counter[] local = new Counter[4];
        Counter[] remote = new Counter[4];
        for (int c = 0; c < 4; c++) {
          local[c] = writer.objects().open("counter-" + c, Counter.class);
          remote[c] = reader.objects().builder("counter-" + c, Counter.class).remote().open();
        }
        FaultRule[] replicaReads = new FaultRule[2];
        Endpoint[] replicas = {InProcessCluster.STREAM_A, InProcessCluster.STREAM_B};
        for (int r = 0; r < 2; r++) {
          replicaReads[r] =
              transport
                  .faults()
                  .add(
                      FaultRule.requests()
                          .to(replicas[r])
                          .ofCase(PayloadCase.STREAM_READ, PayloadCase.STREAM_TAIL)
                          .delay(Duration.ZERO));
        }
        FaultRule viewCalls =
            transport
                .faults()
                .add(FaultRule.requests().ofCase(PayloadCase.VIEW_CALL).delay(Duration.ZERO));
        for (int i = 0; i < 60; i++) {
          int c = random.nextInt(4);
          long d = random.nextInt(100);
          local[c].add(d);
          expected[c] += d;
          int asked = random.nextInt(4);
          assertThat(remote[asked].get())
              .as("counter %d after step %d", asked, i)
              .isEqualTo(expected[asked]);
        }
        assertThat(viewCalls.hits()).as("the accessors ran on the hosts").isEqualTo(60);
        assertThat(replicaReads[0].hits() + replicaReads[1].hits())
            .as("stream read and tail requests received by the stream replicas")
            .isZero();
      }
    }
  }
}
