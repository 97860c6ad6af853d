package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.server.LocalNode;
import io.vcorfu.server.cli.VcorfuCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class ReadBenchTest {
  private static final Pattern SUMMARY =
      Pattern.compile(
          "\\((\\d+) stream addresses\\): (\\d+) entries in .* \\(([0-9.]+) MB/s\\), (\\d+) holes,"
              + " (\\d+) calls");

  @RegisterExtension final LocalNode node = new LocalNode();

  /** The test's own client transport. */
  private NettyTransport transport;

  private String endpoint;

  @BeforeEach
  void startClient() {
    transport = new NettyTransport();
    endpoint = node.endpoint().toString();
  }

  @AfterEach
  void stopClient() {
    transport.close();
  }

  @Test
  void readsWholeStreamsInBatchesAndCountsOnlyReturnedEntries() {
    try (ClusterStreamLog log =
        ClusterStreamLog.connect(
            transport, Endpoint.parse(endpoint), StreamLogOptions.defaults())) {
      for (int i = 0; i < 250; i++) {
        log.append(List.of(StreamId.of("r-0")), "0123456789".getBytes(StandardCharsets.US_ASCII))
            .join();
      }
    }

    String out =
        run("--endpoint", endpoint, "--stream", "r-0", "--batch", "100", "--duration", "2");

    Matcher m = SUMMARY.matcher(out);
    assertThat(m.find()).as(out).isTrue();
    long addresses = Long.parseLong(m.group(1));
    long entries = Long.parseLong(m.group(2));
    long holes = Long.parseLong(m.group(4));
    long calls = Long.parseLong(m.group(5));
    assertThat(addresses).isEqualTo(250);
    assertThat(holes).isZero();
    // At least one full pass; a pass over 250 addresses in batches of 100 is 3 calls, so every
    // call returned at most 100 entries and complete passes dominate the count.
    assertThat(entries).isGreaterThanOrEqualTo(250).isLessThanOrEqualTo(calls * 100);
    assertThat(entries).isGreaterThanOrEqualTo((calls / 3) * 250);
    assertThat(out).doesNotContain("stopped early");
  }

  @Test
  void emptyStreamsAreReportedInsteadOfMeasured() {
    String out =
        run(
            VcorfuCli.FAILED,
            "--endpoint",
            endpoint,
            "--streams",
            "3",
            "--prefix",
            "never-written",
            "--duration",
            "1");

    assertThat(out).contains("nothing to read: the 3 stream(s) are empty");
  }

  private static String run(String... args) {
    return run(0, args);
  }

  private static String run(int expectedCode, String... args) {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    PrintStream saved = System.out;
    System.setOut(new PrintStream(buffer, true, StandardCharsets.UTF_8));
    try {
      int code = VcorfuCli.commandLine(new ReadBench()).execute(args);
      assertThat(code).isEqualTo(expectedCode);
    } finally {
      System.setOut(saved);
    }
    return buffer.toString(StandardCharsets.UTF_8);
  }
}
