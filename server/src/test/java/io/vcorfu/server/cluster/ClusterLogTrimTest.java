package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.ReadResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * In a three-node cluster the manager trims every log replica below the entries of the last
 * seconds, deciding first an address whose token was never written and keeping its hole; a node
 * restarted on a wiped directory afterwards rebuilds what is retained, takes the log's trim mark
 * and its kept holes, and is promoted, every retained entry still readable.
 */
class ClusterLogTrimTest {
  private static final StreamId A = StreamId.of("cluster-trim-a");
  private static final StreamId B = StreamId.of("cluster-trim-b");
  private static final StreamId C = StreamId.of("cluster-trim-c");

  @TempDir Path tmp;

  /** Each of {@code nodes} in the log chain of {@code address} holds a committed hole there. */
  private static void assertKeptHole(ZkCluster c, List<Endpoint> nodes, long address) {
    try (ClusterStreamLog log = c.client(c.endpoints().get(0))) {
      for (Endpoint e : nodes) {
        if (!c.agreed().value().logChain(address).contains(e)) {
          continue;
        }
        ReadResult r = log.ops().logRead(e, address, address).join().get(0);
        assertThat(r.getStatus()).as("%s at %d", e, address).isEqualTo(ReadResult.Status.COMMITTED);
        assertThat(r.getEntry().getKind()).as("%s at %d", e, address).isEqualTo(EntryKind.HOLE);
      }
    }
  }

  private static Endpoint manager(ZkCluster c) {
    return Awaitility.await("a manager")
        .atMost(Duration.ofSeconds(30))
        .until(c::manager, java.util.Optional::isPresent)
        .orElseThrow();
  }

  @Test
  void theManagerTrimsEveryLogReplicaAsTheStreamsAllowAndARebuiltNodeFollows() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, 3)) {
      c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      long abandoned = -1;
      List<AppendResult> a = new ArrayList<>();
      List<AppendResult> b = new ArrayList<>();
      try (ClusterStreamLog log = c.client(c.endpoints().get(0))) {
        for (int i = 0; i < 200; i++) {
          if (i == 100) {
            // A token taken and never written (its writer gone), between two entries of C.
            log.append(List.of(C), new byte[] {1}).join();
            abandoned = log.ops().token(List.of(C), null, 1).join().globalAddress(0);
            log.append(List.of(C), new byte[] {2}).join();
          }
          StreamId s = i % 2 == 0 ? A : B;
          byte[] v = ("v" + i).getBytes(StandardCharsets.UTF_8);
          (s == A ? a : b).add(log.append(List.of(s), v).join());
        }
        log.trimStream(A, a.size()).join();
        log.trimStream(B, 40).join();
      }
      long expected = b.get(39).globalAddress() + 1; // what the trimmed streams reach back to
      long logMark =
          Math.max(a.get(a.size() - 1).globalAddress(), b.get(b.size() - 1).globalAddress()) + 1;
      Endpoint manager = manager(c);
      Awaitility.await("the log trimmed once the entries are a few seconds old")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> c.node(manager).trimLogNow(Duration.ofSeconds(3)), m -> m == logMark);
      for (Endpoint e : c.endpoints()) {
        assertThat(c.node(e).space().getLogTrimMark())
            .as("log trim mark of %s", e)
            .isEqualTo(logMark);
      }
      // The trim decided the abandoned token's address before it passed it, and kept the hole.
      assertKeptHole(c, c.endpoints(), abandoned);

      Endpoint victim =
          c.endpoints().stream().filter(e -> !e.equals(manager)).findFirst().orElseThrow();
      long before = c.agreed().value().epoch();
      c.restartWiped(victim);
      c.awaitLayout(victim + " removed", x -> x.epoch() > before);
      c.awaitLayout(
          victim + " rebuilt and promoted",
          x ->
              x.allServers().contains(victim) && x.rebuilding().isEmpty() && x.removed().isEmpty());
      // Once it follows the layout that promoted it: the log's mark, and the streams' marks with
      // what they trimmed away, so it asks the log to keep no more than the others do.
      Awaitility.await(victim + " takes the chains' trim marks")
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> c.node(victim).space(),
              s -> s.getLogTrimMark() >= logMark && s.getLogNeededFrom() == expected);

      assertKeptHole(c, List.of(victim), abandoned);
      try (ClusterStreamLog log = c.client(victim)) {
        assertThat(log.readStream(C, 0, 2).join())
            .extracting(StreamEntry::isHole)
            .containsExactly(false, true, false);
        List<StreamEntry> kept = log.readStream(B, 40, b.size() - 1).join();
        assertThat(kept).hasSize(b.size() - 40);
        for (int i = 0; i < kept.size(); i++) {
          assertThat(kept.get(i).globalAddress()).isEqualTo(b.get(40 + i).globalAddress());
        }
      }
    }
  }

  /**
   * Three nodes, R = 2 (three log chains, each node serving two): a writer that dies after its
   * stream copies landed and before its log copies did, and a token taken and never written. A
   * reader of the global log is given a hole at the dead writer's address; the trim decides the
   * abandoned token's address, passes both, and keeps their holes on their chain's replicas (each
   * replica passing the other chains' addresses it holds nothing of); a reader of the streams then
   * sees the dead writer's slot as a hole, as the log reader did, and reads past the abandoned
   * slot.
   */
  @Test
  void aDeadWritersCopyStaysAbortedPastTheTrimOverSeveralLogChains() throws Exception {
    StreamId s = StreamId.of("cluster-trim-dead");
    StreamId t = StreamId.of("cluster-trim-abandoned");
    try (ZkCluster c = ZkCluster.start(tmp, 3, 2)) {
      c.awaitLayout("epoch 2", x -> x.epoch() >= 2);
      long dead;
      long abandoned;
      try (ClusterStreamLog log = c.client(c.endpoints().get(0))) {
        log.append(List.of(s), new byte[] {1}).join();
        log.append(List.of(t), new byte[] {1}).join();
        io.vcorfu.protocol.proto.TokenResponse tokens =
            log.ops().token(List.of(s), null, 1).join().toResponse();
        io.vcorfu.protocol.proto.Token token = tokens.getTokens(0);
        dead = token.getGlobalAddress();
        io.vcorfu.protocol.proto.LogEntryMsg entry =
            io.vcorfu.client.chain.ChainWriter.dataEntry(
                token,
                com.google.protobuf.ByteString.copyFromUtf8("dead-writer"),
                tokens.getEpoch(),
                0x5eedL);
        for (Endpoint r : c.agreed().value().streamChain(s)) {
          log.ops().streamWrite(r, entry, token.getSlotsList(), false).join();
        }
        abandoned = log.ops().token(List.of(t), null, 1).join().globalAddress(0);
        log.append(List.of(t), new byte[] {2}).join();
        assertThat(log.readGlobal(dead).join().isHole()).as("the log reader's decision").isTrue();

        Endpoint manager = manager(c);
        long past = Math.max(dead, abandoned);
        Awaitility.await("the log trimmed past " + past)
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(50))
            .until(
                () -> {
                  log.append(List.of(A), new byte[] {9}).join();
                  return c.node(manager).trimLogNow(Duration.ofMillis(200)) > past + 3;
                });
      }
      assertKeptHole(c, c.endpoints(), dead);
      assertKeptHole(c, c.endpoints(), abandoned);
      try (ClusterStreamLog reader = c.client(c.endpoints().get(2))) {
        assertThat(reader.readStream(s, 0, 1).join())
            .extracting(StreamEntry::isHole)
            .containsExactly(false, true);
        assertThat(reader.readStream(t, 0, 2).join())
            .extracting(StreamEntry::isHole)
            .containsExactly(false, true, false);
        assertThat(reader.readGlobal(dead).join().isHole()).isTrue();
      }
    }
  }
}
