package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.protocol.StreamId;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.awaitility.Awaitility;

/**
 * Appends of distinct values to one stream, each retried (with a new value and, after a failure, a
 * new client) until one is acknowledged: what the real-process fault tests write while nodes die,
 * pause and return, and then read back.
 */
final class AckedAppends {
  /** How long {@link #appendUntil} keeps trying before the test fails. */
  private static final long WITHIN_SECONDS = 90;

  private AckedAppends() {}

  /** An acknowledged append: its value's name and the addresses it was given. */
  record Acked(String value, long globalAddress, long streamAddress) {}

  /** {@link #appendUntil(Callable, StreamId, List, int, String, Function)} of UTF-8 names. */
  static void appendUntil(
      Callable<ClusterStreamLog> connect,
      StreamId stream,
      List<Acked> acked,
      int total,
      String prefix) {
    appendUntil(connect, stream, acked, total, prefix, v -> v.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Appends until {@code acked} holds {@code total} appends: each try a value named {@code prefix},
   * the number of appends acknowledged so far, a dash and the try's number, written as {@code
   * payload} makes it; a client that failed is closed and another connected.
   */
  static void appendUntil(
      Callable<ClusterStreamLog> connect,
      StreamId stream,
      List<Acked> acked,
      int total,
      String prefix,
      Function<String, byte[]> payload) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WITHIN_SECONDS);
    ClusterStreamLog log = null;
    int attempt = 0;
    try {
      while (acked.size() < total) {
        assertThat(System.nanoTime() - deadline).as("appends kept failing").isNegative();
        String value = prefix + acked.size() + "-" + attempt++;
        try {
          if (log == null) {
            log = connect.call();
          }
          AppendResult r =
              log.append(List.of(stream), payload.apply(value)).get(10, TimeUnit.SECONDS);
          acked.add(new Acked(value, r.globalAddress(), r.streamAddresses().get(stream)));
        } catch (Exception e) {
          if (log != null) {
            log.close();
          }
          log = null;
        }
      }
    } finally {
      if (log != null) {
        log.close();
      }
    }
  }

  /** What a read-back checks: the stream's entries from address 0 to the last acknowledged. */
  interface ReadBackCheck {
    void check(ClusterStreamLog log, List<StreamEntry> entries) throws Exception;
  }

  /**
   * Waits (up to 60 s, trying again on any failure) until {@code check} passes on {@code stream}'s
   * entries from 0 to the highest address in {@code acked}, read through a fresh client.
   */
  static void awaitReadBack(
      String what,
      Callable<ClusterStreamLog> connect,
      StreamId stream,
      List<Acked> acked,
      ReadBackCheck check) {
    Awaitility.await(what)
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              try (ClusterStreamLog log = connect.call()) {
                long last = acked.stream().mapToLong(Acked::streamAddress).max().orElse(-1);
                check.check(log, log.readStream(stream, 0, last).get(20, TimeUnit.SECONDS));
              }
            });
  }
}
