package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.chain.ChainWriter;
import io.vcorfu.protocol.SealedException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.TokenResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sealing on sequencer start, in one JVM over the in-JVM transport with durable nodes: every node
 * learns each new epoch, keeps it across its own restart, and refuses old tokens; a sequencer that
 * lost its own record of the epoch goes above the highest one any node sealed.
 */
class SealTest {
  private static final Path DATA = Path.of("data");

  private static Path dir(Path root, io.vcorfu.protocol.Endpoint e) {
    return root.resolve(e.host() + "-" + e.port());
  }

  private static InProcessCluster cluster(Path tmp) {
    return InProcessCluster.fiveNodes(tmp, tmp.resolve(DATA));
  }

  private static void restart(InProcessCluster c, Path tmp, io.vcorfu.protocol.Endpoint e) {
    c.stopNode(e);
    c.startNode(e, dir(tmp.resolve(DATA), e)).ready().join();
  }

  private static long epochOf(InProcessCluster c, Path tmp, io.vcorfu.protocol.Endpoint e)
      throws Exception {
    // The epoch a node serves after a restart is the one in its layout store.
    try (var store =
        new io.vcorfu.layout.FileLayoutStore(dir(tmp.resolve(DATA), e).resolve("layout.json"))) {
      return store.get().join().value().epoch();
    }
  }

  @Test
  void everyNodeRecordsTheSealedEpochDurablyAndRefusesOldTokensAfterItsOwnRestart(@TempDir Path tmp)
      throws Exception {
    try (InProcessCluster c = cluster(tmp)) {
      ClusterStreamLog log = c.client();
      StreamId s = StreamId.of("sealed");
      log.append(List.of(s), new byte[] {1}).join();
      TokenResponse old = log.ops().token(List.of(s), null, 1).join().toResponse();
      assertThat(old.getEpoch()).as("the first start sealed the file's epoch 1").isEqualTo(2);

      restart(c, tmp, InProcessCluster.SEQUENCER);
      for (var e :
          List.of(
              InProcessCluster.SEQUENCER,
              InProcessCluster.LOG_A,
              InProcessCluster.LOG_B,
              InProcessCluster.STREAM_A,
              InProcessCluster.STREAM_B)) {
        assertThat(epochOf(c, tmp, e)).as("epoch stored by %s", e).isEqualTo(3);
      }
      // A log replica restarts from the layout file (epoch 1) and its store (epoch 3): it keeps 3.
      var logReplica =
          InProcessCluster.LOG_A.equals(
                  log.layout().current().logChain(old.getTokens(0).getGlobalAddress()).get(0))
              ? InProcessCluster.LOG_A
              : InProcessCluster.LOG_B;
      restart(c, tmp, logReplica);
      LogEntryMsg entry =
          ChainWriter.dataEntry(
              old.getTokens(0), ByteString.copyFromUtf8("old"), old.getEpoch(), 99);
      assertThatThrownBy(() -> log.ops().logWrite(logReplica, entry, false).join())
          .isInstanceOf(CompletionException.class)
          .hasCauseInstanceOf(SealedException.class)
          .hasMessageContaining("sequencer restarted");
      assertThat(log.layout().current().epoch())
          .as("the client learnt the new epoch from a node")
          .isEqualTo(3);
      assertThat(log.append(List.of(s), new byte[] {2}).join().streamAddresses().get(s))
          .as("a fresh token after the restart")
          .isEqualTo(1);
    }
  }

  @Test
  void aSequencerThatLostItsEpochSealsAboveTheHighestAnyNodeHolds(@TempDir Path tmp)
      throws Exception {
    try (InProcessCluster c = cluster(tmp)) {
      restart(c, tmp, InProcessCluster.SEQUENCER);
      restart(c, tmp, InProcessCluster.SEQUENCER);
      assertThat(epochOf(c, tmp, InProcessCluster.LOG_B)).isEqualTo(4);
      c.stopNode(InProcessCluster.SEQUENCER);
      try (Stream<Path> files = Files.walk(dir(tmp.resolve(DATA), InProcessCluster.SEQUENCER))) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
      // It starts from the file's epoch 1, proposes 2, hears 4 from the replicas and seals 5.
      c.startNode(InProcessCluster.SEQUENCER, dir(tmp.resolve(DATA), InProcessCluster.SEQUENCER))
          .ready()
          .join();
      for (var e :
          List.of(
              InProcessCluster.SEQUENCER,
              InProcessCluster.LOG_A,
              InProcessCluster.LOG_B,
              InProcessCluster.STREAM_A,
              InProcessCluster.STREAM_B)) {
        assertThat(epochOf(c, tmp, e)).as("epoch stored by %s", e).isEqualTo(5);
      }
      ClusterStreamLog log = c.client();
      assertThat(log.ops().token(List.of(StreamId.of("x")), null, 1).join().epoch()).isEqualTo(5);
    }
  }
}
