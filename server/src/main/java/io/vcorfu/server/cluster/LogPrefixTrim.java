package io.vcorfu.server.cluster;

import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.PingResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The global log's prefix trim: every so often the node that drives it (the manager of a cluster,
 * the sequencer of a static layout) trims every log replica below the entries written in the last
 * {@code retention} (3 s by default). The streams are the durable, replicated copies of their
 * entries (each stream keeps its own history, trimmed after checkpoints as its objects' retention
 * says); the log's copy of an entry serves the repair of a write still in progress, so once an
 * entry is older than any write can take it goes, and its space comes back (a node storing an entry
 * once for its log and stream copies frees it when both are gone; compaction reclaims the
 * segments). What the streams still hold is reported too ({@code log_needed_from}), for operators.
 *
 * <p>Invariant: the log is trimmed only below the log's tail as it was {@code retention} ago, and a
 * round runs only when every node of the layout answers, none is copying (rebuilding chains, or
 * taking up stream chains from the log) and every stream chain has a replica (else the log may be a
 * stream's only copy); a replica is never asked past its own tail + 1.
 */
public final class LogPrefixTrim implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LogPrefixTrim.class);

  /**
   * How often the driving node looks for what it can trim, and samples the log's tail: an entry
   * keeps its log copy for the window plus at most this (every five seconds, the log held five to
   * ten seconds of entries, the largest part of a busy single node's disk).
   */
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);

  private static final long ASK_SECONDS = 5;

  private final NodeCalls calls;
  private final Supplier<Layout> layout;
  private final BooleanSupplier driving;
  private final ScheduledExecutorService timer;
  private final long windowNanos;
  private final java.util.ArrayDeque<long[]> tails = new java.util.ArrayDeque<>();
  private volatile long lastMark;

  /**
   * How long an entry keeps its log copy, by default: far longer than a write or its repair takes,
   * short enough that the log's copies of entries cost little disk under any update rate.
   */
  public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(3);

  /**
   * @param driving true while this node drives the trim (the manager, or a static sequencer)
   */
  public LogPrefixTrim(
      NodeCalls calls, Supplier<Layout> layout, BooleanSupplier driving, Duration interval) {
    this(calls, layout, driving, interval, DEFAULT_WINDOW);
  }

  /**
   * @param window an entry keeps its log copy at least this long after it was written
   */
  public LogPrefixTrim(
      NodeCalls calls,
      Supplier<Layout> layout,
      BooleanSupplier driving,
      Duration interval,
      Duration window) {
    this.calls = calls;
    this.layout = layout;
    this.driving = driving;
    this.windowNanos = window.toNanos();
    this.timer = Executors.newSingleThreadScheduledExecutor(Rebuilder.daemon("log-trim"));
    long ms = interval.toMillis();
    timer.scheduleWithFixedDelay(this::tick, ms, ms, TimeUnit.MILLISECONDS);
  }

  private void tick() {
    if (!driving.getAsBoolean()) {
      return;
    }
    try {
      once();
    } catch (RuntimeException e) {
      LOG.debug("log trim round skipped: {}", e.toString());
    }
  }

  /**
   * One round: the mark the log was trimmed to on every log replica of the layout (what they hold
   * afterwards, the lowest of them), or -1 when the round could not run (a node did not answer, a
   * stream chain has no replica, no layout yet).
   */
  public long once() {
    return once(windowNanos);
  }

  /** {@link #once()}, keeping the entries of the last {@code keepNanos} instead. */
  public synchronized long once(long keepNanos) {
    Layout l = layout.get();
    if (l == null) {
      return -1;
    }
    for (List<Endpoint> chain : l.currentSegment().stream()) {
      if (chain.isEmpty()) {
        return -1; // the log may be the only copy of those streams
      }
    }
    List<Endpoint> nodes = new ArrayList<>(l.allServers());
    Map<Endpoint, CompletableFuture<PingResponse>> asked = new HashMap<>();
    for (Endpoint n : nodes) {
      asked.put(n, calls.pingWithSpace(n).orTimeout(ASK_SECONDS, TimeUnit.SECONDS));
    }
    Map<Endpoint, PingResponse> answers = new HashMap<>();
    for (Map.Entry<Endpoint, CompletableFuture<PingResponse>> e : asked.entrySet()) {
      PingResponse p;
      try {
        p = e.getValue().join();
      } catch (RuntimeException failed) {
        return -1;
      }
      if (p.getEpoch() != l.epoch() || !p.hasSpace()) {
        return -1; // it follows another layout: ask again next round
      }
      if (p.getSpace().getCopying()) {
        return -1; // it may still read the log's entries: ask again next round
      }
      answers.put(e.getKey(), p);
    }
    long needed = Long.MAX_VALUE;
    for (Endpoint n : l.streamServers()) {
      needed = Math.min(needed, answers.get(n).getSpace().getLogNeededFrom());
    }
    // The log's tail now, and as it was a window ago: entries written since keep their log copy.
    long now = System.nanoTime();
    long tail = -1;
    for (Endpoint n : l.logServers()) {
      tail = Math.max(tail, answers.get(n).getSpace().getLogTail());
    }
    tails.addLast(new long[] {now, tail});
    while (tails.size() >= 2) {
      java.util.Iterator<long[]> it = tails.iterator();
      it.next();
      if (now - it.next()[0] >= keepNanos) {
        tails.pollFirst();
      } else {
        break;
      }
    }
    long[] oldest = tails.peekFirst();
    long settled = now - oldest[0] >= keepNanos ? oldest[1] + 1 : 0;
    long streamsFrom = needed;
    needed = settled;
    long lowest = Long.MAX_VALUE;
    List<CompletableFuture<Long>> trims = new ArrayList<>();
    for (Endpoint n : l.logServers()) {
      PingResponse p = answers.get(n);
      long target = Math.min(needed, p.getSpace().getLogTail() + 1);
      if (target > p.getSpace().getLogTrimMark()) {
        trims.add(calls.logTrim(n, l.epoch(), target).orTimeout(ASK_SECONDS, TimeUnit.SECONDS));
      } else {
        lowest = Math.min(lowest, p.getSpace().getLogTrimMark());
      }
    }
    for (CompletableFuture<Long> t : trims) {
      try {
        lowest = Math.min(lowest, t.join());
      } catch (RuntimeException failed) {
        return -1;
      }
    }
    if (lowest != Long.MAX_VALUE && lowest > lastMark) {
      LOG.debug(
          "trimmed the global log below {} on {} log replicas (entries older than {} s; the trimmed"
              + " streams reach back to {})",
          lowest,
          l.logServers().size(),
          windowNanos / 1_000_000_000.0,
          streamsFrom == Long.MAX_VALUE ? "nowhere" : String.valueOf(streamsFrom));
      lastMark = lowest;
    }
    return lowest == Long.MAX_VALUE ? -1 : lowest;
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
