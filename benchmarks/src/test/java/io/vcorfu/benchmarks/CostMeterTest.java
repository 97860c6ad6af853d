package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The cost counters: a Prometheus page summed by counter name, snapshots that print and parse, the
 * per-operation arithmetic, and {@code bench append --cost} against a real node, its fsyncs read
 * from a real HTTP page whose counter grows by 10 per scrape.
 */
class CostMeterTest {
  @RegisterExtension static final BenchNode NODE = new BenchNode();

  private HttpServer metrics;
  private final AtomicInteger scrapes = new AtomicInteger();
  private final List<Long> scrapedAt = new java.util.concurrent.CopyOnWriteArrayList<>();

  @BeforeEach
  void servePage() throws Exception {
    metrics = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    metrics.createContext(
        "/metrics",
        exchange -> {
          scrapedAt.add(System.nanoTime());
          int n = scrapes.getAndIncrement();
          byte[] body =
              ("# HELP vcorfu_fsync_seconds fsyncs\n"
                      + "# TYPE vcorfu_fsync_seconds histogram\n"
                      + "vcorfu_fsync_seconds_count "
                      + (10 * n)
                      + ".0\n"
                      + "vcorfu_fsync_seconds_sum 0.5\n"
                      + "vcorfu_requests_seconds_count{type=\"CHAIN_WRITE\",outcome=\"ok\"} "
                      + (3 * n)
                      + ".0\n"
                      + "vcorfu_requests_seconds_count{type=\"TOKEN\",outcome=\"ok\"} "
                      + n
                      + ".0\n")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    metrics.start();
  }

  @AfterEach
  void stopPage() {
    metrics.stop(0);
  }

  private URI page() {
    return URI.create("http://127.0.0.1:" + metrics.getAddress().getPort() + "/metrics");
  }

  @Test
  void aPageIsSummedByCounterNameOnly() {
    String page =
        "# TYPE a_count counter\n"
            + "a_count{x=\"1\"} 2.0\n"
            + "a_count{x=\"2\"} 3.5\n"
            + "a_count_total 100.0\n"
            + "a_sum 7.0\n"
            + "b 1e3\n";

    assertThat(CostMeter.sum(page, List.of("a_count"))).isEqualTo(5.5);
    assertThat(CostMeter.sum(page, List.of("a_count", "b"))).isEqualTo(1005.5);
    assertThat(CostMeter.sum(page, List.of("missing"))).isZero();
  }

  @Test
  void aSnapshotParsesFromWhatItPrints() {
    CostMeter.Snapshot s = new CostMeter.Snapshot(10, 4, 5, 1, 40, 77, 9, 12, 30, 123_456);

    assertThat(CostMeter.Snapshot.parse(s.toString())).isEqualTo(s);
  }

  @Test
  void aSnapshotWithoutContextSwitchesLeavesThemUncounted() {
    CostMeter.Snapshot old =
        CostMeter.Snapshot.parse(
            "snapshot busy=10 user=4 system=5 softirq=1 all=40 segments=77 fsyncs=12 requests=30"
                + " self=-1");
    CostMeter.Snapshot now = new CostMeter.Snapshot(20, 8, 10, 2, 80, 97, 500, 22, 40, -1);

    assertThat(old.switches()).isEqualTo(-1);
    assertThat(old.segments()).isEqualTo(77);
    assertThat(CostMeter.line("x", old, now, 10))
        .contains(", 2.00 TCP segments per op, - context switches per op, 1.000 fsyncs per op,");
  }

  @Test
  void theCostLineDividesEachCounterByTheOperations() {
    CostMeter.Snapshot before =
        new CostMeter.Snapshot(100, 50, 40, 10, 1000, 5000, 40_000, 200, 900, 1_000_000_000L);
    CostMeter.Snapshot after =
        new CostMeter.Snapshot(300, 150, 120, 30, 1400, 7000, 52_500, 300, 1500, 1_500_000_000L);

    assertThat(CostMeter.line("x", before, after, 1000))
        .isEqualTo(
            "cost x: 2.000 ms processor per op (user 1.000, system 0.800, softirq 0.200; the"
                + " client process 0.500; the machine 50% busy), 2.00 TCP segments per op, 12.50"
                + " context switches per op, 0.100 fsyncs per op, 0.600 requests per op, over 1000"
                + " ops");
  }

  @Test
  void snapshotsReadTheMachineAndThePages() throws Exception {
    CostMeter meter = CostMeter.vcorfu(List.of(page()));

    CostMeter.Snapshot a = meter.take();
    CostMeter.Snapshot b = meter.take();

    assertThat(b.fsyncs() - a.fsyncs()).isEqualTo(10);
    assertThat(b.requests() - a.requests()).isEqualTo(4);
    assertThat(a.all()).isPositive();
    assertThat(b.all()).isGreaterThanOrEqualTo(a.all());
    assertThat(b.busy()).isGreaterThanOrEqualTo(a.busy());
    assertThat(b.segments()).isGreaterThanOrEqualTo(a.segments());
    assertThat(a.switches()).as("a running Linux has switched threads").isPositive();
    assertThat(b.switches()).isGreaterThanOrEqualTo(a.switches());
  }

  @Test
  void aroundReadsTheCountersRightBeforeAndRightAfterTheWindow() throws Exception {
    CostMeter meter =
        new CostMeter(List.of(page()), List.of("vcorfu_fsync_seconds_count"), List.of());
    List<Integer> scrapesInWindow = new ArrayList<>();

    String line = meter.around("peer warm", 5, () -> scrapesInWindow.add(scrapes.get()));

    // One scrape before the window (the window saw it), one after: 10 fsyncs between them.
    assertThat(scrapesInWindow).containsExactly(1);
    assertThat(scrapes.get()).isEqualTo(2);
    assertThat(line)
        .startsWith("cost peer warm: ")
        .contains("the client process not measured")
        .contains(", 2.000 fsyncs per op, 0.000 requests per op, over 5 ops");
  }

  @Test
  void appendWithCostPrintsTheWarmWindowsCostPerAppend() {
    List<String> out =
        NODE.run(
            new AppendBench(),
            "--threads 2 --duration 1 --warmup 0.5 --prefix cost --cost --metrics " + page());

    assertThat(out).hasSize(2);
    Matcher warm = Pattern.compile(": (\\d+) appends in ").matcher(out.get(0));
    assertThat(warm.find()).as(out.get(0)).isTrue();
    long appends = Long.parseLong(warm.group(1));
    Matcher cost =
        Pattern.compile(
                "^cost append warm: ([0-9.]+) ms processor per op .*the client process [0-9.]+;.*,"
                    + " ([0-9.]+) TCP segments per"
                    + " op, ([0-9.]+) context switches per op, ([0-9.]+) fsyncs per op, ([0-9.]+)"
                    + " requests per op, over (\\d+) ops$")
            .matcher(out.get(1));
    assertThat(cost.find()).as(out.get(1)).isTrue();
    assertThat(Long.parseLong(cost.group(6))).isEqualTo(appends);
    assertThat(Double.parseDouble(cost.group(1))).as("processor per append").isPositive();
    assertThat(Double.parseDouble(cost.group(2)))
        .as("each append is a request and an answer over loopback TCP")
        .isGreaterThan(0.5);
    assertThat(Double.parseDouble(cost.group(3)))
        .as("a caller waits for each answer: the machine switches threads for it")
        .isPositive();
    // The window's two scrapes (start and end of the warm window): 10 fsyncs in between.
    assertThat(Double.parseDouble(cost.group(4))).isCloseTo(10.0 / appends, within(appends));
    assertThat(scrapes.get())
        .as("a priming scrape before the load, then the window's two")
        .isEqualTo(3);
  }

  @Test
  void thePrimingSnapshotFallsBetweenTheColdAndTheWarmWindow() {
    assertThat(WarmCost.primingSeconds(10, 30)).isEqualTo(20);
    assertThat(WarmCost.primingSeconds(0, 30)).isEqualTo(15);
    assertThat(WarmCost.primingSeconds(10, 11)).as("no room between the windows").isZero();
    assertThat(WarmCost.primingSeconds(10, 5)).as("overlapping windows").isZero();
    assertThat(WarmCost.primingSeconds(0, 0)).isZero();
  }

  @Test
  void theWindowsSnapshotsFallAtItsEdgesCountedFromTheLoadsStart() throws Exception {
    // The load started 400 ms before the meter was set up (as a meter's first use can take).
    long loadStart = System.nanoTime() - 400_000_000L;
    WarmCost cost = WarmCost.start(CostMeter.vcorfu(List.of(page())), loadStart, 0, 1.5, 0.5);

    assertThat(cost.line("x", 10)).startsWith("cost x: ");
    assertThat(scrapedAt).hasSize(3); // the priming one at once (no room before 1.5 s), then two
    long startMillis = (scrapedAt.get(1) - loadStart) / 1_000_000;
    long endMillis = (scrapedAt.get(2) - loadStart) / 1_000_000;
    // At 1.5 s and 2 s of load, not 400 ms later.
    assertThat(startMillis).isBetween(1_500L, 1_750L);
    assertThat(endMillis).isBetween(2_000L, 2_250L);
  }

  @Test
  void withRoomBetweenTheWindowsThePageIsPrimedInsideTheGap() {
    List<String> out =
        NODE.run(
            new AppendBench(),
            "--threads 2 --cold 0.2 --warmup 2.6 --duration 0.3 --prefix primed --cost --metrics "
                + page());

    assertThat(out.get(out.size() - 1)).startsWith("cost append warm: ");
    assertThat(scrapedAt).hasSize(3);
    // Primed at 1.4 s of load, the warm window's scrape at 2.6 s: about 1.2 s apart, not back to
    // back as a priming scrape right before the load would be.
    long apartMillis = (scrapedAt.get(1) - scrapedAt.get(0)) / 1_000_000;
    assertThat(apartMillis).isBetween(600L, 2_500L);
  }

  private static org.assertj.core.data.Offset<Double> within(long appends) {
    return org.assertj.core.data.Offset.offset(0.0015 + 0.5 / appends);
  }
}
