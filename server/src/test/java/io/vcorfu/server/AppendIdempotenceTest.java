package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.ConflictKey;
import io.vcorfu.client.GlobalEntry;
import io.vcorfu.client.IssueCondition;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.Errors;
import io.vcorfu.protocol.NotServingException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.inmemory.FaultRule;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.protocol.proto.Request.PayloadCase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends are stored at most once however they are retried: on a one-node layout (every append one
 * sequenced write), answers to sequenced writes the node did store are replaced by NotServing,
 * dropped (the client times out), or lost with their connection; requests are delivered twice; and
 * the node is restarted on its data directory while appends are in flight. Every acknowledged
 * payload is in the log exactly once, at the address its append returned, and no payload is in it
 * twice. A transaction's commit whose answers are lost is applied once, and its retry learns that
 * it committed (instead of being judged again against its own write and told it aborted).
 */
class AppendIdempotenceTest {
  private static final Logger LOG = LoggerFactory.getLogger(AppendIdempotenceTest.class);
  private static final Endpoint NODE = Endpoint.parse("node:9000");
  private static final int CLIENTS = 4;
  private static final int APPENDS = 120;

  @TempDir Path tmp;

  @Test
  void everyAcknowledgedAppendIsStoredOnceAtTheAddressItsRetryReturned() throws Exception {
    long seed = System.nanoTime();
    LOG.info("seed {}", seed);
    Random random = new Random(seed);
    Path data = tmp.resolve("data");
    Map<String, Long> acked = new ConcurrentHashMap<>();
    Map<String, Throwable> failed = new ConcurrentHashMap<>();
    try (InJvmTransport transport = new InJvmTransport()) {
      AtomicReference<Node> node = new AtomicReference<>(start(data, transport));
      // Each answer to a sequenced write meets at most one of the faults, each about 1 in 12.
      FaultRule notServing =
          sometimes(
              transport,
              random,
              FaultRule.responses(),
              m ->
                  m.replaceWith(
                      Errors.toResponse(
                          new NotServingException("sequencer", "its layout lease ran out"))));
      FaultRule dropped =
          sometimes(transport, random, FaultRule.responses(), FaultRule.Matcher::drop);
      FaultRule reset =
          sometimes(transport, random, FaultRule.responses(), FaultRule.Matcher::partition);
      FaultRule twice =
          sometimes(transport, random, FaultRule.requests(), FaultRule.Matcher::duplicate);
      StreamLogOptions options =
          StreamLogOptions.defaults()
              .withRpc(ClientOptions.defaults().withRequestTimeout(Duration.ofMillis(400)))
              .withFailoverTimeout(Duration.ofSeconds(30));
      List<ClusterStreamLog> clients = new ArrayList<>();
      List<CompletableFuture<Void>> writers = new ArrayList<>();
      try {
        for (int c = 0; c < CLIENTS; c++) {
          ClusterStreamLog log = ClusterStreamLog.connect(transport, NODE, options);
          clients.add(log);
          int client = c;
          writers.add(
              CompletableFuture.runAsync(
                  () -> {
                    for (int k = 0; k < APPENDS; k++) {
                      String value = "client-" + client + "-append-" + k;
                      StreamId stream = StreamId.of("s" + (k % 3));
                      try {
                        AppendResult r =
                            log.append(List.of(stream), value.getBytes(StandardCharsets.UTF_8))
                                .get(60, TimeUnit.SECONDS);
                        acked.put(value, r.globalAddress());
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                      } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                        failed.put(value, e);
                      }
                    }
                  }));
        }
        // Restart the node while appends are in flight: its table of taken appends is gone, and a
        // retry of an append it stored must be found in its log.
        org.awaitility.Awaitility.await("a third of the appends acknowledged")
            .atMost(Duration.ofSeconds(60))
            .until(() -> acked.size() >= CLIENTS * APPENDS / 3);
        node.get().close();
        node.set(start(data, transport));
        CompletableFuture.allOf(writers.toArray(new CompletableFuture<?>[0]))
            .get(180, TimeUnit.SECONDS);
      } finally {
        clients.forEach(ClusterStreamLog::close);
      }
      LOG.info(
          "faults: {} answers replaced by NotServing, {} dropped, {} lost with the connection,"
              + " {} requests delivered twice; {} appends acknowledged, {} failed",
          notServing.hits(),
          dropped.hits(),
          reset.hits(),
          twice.hits(),
          acked.size(),
          failed.size());
      transport.faults().clear();
      assertThat(notServing.hits()).as("answers replaced by NotServing").isPositive();
      assertThat(dropped.hits()).as("answers dropped").isPositive();
      assertThat(reset.hits()).as("answers lost with their connection").isPositive();
      assertThat(twice.hits()).as("requests delivered twice").isPositive();

      Map<String, List<Long>> stored;
      try (ClusterStreamLog reader =
          ClusterStreamLog.connect(transport, NODE, StreamLogOptions.defaults())) {
        stored = AppendIdempotenceProcessTest.storedValues(reader);
      } finally {
        node.get().close();
      }
      for (Map.Entry<String, List<Long>> e : stored.entrySet()) {
        assertThat(e.getValue()).as("addresses holding %s (seed %d)", e.getKey(), seed).hasSize(1);
      }
      assertThat(failed).as("appends that failed").isEmpty();
      assertThat(acked).hasSize(CLIENTS * APPENDS);
      for (Map.Entry<String, Long> a : acked.entrySet()) {
        assertThat(stored.get(a.getKey()))
            .as("where %s is stored (seed %d)", a.getKey(), seed)
            .containsExactly(a.getValue());
      }
      assertThat(stored.keySet()).as("payloads stored").isEqualTo(acked.keySet());
    }
  }

  @Test
  void aTransactionWhoseCommitAnswerIsLostCommitsOnceAndItsRetryLearnsSo() throws Exception {
    try (InJvmTransport transport = new InJvmTransport()) {
      Node node = start(tmp.resolve("tx"), transport);
      try (ClusterStreamLog log =
          ClusterStreamLog.connect(
              transport,
              NODE,
              StreamLogOptions.defaults()
                  .withRpc(ClientOptions.defaults().withRequestTimeout(Duration.ofMillis(400))))) {
        StreamId account = StreamId.of("account");
        log.append(List.of(account), bytes("opened")).get(10, TimeUnit.SECONDS);
        long snapshot = log.tails(List.of()).get(10, TimeUnit.SECONDS).globalTail();
        ConflictKey key = new ConflictKey(account, bytes("balance"));
        IssueCondition condition =
            new IssueCondition(snapshot, log.epoch(), List.of(key), List.of(key));
        // The node stores the commit; its answer says NotServing, then the retry's is lost.
        FaultRule lost =
            transport
                .faults()
                .add(
                    FaultRule.responses()
                        .ofCase(PayloadCase.SEQUENCED_WRITE)
                        .limit(1)
                        .replaceWith(
                            Errors.toResponse(
                                new NotServingException("sequencer", "its layout lease ran out"))));
        FaultRule dropped =
            transport
                .faults()
                .add(FaultRule.responses().ofCase(PayloadCase.SEQUENCED_WRITE).limit(1).drop());
        AppendResult committed =
            log.appendConditional(List.of(account), bytes("debit 10"), condition)
                .get(30, TimeUnit.SECONDS);
        assertThat(lost.hits()).isEqualTo(1);
        assertThat(dropped.hits()).isEqualTo(1);
        transport.faults().clear();
        long tail = log.tails(List.of()).get(10, TimeUnit.SECONDS).globalTail();
        List<Long> debits = new ArrayList<>();
        for (GlobalEntry e : log.readGlobalRange(0, tail).get(30, TimeUnit.SECONDS)) {
          if (!e.isHole() && new String(e.payload(), StandardCharsets.UTF_8).equals("debit 10")) {
            debits.add(e.globalAddress());
          }
        }
        assertThat(debits)
            .as("where the debit is stored")
            .containsExactly(committed.globalAddress());
      } finally {
        node.close();
      }
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static Node start(Path data, InJvmTransport transport) {
    Node n =
        Node.start(
            NodeConfig.durable(NODE, data).withLogRetention(java.time.Duration.ofMinutes(10)),
            transport);
    n.ready().join();
    return n;
  }

  /** A rule on sequenced writes acting on about 1 in 12 of them, added to {@code transport}. */
  private static FaultRule sometimes(
      InJvmTransport transport,
      Random random,
      FaultRule.Matcher matcher,
      java.util.function.Function<FaultRule.Matcher, FaultRule> action) {
    return transport
        .faults()
        .add(
            action.apply(
                matcher.ofCase(PayloadCase.SEQUENCED_WRITE).when(r -> chance(random, 12))));
  }

  private static boolean chance(Random random, int oneIn) {
    synchronized (random) {
      return random.nextInt(oneIn) == 0;
    }
  }
}
