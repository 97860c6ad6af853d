package io.vcorfu.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The stream-store summary against the text the former summarize-stream-store.sh printed for the
 * same result lines (stream-store/expected.md was written by it, and the warm appends' cost lines
 * added since): headline rows with and without cold figures, a peer missing and an extra vcorfu
 * line, warm appends' costs on both sides and on vcorfu's alone; the full run's tokens (like for
 * like, connections differing, no peer), appends of both layouts beside redis and etcd, reads,
 * XRANGE and etcd get; and ties that round to even (2.5 appends/s prints 2, 3.5 prints 4).
 */
class StreamStoreSummaryTest {
  private static String resource(String name) throws IOException {
    try (InputStream in =
        StreamStoreSummaryTest.class.getResourceAsStream("stream-store/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void theSummaryIsTheScriptsToTheByte() throws IOException {
    assertThat(StreamStoreSummary.of(resource("results.txt").lines().toList()))
        .isEqualTo(resource("expected.md"));
  }

  @Test
  void withoutResultLinesOnlyTheHeadingIsPrinted() {
    assertThat(StreamStoreSummary.of(java.util.List.of("warmup | tokens x = 5 tokens/s")))
        .isEqualTo("## Summary\n\n\n");
  }

  @Test
  void aRowsNodeFlagsAreNamedWithItsCommand() {
    java.util.List<String> lines = new java.util.ArrayList<>();
    lines.add("tokens-p1-c50 desc | tokens, 50 threads on 50 connections");
    lines.add("tokens-p1-c50 vcorfu-cmd | vcorfu bench tokens --threads 50 --conns 50");
    lines.add("tokens-p1-c50 node-flags | --warm-up-s 30");
    lines.add("tokens-p1-c50 peer-cmd | peers/redis.sh bench-incr --clients 50");

    assertThat(StreamStoreSummary.of(lines))
        .contains(
            "- tokens-p1-c50: `vcorfu bench tokens --threads 50 --conns 50` against a node started"
                + " with `--warm-up-s 30`; `peers/redis.sh bench-incr --clients 50`");
  }
}
