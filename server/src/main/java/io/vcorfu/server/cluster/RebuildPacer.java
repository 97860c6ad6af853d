package io.vcorfu.server.cluster;

import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.Transport;
import io.vcorfu.protocol.proto.PingResponse;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * How fast a rebuild copies: at most the configured rate, and less while the foreground suffers.
 * Every {@link #ADJUST_NANOS} the rebuild reports the highest 99th-percentile latency of foreground
 * writes among the nodes it reads from and writes to ({@link LatencyWindow}, in their ping
 * answers); the pacer halves its rate when that is above the bound, and raises it by a sixteenth of
 * the configured rate when it is below three quarters of the bound (additive increase,
 * multiplicative decrease). Nodes that served fewer than {@link #MIN_REQUESTS} writes in the window
 * say nothing about the foreground. The rate never falls below {@link #MIN_BYTES_PER_SECOND} (or
 * the configured rate, if lower), so a rebuild always finishes.
 *
 * <p>A paced copy starts slowly: at a sixteenth of the configured rate, doubled at each window
 * whose foreground stays below three quarters of the bound, until the first window that does not or
 * the configured rate (a second from a sixteenth); from then on as above. A copy that started at
 * the configured rate ran a whole window blind, and halved its way down for several more, at a rate
 * the foreground of a joining node's chains could not bear. A copy with pacing off ({@code
 * boundMicros} 0) runs at the configured rate from the start.
 *
 * <p>A paced copy's first bytes, as many as the configured rate copies in one window ({@link
 * #firstWindowBytes}), go at the configured rate whatever the foreground says: so a short copy
 * (what a node that copied before joining still misses at its join, a returning node's last
 * seconds) ends in a fraction of a second instead of crawling at the floor while the foreground is
 * slow for other reasons (the first layout change of its nodes recompiles their write path), which
 * kept the node out of its chains' full strength for 5-9 s (benchmarks/HISTORY.md, "A short copy at
 * the configured rate"). A long copy runs one window blind at most, then starts slowly as above.
 *
 * <p>The copy calls {@link #pace} after each page with the bytes it wrote; the pacer lets the copy
 * run at most 100 ms ahead of its rate (a token bucket). Thread-safe: the copy's workers share it.
 */
final class RebuildPacer {
  static final long ADJUST_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
  static final long MIN_REQUESTS = 20;
  static final long MIN_BYTES_PER_SECOND = 1L << 20;
  private static final long BURST_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private final long maxBytesPerSecond;
  private final long minBytesPerSecond;
  private final long boundMicros;
  private double bytesPerSecond;
  private long firstWindowLeft;
  private boolean slowStart;
  private long nextFreeNanos;
  private long lastP99Micros;

  /**
   * @param maxBytesPerSecond the configured rate, the most the copy ever runs at
   * @param boundMicros the foreground 99th percentile the pacer holds to; 0 turns pacing by the
   *     foreground off (the copy runs at the configured rate)
   */
  RebuildPacer(long maxBytesPerSecond, long boundMicros, long nowNanos) {
    this.maxBytesPerSecond = maxBytesPerSecond;
    this.minBytesPerSecond = Math.min(maxBytesPerSecond, MIN_BYTES_PER_SECOND);
    this.boundMicros = boundMicros;
    this.slowStart = boundMicros > 0;
    this.bytesPerSecond =
        slowStart ? Math.max(minBytesPerSecond, maxBytesPerSecond / 16.0) : maxBytesPerSecond;
    this.firstWindowLeft = boundMicros > 0 ? firstWindowBytes(maxBytesPerSecond) : 0;
    this.nextFreeNanos = nowNanos - BURST_NANOS;
  }

  /** What a copy at {@code bytesPerSecond} copies in one adjustment window. */
  static long firstWindowBytes(long bytesPerSecond) {
    return (long) (bytesPerSecond * (ADJUST_NANOS / 1e9));
  }

  /** Adjusts the rate to the foreground's {@code p99Micros} over {@code requests} writes. */
  synchronized void observe(long p99Micros, long requests) {
    if (boundMicros <= 0) {
      return;
    }
    lastP99Micros = requests >= MIN_REQUESTS ? p99Micros : 0;
    if (requests < MIN_REQUESTS || 4 * p99Micros < 3 * boundMicros) {
      double raised = slowStart ? 2 * bytesPerSecond : bytesPerSecond + maxBytesPerSecond / 16.0;
      bytesPerSecond = Math.min(maxBytesPerSecond, raised);
      slowStart &= bytesPerSecond < maxBytesPerSecond;
      return;
    }
    slowStart = false;
    if (p99Micros > boundMicros) {
      bytesPerSecond = Math.max(minBytesPerSecond, bytesPerSecond / 2);
    }
  }

  /** The rate the copy may run at now, in bytes per second. */
  synchronized long bytesPerSecond() {
    return (long) bytesPerSecond;
  }

  /** The foreground 99th percentile last observed, in microseconds (0: no foreground). */
  synchronized long lastP99Micros() {
    return lastP99Micros;
  }

  /** How long a copy that just wrote {@code bytes} at {@code nowNanos} must wait, in nanos. */
  synchronized long delayNanos(long bytes, long nowNanos) {
    double rate = bytesPerSecond;
    if (firstWindowLeft > 0) {
      rate = maxBytesPerSecond;
      firstWindowLeft -= bytes;
    }
    nextFreeNanos = Math.max(nextFreeNanos, nowNanos - BURST_NANOS);
    nextFreeNanos += (long) (bytes * 1e9 / rate);
    return Math.max(0, nextFreeNanos - nowNanos);
  }

  /**
   * Every {@link #ADJUST_NANOS}, pings each of {@code nodes} (on {@code scheduler}, 250 ms per
   * answer at most) and {@linkplain #observe observes} the highest 99th percentile among those that
   * served at least {@link #MIN_REQUESTS} foreground writes; a node that does not answer says
   * nothing. Returns what stops it.
   */
  Runnable follow(Set<Endpoint> nodes, Transport transport, ScheduledExecutorService scheduler) {
    RpcClient rpc =
        transport.newClient(ClientOptions.defaults().withRequestTimeout(Duration.ofMillis(200)));
    NodeCalls calls = new NodeCalls(rpc);
    ScheduledFuture<?> task =
        scheduler.scheduleWithFixedDelay(
            () -> {
              long p99 = 0;
              long requests = 0;
              for (Endpoint node : nodes) {
                try {
                  PingResponse answer = calls.ping(node).get(250, TimeUnit.MILLISECONDS);
                  if (answer.getForegroundWrites() >= MIN_REQUESTS) {
                    p99 = Math.max(p99, answer.getForegroundP99Micros());
                    requests = Math.max(requests, answer.getForegroundWrites());
                  }
                } catch (Exception e) {
                  // A node that does not answer says nothing about the foreground.
                }
              }
              observe(p99, requests);
            },
            ADJUST_NANOS,
            ADJUST_NANOS,
            TimeUnit.NANOSECONDS);
    return () -> {
      task.cancel(true);
      rpc.close();
    };
  }

  /** Waits as long as {@link #delayNanos} says. */
  void pace(long bytes) throws InterruptedException {
    long wait = delayNanos(bytes, System.nanoTime());
    if (wait > 0) {
      TimeUnit.NANOSECONDS.sleep(wait);
    }
  }
}
