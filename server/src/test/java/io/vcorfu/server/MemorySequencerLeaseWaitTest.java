package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.sequencer.ReadLeases;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sequencer without a data directory cannot know which read leases it granted before it started.
 * In a multi-node layout the replicas (and so the clients' leased memories) outlive it, so it waits
 * out the longest lease before revealing any token; alone, everything it served is gone with it.
 */
class MemorySequencerLeaseWaitTest {
  private static final Endpoint SEQ = new Endpoint("seq", 9000);
  private static final Endpoint LOG = new Endpoint("log", 9001);
  private static final Endpoint STREAM = new Endpoint("stream", 9002);

  @TempDir Path tmp;

  private static final StreamLogOptions PATIENT =
      StreamLogOptions.defaults()
          .withRpc(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(60)));

  private static long appendMillis(InJvmTransport transport, Endpoint via) {
    try (ClusterStreamLog log = ClusterStreamLog.connect(transport, via, PATIENT)) {
      long start = System.nanoTime();
      log.append(List.of(StreamId.of("s")), "v".getBytes(StandardCharsets.UTF_8)).join();
      return Duration.ofNanos(System.nanoTime() - start).toMillis();
    }
  }

  private Path layout() throws Exception {
    return Files.writeString(
        tmp.resolve("layout.json"),
        """
        {"clusterId": "t", "epoch": 1, "sequencer": "%s",
         "segments": [{"start": 0, "end": -1, "log": [["%s"]], "stream": [["%s"]]}]}
        """
            .formatted(SEQ, LOG, STREAM));
  }

  @Test
  // The try block holds the resource open for its duration; the body does not name it.
  @SuppressWarnings("try")
  void aRestartedMemorySequencerInAMultiNodeLayoutWaitsOutTheLongestLease() throws Exception {
    Path layout = layout();
    try (InJvmTransport transport = new InJvmTransport();
        Node log = Node.start(new NodeConfig(LOG, null, layout, null), transport);
        Node stream = Node.start(new NodeConfig(STREAM, null, layout, null), transport)) {
      long started = System.nanoTime();
      try (Node seq = Node.start(new NodeConfig(SEQ, null, layout, null), transport)) {
        seq.ready().join();
        appendMillis(transport, SEQ);
        long sinceStart = Duration.ofNanos(System.nanoTime() - started).toMillis();
        assertThat(sinceStart).isGreaterThanOrEqualTo(ReadLeases.MAX_LEASE.toMillis());
      }
    }
  }

  @Test
  // The try block holds the resource open for its duration; the body does not name it.
  @SuppressWarnings("try")
  void aMemorySequencerVouchedToStartANewClusterServesAtOnce() throws Exception {
    Path layout = layout();
    try (InJvmTransport transport = new InJvmTransport();
        Node log = Node.start(new NodeConfig(LOG, null, layout, null), transport);
        Node stream = Node.start(new NodeConfig(STREAM, null, layout, null), transport);
        Node seq =
            Node.start(new NodeConfig(SEQ, null, layout, null).withNoEarlierLeases(), transport)) {
      seq.ready().join();
      assertThat(appendMillis(transport, SEQ)).isLessThan(ReadLeases.MAX_LEASE.toMillis());
    }
  }

  @Test
  void aSingleMemoryNodeServesAtOnce() {
    try (InJvmTransport transport = new InJvmTransport();
        Node node = Node.start(NodeConfig.inMemory(SEQ), transport)) {
      node.ready().join();
      assertThat(appendMillis(transport, SEQ)).isLessThan(ReadLeases.MAX_LEASE.toMillis());
    }
  }
}
