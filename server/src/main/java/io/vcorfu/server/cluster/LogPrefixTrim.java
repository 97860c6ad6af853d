package io.vcorfu.server.cluster;

import io.vcorfu.layout.Layout;
import io.vcorfu.layout.Segment;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.LogStripe;
import io.vcorfu.protocol.proto.LogTrimRequest;
import io.vcorfu.protocol.proto.LogTrimResponse;
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
 * <p>The log decides an address before it forgets it: a round first asks every log replica for the
 * addresses below its target it holds undecided (empty: a token taken and never written; or not
 * committed), trims no replica past the lowest of them, and then decides them ({@link
 * LogDecisions}) for the next round to pass; each replica keeps the holes it trims past, and never
 * trims past an address it holds undecided itself (see {@code KeptHoles}). Else a hole a reader of
 * the log was given could be forgotten and a dead writer's stream copy of that address committed
 * later, or a stream slot whose token was never written could not be decided again.
 *
 * <p>Invariant: the log is trimmed only below the log's tail as it was {@code retention} ago and
 * below every address some log replica holds undecided, and a round runs only when every node of
 * the layout answers, none is copying (rebuilding chains, or taking up stream chains from the log)
 * and every stream chain has a replica (else the log may be a stream's only copy); a replica is
 * never asked past its own tail + 1.
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

  /** A trim that cannot decide an address says so at most this often. */
  private static final long FAILURE_LOG_NANOS = TimeUnit.MINUTES.toNanos(1);

  private final NodeCalls calls;
  private final Supplier<Layout> layout;
  private final BooleanSupplier driving;
  private final ScheduledExecutorService timer;
  private final long windowNanos;
  private final java.util.function.Function<Layout, LogDecisions> decisions;
  private final java.util.ArrayDeque<long[]> tails = new java.util.ArrayDeque<>();
  private volatile long lastMark;
  private volatile long decided;
  private long lastFailureLog = System.nanoTime() - FAILURE_LOG_NANOS;

  /**
   * Most undecided addresses one round decides: each is a read with repair through its chain, and
   * they come only from writes whose writer died, so a round deciding them stays short.
   */
  static final int DECIDES_PER_ROUND = 256;

  /**
   * How long an entry keeps its log copy, by default: far longer than a write or its repair takes,
   * short enough that the log's copies of entries cost little disk under any update rate.
   */
  public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(3);

  /**
   * @param driving true while this node drives the trim (the manager, or a static sequencer)
   */
  public LogPrefixTrim(
      NodeCalls calls,
      Supplier<Layout> layout,
      BooleanSupplier driving,
      java.util.function.Function<Layout, LogDecisions> decisions,
      Duration interval) {
    this(calls, layout, driving, decisions, interval, DEFAULT_WINDOW);
  }

  /**
   * @param decisions what decides the addresses a round finds undecided, under a layout
   * @param window an entry keeps its log copy at least this long after it was written
   */
  public LogPrefixTrim(
      NodeCalls calls,
      Supplier<Layout> layout,
      BooleanSupplier driving,
      java.util.function.Function<Layout, LogDecisions> decisions,
      Duration interval,
      Duration window) {
    this.calls = calls;
    this.decisions = decisions;
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
    // Two halves: every log replica names the addresses below its target it holds undecided, then
    // none is trimmed past the lowest of them (the log decides an address before it forgets it).
    Map<Endpoint, Long> targets = new HashMap<>();
    long lowest = Long.MAX_VALUE;
    for (Endpoint n : l.logServers()) {
      PingResponse p = answers.get(n);
      long target = Math.min(needed, p.getSpace().getLogTail() + 1);
      if (target > p.getSpace().getLogTrimMark()) {
        targets.put(n, target);
      } else {
        lowest = Math.min(lowest, p.getSpace().getLogTrimMark());
      }
    }
    java.util.TreeSet<Long> undecided = new java.util.TreeSet<>();
    long stop = Long.MAX_VALUE;
    for (LogTrimResponse r : ask(l, answers, targets, Long.MAX_VALUE, true)) {
      if (r == null) {
        return -1;
      }
      undecided.addAll(r.getUndecidedList());
      if (r.getUndecidedCount() > 0) {
        stop = Math.min(stop, r.getUndecided(0));
      }
    }
    for (LogTrimResponse r : ask(l, answers, targets, stop, false)) {
      if (r == null) {
        return -1;
      }
      lowest = Math.min(lowest, r.getTrimMark());
    }
    decide(l, undecided);
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

  /**
   * Sends each replica of {@code targets} a trim below its target (at most {@code stop}); the
   * answers, null for one that failed.
   */
  private List<LogTrimResponse> ask(
      Layout l,
      Map<Endpoint, PingResponse> answers,
      Map<Endpoint, Long> targets,
      long stop,
      boolean dryRun) {
    List<CompletableFuture<LogTrimResponse>> asked = new ArrayList<>();
    for (Map.Entry<Endpoint, Long> e : targets.entrySet()) {
      long from = answers.get(e.getKey()).getSpace().getLogTrimMark();
      long before = Math.min(e.getValue(), stop);
      LogTrimRequest.Builder trim =
          LogTrimRequest.newBuilder()
              .setBefore(Math.max(before, from))
              .setDryRun(dryRun)
              .addAllStripes(stripes(l, e.getKey(), from, before));
      asked.add(
          calls
              .logTrim(e.getKey(), l.epoch(), trim.build())
              .orTimeout(ASK_SECONDS, TimeUnit.SECONDS));
    }
    List<LogTrimResponse> out = new ArrayList<>();
    for (CompletableFuture<LogTrimResponse> f : asked) {
      try {
        out.add(f.join());
      } catch (RuntimeException failed) {
        out.add(null);
      }
    }
    return out;
  }

  /**
   * The log chains {@code node} serves over [from, to), segment by segment (for its log replica to
   * tell the addresses it must hold decided from other chains').
   */
  static List<LogStripe> stripes(Layout l, Endpoint node, long from, long to) {
    List<LogStripe> out = new ArrayList<>();
    for (Segment s : l.segments()) {
      long sFrom = Math.max(from, s.start());
      long sTo = s.isOpen() ? to : Math.min(to, s.end());
      if (sFrom >= sTo) {
        continue;
      }
      LogStripe.Builder b =
          LogStripe.newBuilder().setFrom(sFrom).setTo(sTo).setChains(s.log().size());
      for (int i = 0; i < s.log().size(); i++) {
        if (s.log().get(i).contains(node)) {
          b.addHeld(i);
        }
      }
      out.add(b.build());
    }
    if (out.isEmpty() && from < to) {
      out.add(LogStripe.newBuilder().setFrom(from).setTo(to).setChains(1).build()); // none held
    }
    return out;
  }

  /**
   * Decides the lowest {@link #DECIDES_PER_ROUND} of {@code undecided} ({@link LogDecisions}), one
   * after another, so the next round's trim passes them; what fails waits for the next round.
   */
  private void decide(Layout l, java.util.NavigableSet<Long> undecided) {
    if (undecided.isEmpty() || decisions == null) {
      return;
    }
    LogDecisions d;
    try {
      d = decisions.apply(l);
    } catch (RuntimeException notNow) {
      LOG.debug("cannot decide the log's undecided addresses now: {}", notNow.toString());
      return;
    }
    int tried = 0;
    int done = 0;
    String failure = null;
    for (long a : undecided) {
      if (tried++ == DECIDES_PER_ROUND) {
        break;
      }
      try {
        d.decide(a).orTimeout(ASK_SECONDS, TimeUnit.SECONDS).join();
        done++;
      } catch (RuntimeException failed) {
        failure = failure != null ? failure : a + ": " + failed;
      }
    }
    decided += done;
    if (done > 0) {
      LOG.info(
          "decided {} undecided global address(es) below the log's trim target, from {} (writes"
              + " that never finished), so the trim can pass them",
          done,
          undecided.first());
    }
    long now = System.nanoTime();
    if (failure != null && now - lastFailureLog >= FAILURE_LOG_NANOS) {
      lastFailureLog = now;
      LOG.warn(
          "the log's trim waits on {} undecided global address(es) it could not decide (first {});"
              + " it tries again each round",
          undecided.size() - done,
          failure);
    }
  }

  /** Addresses this trim has decided so far (for operators and tests). */
  public long decided() {
    return decided;
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
