package io.vcorfu.server.linearizability;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.inmemory.FaultRule;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.protocol.proto.Request.PayloadCase;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.server.Node;
import io.vcorfu.server.NodeConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.assertj.core.api.SoftAssertions;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Read leases stay linearizable whatever happens to the messages between the sequencer and the
 * lease holders: lease answers (the pushes) and the lease pushes riding on token, tail and write
 * answers dropped, delayed or duplicated, lease requests duplicated (as a client's re-sent request
 * is), and a holder's TCP connection reset. In process, over the in-JVM transport and its fault
 * rules, and over loopback TCP for the resets.
 *
 * <p>The deterministic scenario loses "the lease answer carrying a token on S": it selects that
 * answer by its content ({@code ReadLeaseResponse.streams}); a protocol that moves pushes to
 * another message must select the message that carries them now.
 */
class ReadLeaseFaultTest {
  private static final Endpoint NODE = Endpoint.parse("lease-faults:9000");
  private static final Duration LEASE = Duration.ofSeconds(1);

  /** Short request timeouts: a lost answer is re-asked for soon. */
  private static final ClientOptions RPC =
      ClientOptions.defaults().withRequestTimeout(Duration.ofMillis(400));

  private static StreamLogOptions leased() {
    return StreamLogOptions.defaults().withRpc(RPC).withReadLease(LEASE);
  }

  /**
   * Writers without a lease: default timeouts, so a write gated on a holder that re-asks does not
   * time out.
   */
  private static StreamLogOptions unleased() {
    return StreamLogOptions.defaults();
  }

  /**
   * The scenario: holder H covers streams S and T. Writer W1 takes token G on S and the
   * push of G to H is lost. W2 takes G+1 on T; H applies and acknowledges that push; W1's write is
   * acknowledged. Then H's tail for S must include G, a read-only transaction on H whose snapshot
   * includes G+1 must see W1's write, and so must a plain read on H.
   */
  @Test
  void aLostPushIsNotForgottenWhenTheHolderAcknowledgesALaterOne() throws Exception {
    try (InJvmTransport transport = new InJvmTransport();
        Node node = Node.start(NodeConfig.inMemory(NODE), transport)) {
      node.ready().join();
      ClusterStreamLog holderLog = ClusterStreamLog.connect(transport, NODE, leased());
      try (VCorfuRuntime holder = VCorfuRuntime.using(holderLog);
          VCorfuRuntime w1 =
              VCorfuRuntime.using(ClusterStreamLog.connect(transport, NODE, unleased()));
          VCorfuRuntime w2 =
              VCorfuRuntime.using(ClusterStreamLog.connect(transport, NODE, unleased()));
          ClusterStreamLog observer = ClusterStreamLog.connect(transport, NODE, unleased())) {
        Register s1 = w1.objects().open("register-s", Register.class);
        Register t2 = w2.objects().open("register-t", Register.class);
        s1.set("s0");
        t2.set("t0");
        Register sH = holder.objects().open("register-s", Register.class);
        Register tH = holder.objects().open("register-t", Register.class);
        StreamId s = VCorfuRuntime.streamOf(sH);
        FaultRule tailRequests =
            transport
                .faults()
                .add(FaultRule.requests().ofCase(PayloadCase.TAIL).delay(Duration.ZERO));
        // Until H answers both registers' reads from memory: its lease covers S and T.
        Awaitility.await("the holder's lease covers both streams")
            .atMost(Duration.ofSeconds(10))
            .pollDelay(Duration.ZERO)
            .until(
                () -> {
                  sH.get();
                  tH.get();
                  long before = tailRequests.hits();
                  assertThat(sH.get()).isEqualTo("s0");
                  assertThat(tH.get()).isEqualTo("t0");
                  return tailRequests.hits() == before;
                });

        // The next lease answer that carries a token on S never reaches H.
        FaultRule lost =
            transport
                .faults()
                .add(
                    FaultRule.responses()
                        .ofCase(PayloadCase.READ_LEASE)
                        .whenAnswer(
                            r ->
                                r.getReadLease().getStreamsList().stream()
                                    .anyMatch(m -> StreamId.fromMsg(m).equals(s)))
                        .limit(1)
                        .drop());
        CompletableFuture<Void> w1Write = CompletableFuture.runAsync(() -> s1.set("w1"));
        Awaitility.await("the push of W1's token to H is lost")
            .atMost(Duration.ofSeconds(10))
            .until(() -> lost.hits() == 1);
        CompletableFuture.runAsync(() -> t2.set("w2")).get(20, TimeUnit.SECONDS);
        w1Write.get(20, TimeUnit.SECONDS);

        // W1's write is acknowledged: everyone must see it from now on.
        long sTail = observer.tails(List.of(s)).get(10, TimeUnit.SECONDS).streamTails().get(s);
        SoftAssertions soft = new SoftAssertions();
        soft.assertThat(holderLog.tails(List.of(s)).get(10, TimeUnit.SECONDS).streamTails().get(s))
            .as("H's tail of S after W1's write was acknowledged")
            .isEqualTo(sTail);
        holder.TXBegin();
        try {
          soft.assertThat(tH.get()).as("T in H's read-only transaction").isEqualTo("w2");
          soft.assertThat(sH.get())
              .as("S in H's read-only transaction (snapshot after G+1)")
              .isEqualTo("w1");
        } finally {
          holder.TXEnd();
        }
        soft.assertThat(sH.get()).as("S read on H").isEqualTo("w1");
        soft.assertAll();
      }
    }
  }

  /**
   * Run {@code i} drops, delays or duplicates lease answers in turn (each twice, every run a new
   * seed); the rest of its faults follow its seed.
   */
  static Stream<Arguments> runs() {
    long base = System.nanoTime();
    return IntStream.range(0, 6).mapToObj(i -> Arguments.of(i, base + 104_729L * i));
  }

  /**
   * Two leased runtimes in this JVM, three threads each calling get and set on eight registers,
   * while a random pattern of faults (chosen by the seed) hits the messages that carry or
   * acknowledge pushes: lease answers dropped, delayed or duplicated (a duplicated answer is
   * ignored by the client, which has its answer already), lease requests duplicated (so that the
   * sequencer answers the first copy, and its answer to the second is lost, as with a client that
   * re-sent a request) or delayed, token, tail and write answers carrying a push dropped or
   * delayed. The recorded history must be linearizable.
   */
  @ParameterizedTest(name = "run {0}, seed {1}")
  @MethodSource("runs")
  void historiesStayLinearizableWhenLeaseMessagesAreLostDelayedOrDuplicated(int run, long seed)
      throws Exception {
    String leaseAnswers = LEASE_ANSWER_FAULTS[run % LEASE_ANSWER_FAULTS.length];
    assertTwoHolderHistoryLinearizable(
        seed,
        transport -> {
          List<String> pattern = new ArrayList<>();
          addRandomRules(
              transport, leaseAnswers, new Random(seed), new Random(seed ^ 0x5DEECE66DL), pattern);
          return pattern.toString();
        });
  }

  /** The same two holders in this JVM with no fault: a baseline for the runs above. */
  @Test
  void historiesOfTwoLeaseHoldersInOneJvmAreLinearizableWithoutFaults() throws Exception {
    assertTwoHolderHistoryLinearizable(System.nanoTime(), transport -> "no faults");
  }

  /**
   * Runs two leased runtimes' workloads on one in-process node, with the faults {@code faults} adds
   * once the registers are open (it returns their description), and checks the history.
   */
  private static void assertTwoHolderHistoryLinearizable(
      long seed, Function<InJvmTransport, String> faults) throws Exception {
    try (InJvmTransport transport = new InJvmTransport();
        Node node = Node.start(NodeConfig.inMemory(NODE), transport)) {
      node.ready().join();
      try (VCorfuRuntime a =
              VCorfuRuntime.using(ClusterStreamLog.connect(transport, NODE, leased()));
          VCorfuRuntime b =
              VCorfuRuntime.using(ClusterStreamLog.connect(transport, NODE, leased()))) {
        RegisterWorkload wa = new RegisterWorkload("a", 3, 8, 2_000, Duration.ofSeconds(3));
        RegisterWorkload wb = new RegisterWorkload("b", 3, 8, 2_000, Duration.ofSeconds(3));
        List<Register> ra = wa.open(a);
        List<Register> rb = wb.open(b);
        String pattern = faults.apply(transport);
        System.out.println("two lease holders in one JVM, seed " + seed + ": " + pattern);
        CompletableFuture<List<Operation>> ha =
            CompletableFuture.supplyAsync(() -> run(wa, ra, seed));
        CompletableFuture<List<Operation>> hb =
            CompletableFuture.supplyAsync(() -> run(wb, rb, seed + 1));
        List<Operation> history = new ArrayList<>(ha.get(120, TimeUnit.SECONDS));
        history.addAll(hb.get(120, TimeUnit.SECONDS));
        long completed = history.stream().filter(op -> !op.pending()).count();
        System.out.println(
            "  "
                + history.size()
                + " calls, "
                + completed
                + " completed; fault hits "
                + transport.faults().list().stream().map(r -> r + ": " + r.hits()).toList());
        // Lost lease answers hold writers up until the holder re-asks: few calls, but some.
        assertThat(completed).as("calls that completed").isGreaterThan(20);
        var result = new LinearizabilityChecker().check(history);
        assertThat(result.outcome())
            .as("seed %d, faults %s: %s", seed, pattern, result.summary())
            .isEqualTo(LinearizabilityChecker.Outcome.LINEARIZABLE);
      }
    }
  }

  /**
   * Over TCP: two leased runtimes on loopback connections to a node; the connections of one of them
   * are reset a few times while it runs (its outstanding lease request, and any answer the
   * sequencer was sending on it, are lost). The recorded history must be linearizable.
   */
  @Test
  void historiesStayLinearizableWhenALeaseHoldersConnectionIsReset() throws Exception {
    long seed = System.nanoTime();
    System.out.println("historiesStayLinearizableWhenALeaseHoldersConnectionIsReset seed " + seed);
    try (NettyTransport serverTransport = new NettyTransport();
        Node node = Node.start(NodeConfig.inMemory(new Endpoint("127.0.0.1", 0)), serverTransport);
        ResettableTransport resettable = new ResettableTransport(new NettyTransport());
        NettyTransport steady = new NettyTransport()) {
      node.ready().join();
      try (VCorfuRuntime a =
              VCorfuRuntime.using(ClusterStreamLog.connect(resettable, node.endpoint(), leased()));
          VCorfuRuntime b =
              VCorfuRuntime.using(ClusterStreamLog.connect(steady, node.endpoint(), leased()))) {
        RegisterWorkload wa = new RegisterWorkload("a", 3, 8, 5_000, Duration.ofSeconds(4));
        RegisterWorkload wb = new RegisterWorkload("b", 3, 8, 5_000, Duration.ofSeconds(4));
        List<Register> ra = wa.open(a);
        List<Register> rb = wb.open(b);
        CompletableFuture<List<Operation>> ha =
            CompletableFuture.supplyAsync(() -> run(wa, ra, seed));
        CompletableFuture<List<Operation>> hb =
            CompletableFuture.supplyAsync(() -> run(wb, rb, seed + 1));
        Random random = new Random(seed);
        int resets = 0;
        while (!ha.isDone() && resets < 6) {
          // Wait a random 100-600 ms of the run (bounded by the run's end), then reset.
          long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100 + random.nextInt(500));
          Awaitility.await()
              .atMost(Duration.ofSeconds(5))
              .pollInterval(Duration.ofMillis(10))
              .until(() -> ha.isDone() || System.nanoTime() - until >= 0);
          if (!ha.isDone()) {
            resettable.resetConnections();
            resets++;
          }
        }
        List<Operation> history = new ArrayList<>(ha.get(120, TimeUnit.SECONDS));
        history.addAll(hb.get(120, TimeUnit.SECONDS));
        long completed = history.stream().filter(op -> !op.pending()).count();
        System.out.println(
            "  " + history.size() + " calls, " + completed + " completed, " + resets + " resets");
        assertThat(resets).as("connection resets during the run").isPositive();
        assertThat(completed).as("calls that completed").isGreaterThan(100);
        var result = new LinearizabilityChecker().check(history);
        assertThat(result.outcome())
            .as("seed %d: %s", seed, result.summary())
            .isEqualTo(LinearizabilityChecker.Outcome.LINEARIZABLE);
      }
    }
  }

  private static List<Operation> run(
      RegisterWorkload workload, List<Register> registers, long seed) {
    try {
      return workload.run(registers, seed);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Adds one rule per message class, each with a random action applied to a random share of its
   * messages; describes them in {@code pattern}.
   */
  private static final String[] LEASE_ANSWER_FAULTS = {"drop", "delay", "duplicate"};

  private static void addRandomRules(
      InJvmTransport transport,
      String leaseAnswers,
      Random random,
      Random faults,
      List<String> pattern) {
    Predicate<Response> carriesPush = Response::hasLeasePush;
    // Lease answers: the pushes themselves.
    double share =
        leaseAnswers.equals("drop")
            ? 0.02 + 0.18 * random.nextDouble()
            : 0.05 + 0.45 * random.nextDouble();
    pattern.add("lease answers: " + leaseAnswers + " " + percent(share));
    transport
        .faults()
        .add(
            action(
                FaultRule.responses()
                    .ofCase(PayloadCase.READ_LEASE)
                    .when(r -> faults.nextDouble() < share),
                leaseAnswers,
                random));
    // Lease requests: the acknowledgements (a duplicate is a re-sent request).
    String leaseRequests = new String[] {"delay", "duplicate", "none"}[random.nextInt(3)];
    double requestShare = 0.05 + 0.45 * random.nextDouble();
    pattern.add("lease requests: " + leaseRequests + " " + percent(requestShare));
    if (!leaseRequests.equals("none")) {
      transport
          .faults()
          .add(
              action(
                  FaultRule.requests()
                      .ofCase(PayloadCase.READ_LEASE)
                      .when(r -> faults.nextDouble() < requestShare),
                  leaseRequests,
                  random));
    }
    // Token, tail and sequenced-write answers carrying a push.
    String piggyback = new String[] {"drop", "delay", "none"}[random.nextInt(3)];
    double pushShare = 0.1 + 0.5 * random.nextDouble();
    pattern.add(
        "token, tail and write answers with a push: " + piggyback + " " + percent(pushShare));
    if (!piggyback.equals("none")) {
      transport
          .faults()
          .add(
              action(
                  FaultRule.responses()
                      .ofCase(PayloadCase.TOKEN, PayloadCase.TAIL, PayloadCase.SEQUENCED_WRITE)
                      .whenAnswer(carriesPush)
                      .when(r -> faults.nextDouble() < pushShare),
                  piggyback,
                  random));
    }
  }

  private static FaultRule action(FaultRule.Matcher m, String action, Random random) {
    return switch (action) {
      case "drop" -> m.drop();
      case "delay" -> m.delay(Duration.ofMillis(1 + random.nextInt(300)));
      case "duplicate" -> m.duplicate();
      default -> throw new IllegalArgumentException(action);
    };
  }

  private static String percent(double share) {
    return Math.round(share * 100) + "%";
  }
}
