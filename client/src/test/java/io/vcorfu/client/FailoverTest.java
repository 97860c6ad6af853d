package io.vcorfu.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.vcorfu.client.testing.ChainFaults;
import io.vcorfu.client.testing.InJvmCluster;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TooLargeException;
import io.vcorfu.protocol.TransportException;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.UnknownStreamException;
import io.vcorfu.protocol.inmemory.FaultRule;
import io.vcorfu.protocol.proto.Request.PayloadCase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Clients ride through layout changes: a node dies, the cluster moves to a layout without it, and
 * operations that met the dead node (or a refused epoch, or a node waiting for its layout) succeed
 * against the new layout within the failover timeout; an operation no layout change rescues fails
 * after the timeout saying it retried; errors no layout change cures are not retried.
 *
 * <p>The cases run concurrently: each has an in-JVM cluster of its own and spends most of its time
 * waiting (request and failover timeouts, repair delays).
 */
@Execution(ExecutionMode.CONCURRENT)
class FailoverTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final int AFTER = 30;
  private static final int MAX_APPENDS = 5_000;

  private InJvmCluster cluster;

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static StreamLogOptions options() {
    return StreamLogOptions.defaults()
        .withRepairAfter(Duration.ofMillis(100))
        .withRpc(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(1)))
        .withWriteCacheBytes(0);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(StreamEntry e) {
    return e.isHole() ? "HOLE" : new String(e.payload(), StandardCharsets.UTF_8);
  }

  @Test
  void aClientWhoseFirstSeedIsDeadConnectsThroughTheNext() {
    cluster = InJvmCluster.replicated();
    Endpoint dead = new Endpoint("nobody-listens", 9999);
    ClusterStreamLog log = cluster.client(List.of(dead, InJvmCluster.LOG_B), options());
    assertThat(log.layout().current()).isEqualTo(cluster.layout());
    assertThat(log.append(List.of(StreamId.of("seeded")), bytes("x")).join().globalAddress())
        .isZero();
  }

  @Test
  void appendsAndReadsRideThroughTheRemovalOfAStreamReplica() throws Exception {
    cluster = InJvmCluster.replicated();
    ridesThrough(InJvmCluster.STREAM_B);
  }

  @Test
  void appendsAndReadsRideThroughTheMoveOfTheSequencer() throws Exception {
    cluster = InJvmCluster.replicated();
    ridesThrough(InJvmCluster.SEQUENCER);
    assertThat(cluster.layout().sequencer()).isEqualTo(InJvmCluster.LOG_A);
  }

  /**
   * One writer appends and reads back each entry in a loop while {@code victim} dies and the
   * cluster moves to a layout without it, and goes on for {@code AFTER} appends after the change
   * (at most {@code MAX_APPENDS} appends and a minute in all); every append succeeds, and
   * afterwards the stream holds exactly the acknowledged values, in order, at their acknowledged
   * addresses, every address up to the tail decided.
   */
  private void ridesThrough(Endpoint victim) throws Exception {
    StreamId stream = StreamId.of("ride-through");
    ClusterStreamLog writer = cluster.client(options());
    ClusterStreamLog reader = cluster.client(options());
    int killAt = 30;
    AtomicLong changedAt = new AtomicLong(MAX_APPENDS);
    List<String> values = Collections.synchronizedList(new ArrayList<>());
    List<AppendResult> acked = Collections.synchronizedList(new ArrayList<>());
    AtomicReference<Throwable> failure = new AtomicReference<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    Thread loop =
        new Thread(
            () -> {
              try {
                for (int i = 0;
                    i < MAX_APPENDS
                        && System.nanoTime() < deadline
                        && acked.size() < changedAt.get() + AFTER;
                    i++) {
                  String v = "value-" + i;
                  AppendResult r =
                      writer.append(List.of(stream), bytes(v)).get(40, TimeUnit.SECONDS);
                  values.add(v);
                  acked.add(r);
                  long at = r.streamAddresses().get(stream);
                  List<StreamEntry> back =
                      reader.readStream(stream, at, at).get(40, TimeUnit.SECONDS);
                  assertThat(back).hasSize(1);
                  assertThat(text(back.get(0))).isEqualTo(v);
                }
              } catch (Throwable t) {
                failure.set(t);
              }
            },
            "ride-through");
    loop.start();

    await().atMost(WAIT).until(() -> acked.size() >= killAt || failure.get() != null);
    FaultRule metTheDead = cluster.kill(victim);
    await().atMost(WAIT).until(() -> metTheDead.hits() > 0 || !loop.isAlive());
    Layout next = cluster.withoutNode(victim);
    assertThat(loop.isAlive()).as("the loop was still running when the node died").isTrue();
    cluster.changeLayout(next);
    changedAt.set(acked.size());
    loop.join(TimeUnit.SECONDS.toMillis(90));

    assertThat(loop.isAlive()).as("the loop ended").isFalse();
    assertThat(failure.get()).as("what failed in the loop").isNull();
    assertThat(acked).hasSizeGreaterThanOrEqualTo((int) changedAt.get() + AFTER);
    assertThat(writer.layout().current().epoch()).isEqualTo(next.epoch());
    assertThat(next.allServers()).doesNotContain(victim);

    List<Long> addresses = new ArrayList<>();
    acked.forEach(r -> addresses.add(r.streamAddresses().get(stream)));
    assertThat(addresses).as("acknowledged stream addresses, in order").isSorted();
    assertThat(addresses).doesNotHaveDuplicates();

    ClusterStreamLog fresh = cluster.client(options());
    long tail = fresh.tails(List.of(stream)).get(10, TimeUnit.SECONDS).streamTails().get(stream);
    List<StreamEntry> all = fresh.readStream(stream, 0, tail).get(10, TimeUnit.SECONDS);
    assertThat(all).as("every address up to the tail is decided").hasSize((int) tail + 1);
    for (int i = 0; i < all.size(); i++) {
      assertThat(all.get(i).streamAddress()).isEqualTo(i);
    }
    List<String> data = all.stream().filter(e -> !e.isHole()).map(FailoverTest::text).toList();
    assertThat(data).as("the stream holds the acknowledged values in order").isEqualTo(values);
    for (int i = 0; i < acked.size(); i++) {
      assertThat(text(all.get(addresses.get(i).intValue()))).isEqualTo(values.get(i));
    }
  }

  @Test
  void aReadThatNoLayoutChangeRescuesFailsAfterTheFailoverTimeoutSayingItRetried()
      throws Exception {
    cluster = InJvmCluster.replicated();
    ClusterStreamLog log = cluster.client(options().withFailoverTimeout(Duration.ofSeconds(1)));
    StreamId stream = StreamId.of("stranded");
    log.append(List.of(stream), bytes("one")).join();
    cluster.kill(InJvmCluster.STREAM_B);

    long start = System.nanoTime();
    assertThatThrownBy(() -> log.readStream(stream, 0, 0).get(20, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(TransportException.class)
        .hasMessageContaining("retried for")
        .hasMessageContaining("across epochs 1..1")
        .hasMessageContaining(InJvmCluster.STREAM_B.toString());
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofSeconds(1))
        .isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void anAppendWhoseDeciderStaysDeadFailsAfterTheFailoverTimeoutAsUnknown() {
    cluster = InJvmCluster.replicated();
    ClusterStreamLog log = cluster.client(options().withFailoverTimeout(Duration.ofSeconds(1)));
    StreamId stream = StreamId.of("undecided");
    cluster.kill(InJvmCluster.STREAM_B);

    assertThatThrownBy(() -> log.append(List.of(stream), bytes("x")).get(20, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(AppendOutcomeUnknownException.class)
        .hasMessageContaining("may or may not have committed")
        .hasMessageContaining("retried for");
  }

  @Test
  void anAppendWhoseSequencerStaysDeadFailsAfterTheFailoverTimeoutSayingItRetried() {
    cluster = InJvmCluster.replicated();
    ClusterStreamLog log = cluster.client(options().withFailoverTimeout(Duration.ofSeconds(1)));
    cluster.kill(InJvmCluster.SEQUENCER);

    assertThatThrownBy(
            () ->
                log.append(List.of(StreamId.of("no-token")), bytes("x")).get(20, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(TransportException.class)
        .hasMessageContaining("retried for");
  }

  /**
   * The deciding replica takes the entry (its answer is lost) and dies; the writer cannot ask it,
   * waits for the layout without it, and learns from the new decider, which holds the entry, that
   * it committed: the append reports the address it was written at.
   */
  @Test
  void anAppendWhoseDeciderDiedAfterTakingTheEntryIsReportedCommitted() throws Exception {
    cluster = InJvmCluster.replicated();
    StreamId stream = StreamId.of("decided-committed");
    AtomicLong written = new AtomicLong(-1);
    FaultRule lostAnswer =
        cluster
            .inJvmTransport()
            .faults()
            .add(
                FaultRule.responses()
                    .to(InJvmCluster.STREAM_B)
                    .ofCase(PayloadCase.CHAIN_WRITE)
                    .when(
                        q -> {
                          written.compareAndSet(
                              -1, q.getChainWrite().getEntry().getGlobalAddress());
                          return true;
                        })
                    .limit(1)
                    .drop());
    ClusterStreamLog writer = cluster.client(options());
    CompletableFuture<AppendResult> append = writer.append(List.of(stream), bytes("kept"));
    await().atMost(WAIT).until(() -> lostAnswer.hits() == 1);
    FaultRule askedTheDead = cluster.kill(InJvmCluster.STREAM_B);
    await().atMost(WAIT).until(() -> askedTheDead.hits() > 0);
    cluster.changeLayout(cluster.withoutNode(InJvmCluster.STREAM_B));

    AppendResult r = append.get(30, TimeUnit.SECONDS);
    assertThat(r.globalAddress()).as("the address the dead decider took").isEqualTo(written.get());
    ClusterStreamLog reader = cluster.client(options());
    assertThat(ChainFaults.copiesInLog(reader, "kept")).isEqualTo(1);
    long at = r.streamAddresses().get(stream);
    assertThat(text(reader.readStream(stream, at, at).get(10, TimeUnit.SECONDS).get(0)))
        .isEqualTo("kept");
  }

  /**
   * The entry reaches the log replicas but not the surviving stream replica, and the decider is
   * dead: against the layout without it the entry is aborted everywhere, and the append takes a
   * fresh token and succeeds, once.
   */
  @Test
  void anAppendWhoseEntryNeverReachedTheNewDeciderIsAbortedAndWrittenAgain() throws Exception {
    cluster = InJvmCluster.replicated();
    StreamId stream = StreamId.of("decided-aborted");
    ClusterStreamLog writer = cluster.client(options());
    FaultRule askedTheDead = cluster.kill(InJvmCluster.STREAM_B);
    AtomicLong lost = new AtomicLong(-1);
    FaultRule lostWrite =
        cluster
            .inJvmTransport()
            .faults()
            .add(
                FaultRule.requests()
                    .to(InJvmCluster.STREAM_A)
                    .ofCase(PayloadCase.CHAIN_WRITE)
                    .when(
                        q -> {
                          lost.compareAndSet(-1, q.getChainWrite().getEntry().getGlobalAddress());
                          return true;
                        })
                    .limit(1)
                    .drop());
    CompletableFuture<AppendResult> append = writer.append(List.of(stream), bytes("once"));
    await().atMost(WAIT).until(() -> lostWrite.hits() == 1 && askedTheDead.hits() > 0);
    cluster.changeLayout(cluster.withoutNode(InJvmCluster.STREAM_B));

    AppendResult r = append.get(30, TimeUnit.SECONDS);
    assertThat(r.globalAddress()).isNotEqualTo(lost.get());
    ClusterStreamLog reader = cluster.client(options());
    assertThat(reader.readGlobal(lost.get()).get(10, TimeUnit.SECONDS).isHole())
        .as("the first attempt's address")
        .isTrue();
    assertThat(ChainFaults.copiesInLog(reader, "once")).isEqualTo(1);
  }

  /**
   * The decision of an aborted entry taken against a newer layout is followed at once by the fresh
   * token: the layout change the append's back-off waited for has happened, so a further back-off
   * (by then at its cap, 500 ms) would only leave the new layout idle. The writer retried against
   * the dead decider long enough for its back-off to reach the cap before the layout changed.
   */
  @Test
  void anAppendAbortedAgainstANewerLayoutAsksForItsFreshTokenWithoutAnotherBackOff()
      throws Exception {
    cluster = InJvmCluster.replicated();
    StreamId stream = StreamId.of("no-idle-back-off");
    ClusterStreamLog writer = cluster.client(options());
    cluster.kill(InJvmCluster.STREAM_B);
    FaultRule lostWrite =
        cluster
            .inJvmTransport()
            .faults()
            .add(
                FaultRule.requests()
                    .to(InJvmCluster.STREAM_A)
                    .ofCase(PayloadCase.CHAIN_WRITE)
                    .limit(1)
                    .drop());
    FaultRule refreshes =
        cluster
            .inJvmTransport()
            .faults()
            .add(
                FaultRule.requests()
                    .to(InJvmCluster.SEQUENCER)
                    .ofCase(PayloadCase.GET_LAYOUT)
                    .delay(Duration.ZERO));
    // Every other request (the dead node's are counted by the kill's rule), with when it was sent.
    List<Object[]> sent = Collections.synchronizedList(new ArrayList<>());
    cluster
        .inJvmTransport()
        .faults()
        .add(
            FaultRule.requests()
                .when(q -> sent.add(new Object[] {q.getPayloadCase(), System.nanoTime()}))
                .delay(Duration.ZERO));
    CompletableFuture<AppendResult> append = writer.append(List.of(stream), bytes("once"));
    // Back-offs of 20, 40, 80, 160 and 320 ms, each followed by a refresh: the next is 500 ms.
    await().atMost(WAIT).until(() -> lostWrite.hits() == 1 && refreshes.hits() >= 6);
    int before = sent.size();
    cluster.changeLayout(cluster.withoutNode(InJvmCluster.STREAM_B));

    append.get(30, TimeUnit.SECONDS);
    List<Object[]> after;
    synchronized (sent) {
      after = new ArrayList<>(sent.subList(before, sent.size()));
    }
    int token = -1;
    for (int i = 0; i < after.size(); i++) {
      if (after.get(i)[0] == PayloadCase.TOKEN) {
        token = i;
        break;
      }
    }
    assertThat(token).as("a fresh token after the layout change").isPositive();
    long lastDecisionStep = -1;
    for (int i = token - 1; i >= 0 && lastDecisionStep < 0; i--) {
      if (after.get(i)[0] != PayloadCase.GET_LAYOUT) {
        lastDecisionStep = (long) after.get(i)[1];
      }
    }
    assertThat(lastDecisionStep).as("a step of the decision before the token").isPositive();
    long idleMs = ((long) after.get(token)[1] - lastDecisionStep) / 1_000_000;
    assertThat(idleMs).as("ms from the decision's last step to the fresh token").isLessThan(250);
  }

  /**
   * An abort is seen only once it cannot be undone: the entry reached the log replicas and the
   * first stream replica but not the deciding one; its abort cannot replace the first stream
   * replica's copy (those fills are lost), so the decider's hole stays uncommitted and no reader
   * may take it for a decision. Then the decider dies and the layout drops it: whatever anyone saw
   * of the address before (if anything) is what everyone sees after, and the writer's report
   * agrees. Were the decider's hole visible before every copy was replaced, a reader would have
   * seen a hole that the surviving copy turns into data.
   */
  @Test
  void anAbortIsVisibleOnlyOnceNoSurvivingCopyCanTurnItIntoData() throws Exception {
    cluster = InJvmCluster.replicated();
    StreamId stream = StreamId.of("abort-then-decider-dies");
    AtomicLong address = new AtomicLong(-1);
    FaultRule lostAtDecider =
        cluster
            .inJvmTransport()
            .faults()
            .add(
                FaultRule.requests()
                    .to(InJvmCluster.STREAM_B)
                    .ofCase(PayloadCase.CHAIN_WRITE)
                    .when(
                        q -> {
                          address.compareAndSet(
                              -1, q.getChainWrite().getEntry().getGlobalAddress());
                          return true;
                        })
                    .limit(1)
                    .drop());
    FaultRule lostAborts =
        cluster
            .inJvmTransport()
            .faults()
            .add(
                FaultRule.requests()
                    .to(InJvmCluster.STREAM_A)
                    .ofCase(PayloadCase.STREAM_FILL)
                    .when(q -> q.getStreamFill().getAbort())
                    .drop());
    ClusterStreamLog writer = cluster.client(options().withFailoverTimeout(WAIT));
    CompletableFuture<AppendResult> append = writer.append(List.of(stream), bytes("maybe"));
    await().atMost(WAIT).until(() -> lostAtDecider.hits() == 1 && lostAborts.hits() > 0);
    long g = address.get();

    // Before the decider dies: a reader either sees a decided slot, or nothing.
    ClusterStreamLog early = cluster.client(options().withFailoverTimeout(Duration.ofSeconds(2)));
    String before = null;
    try {
      GlobalEntry e = early.readGlobal(g).get(10, TimeUnit.SECONDS);
      before = e.isHole() ? "HOLE" : new String(e.payload(), StandardCharsets.UTF_8);
    } catch (java.util.concurrent.ExecutionException e) {
      // undecided: nothing was seen
    }

    cluster.kill(InJvmCluster.STREAM_B);
    cluster.changeLayout(cluster.withoutNode(InJvmCluster.STREAM_B));
    cluster.inJvmTransport().faults().remove(lostAborts);

    AppendResult r = append.get(30, TimeUnit.SECONDS);
    ClusterStreamLog late = cluster.client(options());
    GlobalEntry after = late.readGlobal(g).get(10, TimeUnit.SECONDS);
    String seen = after.isHole() ? "HOLE" : new String(after.payload(), StandardCharsets.UTF_8);
    if (before != null) {
      assertThat(seen).as("address %s read before and after the decider died", g).isEqualTo(before);
    }
    assertThat(seen)
        .as(
            "the writer was told the entry %s address %s",
            r.globalAddress() == g ? "is at" : "is not at", g)
        .isEqualTo(r.globalAddress() == g ? "maybe" : "HOLE");
    assertThat(ChainFaults.copiesInLog(late, "maybe")).isEqualTo(1);
    // The stream tells the same story as the log: the entry once, at the address reported.
    long tail = late.tails(List.of(stream)).get(10, TimeUnit.SECONDS).streamTails().get(stream);
    List<StreamEntry> entries = late.readStream(stream, 0, tail).get(10, TimeUnit.SECONDS);
    assertThat(
            entries.stream().filter(e -> text(e).equals("maybe")).map(StreamEntry::globalAddress))
        .as("stream entries holding the value")
        .containsExactly(r.globalAddress());
  }

  /**
   * A node sealed at the new epoch whose layout has not arrived answers NotServing; the client
   * waits for it and succeeds once it has adopted the layout.
   */
  @Test
  void aNodeSealedForANewLayoutIsWaitedForUntilItAdoptsIt() throws Exception {
    cluster = InJvmCluster.replicated();
    ClusterStreamLog log = cluster.client(options());
    StreamId stream = StreamId.of("waits");
    log.append(List.of(stream), bytes("before")).join();

    Layout next = cluster.layout().withEpoch(cluster.layout().epoch() + 1);
    cluster.seal(next);
    cluster.adopt(next, List.of(InJvmCluster.LOG_A));
    FaultRule notServing =
        cluster
            .inJvmTransport()
            .faults()
            .add(
                FaultRule.responses()
                    .whenAnswer(a -> a.hasError() && a.getError().hasNotServing())
                    .delay(Duration.ZERO));
    CompletableFuture<AppendResult> append = log.append(List.of(stream), bytes("after"));
    CompletableFuture<List<StreamEntry>> read = log.readStream(stream, 0, 0);
    await().atMost(WAIT).until(() -> notServing.hits() > 0);
    assertThat(append).isNotDone();
    cluster.adopt(next, List.copyOf(next.allServers()));

    assertThat(append.get(30, TimeUnit.SECONDS).streamAddresses().get(stream)).isEqualTo(1);
    assertThat(text(read.get(30, TimeUnit.SECONDS).get(0))).isEqualTo("before");
    assertThat(log.layout().current().epoch()).isEqualTo(next.epoch());
  }

  /** A view call is a read: sent again, to the host of the refreshed layout's chain. */
  @Test
  void aViewCallIsSentAgainToTheHostOfTheNewLayout() throws Exception {
    cluster = InJvmCluster.replicated();
    ClusterStreamLog log = cluster.client(options());
    ViewCall call = new ViewCall(StreamId.of("viewed"), "T", "get()", List.of(), -2, List.of());
    assertThat(host(log.viewCall(call).get(10, TimeUnit.SECONDS)))
        .isEqualTo(InJvmCluster.STREAM_B.toString());

    FaultRule metTheDead = cluster.kill(InJvmCluster.STREAM_B);
    CompletableFuture<ViewCallResult> again = log.viewCall(call);
    await().atMost(WAIT).until(() -> metTheDead.hits() > 0);
    cluster.changeLayout(cluster.withoutNode(InJvmCluster.STREAM_B));
    assertThat(host(again.get(30, TimeUnit.SECONDS))).isEqualTo(InJvmCluster.STREAM_A.toString());
  }

  private static String host(ViewCallResult r) {
    return new String(r.result(), StandardCharsets.UTF_8);
  }

  /**
   * Errors no layout change cures come back at once: no back-off, no layout refresh (every retry
   * refreshes the layout first).
   */
  @Test
  void errorsNoLayoutChangeCuresAreNotRetried() throws Exception {
    cluster = InJvmCluster.replicated();
    ClusterStreamLog log = cluster.client(options().withMaxEntryBytes(16));
    StreamId trimmed = StreamId.of("trimmed");
    for (int i = 0; i < 3; i++) {
      log.append(List.of(trimmed), bytes("t" + i)).join();
    }
    log.trimStream(trimmed, 2).get(10, TimeUnit.SECONDS);
    FaultRule refreshes =
        cluster
            .inJvmTransport()
            .faults()
            .add(FaultRule.requests().ofCase(PayloadCase.GET_LAYOUT).delay(Duration.ZERO));

    expectAtOnce(
        () -> log.append(List.of(StreamId.of("big")), new byte[17]), TooLargeException.class);
    expectAtOnce(() -> log.readStream(trimmed, 0, 2), TrimmedException.class);
    expectAtOnce(
        () -> log.readStream(StreamId.of("never-written"), 0, 0), UnknownStreamException.class);
    assertThat(refreshes.hits()).as("layout requests sent").isZero();
  }

  private static void expectAtOnce(
      Supplier<CompletableFuture<?>> op, Class<? extends Throwable> type) {
    assertThat(op.get())
        .failsWithin(Duration.ofSeconds(5))
        .withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(type);
  }
}
