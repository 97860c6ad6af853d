package io.vcorfu.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The tls part's table from result lines of two rounds (plaintext first in the first, TLS first in
 * the second): rates per round, the cost from the medians, each round's cost, processor time per
 * operation, and whether vcorfu's fraction stayed within etcd's.
 */
class TlsTableTest {
  private static String vcorfu(String tag, int rate) {
    return "tls vcorfu "
        + tag
        + " | append threads 8 conns 8 streams 32 size 1024: 1 appends in 10.0 s = "
        + rate
        + " appends/s (3.9 MB/s), latency_ms p50 2.0 p99 6.5 p999 9.7 max 11.7";
  }

  private static String etcd(String tag, double rate) {
    return "tls etcd "
        + tag
        + " | etcd put ops/s: "
        + rate
        + " p50_ms: 3.2 p99_ms: 8.3 clients: 8 conns: 8 total: 40000 seconds: 16.0";
  }

  private static String cost(String tag, String ms) {
    return "tls " + tag + " | cost append warm: " + ms + " ms processor per op (user 1)";
  }

  private static final List<String> LINES =
      List.of(
          vcorfu("plain 1", 3000),
          cost("vcorfu plain 1", "0.500"),
          vcorfu("tls 1", 2400),
          cost("vcorfu tls 1", "0.700"),
          "tls etcd plain 1 warm-up | etcd put ops/s: 999.0 p50_ms: 1 p99_ms: 1 clients: 8",
          etcd("plain 1", 2000.4),
          cost("etcd plain 1 cost", "0.700"),
          etcd("tls 1", 1700),
          cost("etcd tls 1 cost", "0.900"),
          vcorfu("tls 2", 2600),
          cost("vcorfu tls 2", "0.720"),
          vcorfu("plain 2", 3200),
          cost("vcorfu plain 2", "0.480"),
          etcd("tls 2", 1800),
          cost("etcd tls 2 cost", "0.920"),
          etcd("plain 2", 2000),
          cost("etcd plain 2 cost", "0.740"),
          "load | tls round 2 1.0 2.0 3.0");

  @Test
  void theTableGivesEachRoundTheMediansCostAndTheVerdict() {
    TlsTable t = new TlsTable();
    for (String l : LINES) {
      int bar = l.indexOf(" | ");
      t.read(l.substring(0, bar), l.substring(bar + 3));
    }
    assertThat(t.render(10, 150))
        .isEqualTo(
            "## What TLS costs durable 1 KB appends at 8 clients (warm: 10 s after 150 s of"
                + " load)\n\n"
                + "| system | plaintext ops/s, each round | TLS ops/s, each round | TLS costs"
                + " (medians) | each round | processor ms/op, plaintext / TLS (medians) |\n"
                + "| --- | --- | --- | ---: | --- | --- |\n"
                + "| vcorfu | 3,000 / 3,200 | 2,400 / 2,600 | **19.4%** | 20.0%, 18.8% |"
                + " 0.490 / 0.710 |\n"
                + "| etcd | 2,000 / 2,000 | 1,700 / 1,800 | **12.5%** | 15.0%, 10.0% |"
                + " 0.720 / 0.910 |\n\n"
                + "TLS costs vcorfu 19.4% of its rate and etcd 12.5%: a larger fraction (not"
                + " met).\n\n");
  }

  @Test
  void withoutTlsRoundsThereIsNoTable() {
    TlsTable t = new TlsTable();
    t.read("append vcorfu t8", "append threads 8 conns 8: 10 appends in 1 s = 10 appends/s");
    assertThat(t.render(10, 30)).isEmpty();
  }
}
