package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.google.protobuf.ByteString;
import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.GlobalEntry;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.client.Tails;
import io.vcorfu.client.chain.ChainWriter;
import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.Token;
import io.vcorfu.protocol.proto.TokenResponse;
import io.vcorfu.runtime.TransactionAbortedException;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.example.Counter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sequencer killed with SIGKILL and restarted while a writer holds a token it has not written yet
 * and a transaction has taken its snapshot: the restart fences every token issued before it. The
 * stalled writer's write is rejected (or, had it landed before the fence, the rebuilt tails cover
 * it), tails never fall below an acknowledged write, no global address ends up with two writers'
 * data, and the transaction aborts saying the sequencer restarted since its snapshot.
 */
class SequencerRestartFenceTest {
  private static final StreamId RAW = StreamId.of("fence-raw");

  @Test
  void fiveProcessLayoutFencesTokensIssuedBeforeASequencerKillNine(@TempDir Path tmp)
      throws Exception {
    int[] ports = new int[5];
    Endpoint[] e = new Endpoint[5];
    for (int i = 0; i < 5; i++) {
      ports[i] = ServerProcess.freePort();
      e[i] = new Endpoint("127.0.0.1", ports[i]);
    }
    Path layout =
        Files.writeString(
            tmp.resolve("layout.json"),
            InProcessCluster.fiveNodeLayout(e[0], e[1], e[2], e[3], e[4]));
    List<ServerProcess> servers = new ArrayList<>();
    try {
      for (int i = 0; i < 5; i++) {
        servers.add(ServerProcess.start(ports[i], tmp.resolve("n" + i), layout));
      }
      for (ServerProcess s : servers) {
        s.awaitReady();
      }
      scenario(
          e[0], servers.get(0), () -> ServerProcess.start(ports[0], tmp.resolve("n0"), layout));
    } finally {
      for (ServerProcess s : servers) {
        s.close();
      }
    }
  }

  @Test
  void singleDurableNodeFencesTokensIssuedBeforeItsKillNine(@TempDir Path tmp) throws Exception {
    int port = ServerProcess.freePort();
    ServerProcess first = ServerProcess.start(port, tmp.resolve("node"), null).awaitReady();
    try {
      scenario(first.endpoint(), first, () -> ServerProcess.start(port, tmp.resolve("node"), null));
    } finally {
      first.close();
    }
  }

  /**
   * A client holding a read lease learns the new epoch (from the restarted node, which seals before
   * it waits out the leases it may have granted) while its lease granted before the restart still
   * answers tails from memory: a transaction begun then has a snapshot from before the restart, and
   * aborts saying so.
   */
  @Test
  // The try block holds the resource open for its duration; the body does not name it.
  @SuppressWarnings("try")
  void aLeaseHoldersSnapshotFromBeforeTheRestartAbortsEvenIfTakenAfterItLearntTheNewEpoch(
      @TempDir Path tmp) throws Exception {
    int port = ServerProcess.freePort();
    ServerProcess first = ServerProcess.start(port, tmp.resolve("node"), null).awaitReady();
    StreamLogOptions leased =
        StreamLogOptions.defaults()
            .withReadLease(Duration.ofSeconds(12))
            .withRpc(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(40)));
    try (NettyTransport transport = new NettyTransport()) {
      ClusterStreamLog log = ClusterStreamLog.connect(transport, first.endpoint(), leased);
      VCorfuRuntime rt = VCorfuRuntime.using(log); // closes the log
      try (rt) {
        Counter counter = rt.objects().open("leased-counter", Counter.class);
        counter.add(1);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(log::holdsReadLease);
        long before = log.layout().current().epoch();

        first.kill9();
        try (ServerProcess restarted =
            ServerProcess.start(port, tmp.resolve("node"), null).awaitReady()) {
          assertThat(log.layout().refresh().join().epoch())
              .as("the restarted node sealed a new epoch")
              .isGreaterThan(before);
          assertThat(log.holdsReadLease())
              .as("the lease granted before the restart is still running")
              .isTrue();
          rt.TXBegin();
          assertThat(counter.get()).isEqualTo(1);
          counter.add(5);
          Throwable aborted = catchThrowable(rt::TXEnd);
          assertThat(aborted).isInstanceOf(TransactionAbortedException.class);
          assertThat(((TransactionAbortedException) aborted).reason().name())
              .isEqualTo("SEQUENCER_RESTARTED");
          counter.add(2);
          assertThat(counter.get()).isEqualTo(3);
        }
      }
    } finally {
      first.close();
    }
  }

  // The try block holds the resource open for its duration; the body does not name it.
  @SuppressWarnings("try")
  private static void scenario(
      Endpoint seed, ServerProcess sequencer, Supplier<ServerProcess> restart) throws Exception {
    try (NettyTransport transport = new NettyTransport();
        VCorfuRuntime rt =
            VCorfuRuntime.using(
                ClusterStreamLog.connect(transport, seed, StreamLogOptions.defaults()));
        ClusterStreamLog log =
            ClusterStreamLog.connect(transport, seed, StreamLogOptions.defaults())) {
      Counter counter = rt.objects().open("fence-counter", Counter.class);
      counter.add(1);
      counter.add(2);
      Map<Long, String> acknowledged = new HashMap<>();
      AppendResult before = append(log, "before-0", acknowledged);
      before = append(log, "before-1", acknowledged);

      // Transaction A takes its snapshot and reads the counter.
      rt.TXBegin();
      assertThat(counter.get()).isEqualTo(3);

      // Writer W takes a token and stalls before writing it.
      TokenResponse wToken = log.ops().token(List.of(RAW), null, 1).join().toResponse();
      Token token = wToken.getTokens(0);
      long wGlobal = token.getGlobalAddress();
      long wStream = token.getSlots(0).getStreamAddress();
      assertThat(wStream).isEqualTo(before.streamAddresses().get(RAW) + 1);

      sequencer.kill9();
      try (ServerProcess restarted = restart.get().awaitReady()) {
        // W wakes up and writes with its old token.
        LogEntryMsg wEntry =
            ChainWriter.dataEntry(
                token, ByteString.copyFromUtf8("stalled-writer"), wToken.getEpoch(), 0x5eed1L);
        ChainWriter.Outcome outcome;
        Throwable wError = null;
        try {
          outcome = new ChainWriter(log.ops()).drive(wEntry).join();
        } catch (CompletionException ex) {
          outcome = null;
          wError = EpochRpc.unwrap(ex);
        }
        boolean wCommitted = outcome == ChainWriter.Outcome.COMMITTED;
        assertThat(wCommitted)
            .as(
                "a token issued before the restart, not written before it, is rejected after it"
                    + " (error: %s)",
                wError)
            .isFalse();

        // A fresh reader: its tails cover every acknowledged write, and W's entry had it landed.
        try (ClusterStreamLog fresh =
            ClusterStreamLog.connect(transport, seed, StreamLogOptions.defaults())) {
          Tails t = fresh.tails(List.of(RAW)).join();
          assertThat(t.globalTail())
              .as("global tail after the restart")
              .isGreaterThanOrEqualTo(before.globalAddress());
          assertThat(t.streamTails().get(RAW))
              .as("stream tail after the restart")
              .isGreaterThanOrEqualTo(before.streamAddresses().get(RAW));
          if (wCommitted) {
            assertThat(t.streamTails().get(RAW))
                .as("W's acknowledged write is within the tail")
                .isGreaterThanOrEqualTo(wStream);
          }

          // Another writer after the restart: its address is not one holding W's data.
          AppendResult after = append(fresh, "after-0", acknowledged);
          if (wCommitted) {
            assertThat(after.globalAddress())
                .as("address of W's write issued again")
                .isNotEqualTo(wGlobal);
          }
          Tails later = fresh.tails(List.of(RAW)).join();
          assertThat(later.globalTail())
              .as("tails never move backwards")
              .isGreaterThanOrEqualTo(t.globalTail());
          assertThat(later.streamTails().get(RAW)).isGreaterThanOrEqualTo(t.streamTails().get(RAW));

          // Every acknowledged write is where it was acknowledged, with its data; W's data is
          // nowhere.
          for (Map.Entry<Long, String> a : acknowledged.entrySet()) {
            GlobalEntry g = fresh.readGlobal(a.getKey()).join();
            assertThat(g.isHole()).as("acknowledged %s became a hole", a.getValue()).isFalse();
            assertThat(new String(g.payload(), StandardCharsets.UTF_8)).isEqualTo(a.getValue());
          }
          for (StreamEntry s : fresh.readStream(RAW, 0, later.streamTails().get(RAW)).join()) {
            if (!s.isHole()) {
              String value = new String(s.payload(), StandardCharsets.UTF_8);
              assertThat(value)
                  .as("stream address %d", s.streamAddress())
                  .isNotEqualTo("stalled-writer");
              assertThat(acknowledged.get(s.globalAddress())).isEqualTo(value);
            }
          }
        }

        // Transaction A, whose snapshot predates the restart, aborts saying so.
        counter.add(10);
        Throwable aborted = catchThrowable(rt::TXEnd);
        assertThat(aborted)
            .as("TXEnd of a transaction whose snapshot predates the restart")
            .isInstanceOf(TransactionAbortedException.class);
        assertThat(((TransactionAbortedException) aborted).reason().name())
            .isEqualTo("SEQUENCER_RESTARTED");
        assertThat(aborted.getMessage()).contains("sequencer restarted");
        assertThat(counter.get()).isEqualTo(3);
        counter.add(4);
        assertThat(counter.get()).isEqualTo(7);
      }
    }
  }

  private static AppendResult append(
      ClusterStreamLog log, String value, Map<Long, String> acknowledged) {
    AppendResult r = log.append(List.of(RAW), value.getBytes(StandardCharsets.UTF_8)).join();
    acknowledged.put(r.globalAddress(), value);
    return r;
  }
}
