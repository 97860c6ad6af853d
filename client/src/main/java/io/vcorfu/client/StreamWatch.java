package io.vcorfu.client;

import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The committed entries of one or more streams as they commit, in global-address order, each once:
 * a {@link Flow.Publisher} whose every subscriber follows the streams on its own from the same
 * start, with back-pressure (nothing is read beyond a page per stream ahead of the demand).
 *
 * <p><b>Pushed, not polled.</b> A subscriber that has read everything there is has the sequencer
 * hold a tail request for its streams ({@link StreamLog#tailsPast}), answered as the token that
 * moves one of them is issued; the new range is then read from the stream replicas. A read returns
 * only committed entries and fills (it waits out, or repairs, a slot still being written), so
 * nothing uncommitted is ever delivered; fills (holes) are skipped.
 *
 * <p><b>Order and once.</b> Each stream is read in stream-address order, which is global-address
 * order, up to tails from one sequencer answer (a consistent cut of the log). The streams' entries
 * merge by global address, and an entry is delivered only once every stream has been read past it
 * or to its tail, so none with a smaller address can come later. An entry in several watched
 * streams (a transaction's) is delivered once, as the entry of the first of them in the list. A
 * subscriber resumes after a disconnect with {@link #fromGlobal} at the address after the last one
 * it saw.
 *
 * <p><b>Failures.</b> Every request rides through layout changes (a sequencer failover, a replica
 * lost) as the log's operations do; a watch whose requests keep failing past the log's failover
 * timeout logs it and tries again, with back-off, for as long as it is subscribed. It ends with
 * {@code onError} only when it cannot go on without missing entries: a stream trimmed past the next
 * address to deliver ({@link TrimmedException}), or a request the log refuses as malformed or
 * closed. It never completes by itself; {@link Flow.Subscription#cancel} ends it.
 *
 * <p>Each subscription has a daemon thread of its own, on which its subscriber's methods are
 * called, one at a time.
 */
public final class StreamWatch implements Flow.Publisher<StreamEntry> {
  private static final Logger LOG = LoggerFactory.getLogger(StreamWatch.class);

  /** Entries read from one stream in one request. */
  static final int PAGE = 1024;

  /** How long the sequencer is asked to hold a watch's tail request. */
  static final Duration HOLD = Duration.ofSeconds(10);

  private static final AtomicInteger THREADS = new AtomicInteger();

  private final StreamLog log;
  private final List<StreamId> streams;
  private final Start start;

  /** Where a subscription starts. */
  private sealed interface Start {}

  private record AfterTails() implements Start {}

  private record AtGlobal(long global) implements Start {}

  private record AtStreamAddresses(Map<StreamId, Long> next) implements Start {}

  private StreamWatch(StreamLog log, List<StreamId> streams, Start start) {
    this.log = Objects.requireNonNull(log, "log");
    if (streams.isEmpty()) {
      throw new IllegalArgumentException("a watch needs at least one stream");
    }
    this.streams = List.copyOf(new java.util.LinkedHashSet<>(streams));
    this.start = start;
  }

  /** What is appended to {@code streams} after each subscriber subscribes. */
  public static StreamWatch fromNow(StreamLog log, Collection<StreamId> streams) {
    return new StreamWatch(log, List.copyOf(streams), new AfterTails());
  }

  /**
   * Every entry of {@code streams} at global address {@code global} or later: what is there first,
   * then what comes. Finding where each stream holds that address reads the stream from its start
   * (its trim mark), unless its last entry lies below it.
   *
   * @throws IllegalArgumentException if {@code global} is negative
   */
  public static StreamWatch fromGlobal(StreamLog log, Collection<StreamId> streams, long global) {
    if (global < 0) {
      throw new IllegalArgumentException("a global address is 0 or more, not " + global);
    }
    return new StreamWatch(log, List.copyOf(streams), new AtGlobal(global));
  }

  /**
   * One stream from stream address {@code next} on.
   *
   * @throws IllegalArgumentException if {@code next} is negative
   */
  public static StreamWatch fromStreamAddress(StreamLog log, StreamId stream, long next) {
    if (next < 0) {
      throw new IllegalArgumentException("a stream address is 0 or more, not " + next);
    }
    return new StreamWatch(log, List.of(stream), new AtStreamAddresses(Map.of(stream, next)));
  }

  /** The streams watched, in the order given (without repeats). */
  public List<StreamId> streams() {
    return streams;
  }

  @Override
  public void subscribe(Flow.Subscriber<? super StreamEntry> subscriber) {
    Objects.requireNonNull(subscriber, "subscriber");
    Follower f = new Follower(subscriber);
    Thread t = new Thread(f::run, "vcorfu-watch-" + THREADS.incrementAndGet());
    t.setDaemon(true);
    f.thread = t;
    subscriber.onSubscribe(f);
    t.start();
  }

  /** One subscription: its positions, its buffers, its demand. */
  private final class Follower implements Flow.Subscription {
    private final Flow.Subscriber<? super StreamEntry> subscriber;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wanted = lock.newCondition();
    // Guarded by lock:
    private long demand;
    private boolean cancelled;
    private RuntimeException badRequest;
    // Confined to the follower's thread:
    private final int n = streams.size();
    private final long[] next = new long[n]; // next stream address to read
    private final long[] known = new long[n]; // stream tails from the last sequencer answer
    private final List<ArrayDeque<StreamEntry>> read = new ArrayList<>();
    private long lastDelivered = -1;
    private long skipBelow = -1; // fromGlobal: entries below it are not delivered
    volatile Thread thread;

    Follower(Flow.Subscriber<? super StreamEntry> subscriber) {
      this.subscriber = subscriber;
      for (int i = 0; i < n; i++) {
        read.add(new ArrayDeque<>());
      }
    }

    @Override
    public void request(long more) {
      lock.lock();
      try {
        if (more <= 0) {
          badRequest =
              new IllegalArgumentException("a subscriber requests 1 or more entries, not " + more);
        } else {
          demand = demand + more < 0 ? Long.MAX_VALUE : demand + more;
        }
        wanted.signalAll();
      } finally {
        lock.unlock();
      }
    }

    @Override
    public void cancel() {
      lock.lock();
      try {
        cancelled = true;
        wanted.signalAll();
      } finally {
        lock.unlock();
      }
      Thread t = thread;
      if (t != null && t != Thread.currentThread()) {
        t.interrupt();
      }
    }

    void run() {
      try {
        begin();
        while (awaitDemand()) {
          StreamEntry e = nextEntry();
          lock.lock();
          try {
            if (cancelled) {
              return;
            }
            demand--;
          } finally {
            lock.unlock();
          }
          subscriber.onNext(e);
        }
      } catch (InterruptedException stop) {
        // cancelled
      } catch (Stop stop) {
        if (!isCancelled()) {
          subscriber.onError(stop.getCause());
        }
      } catch (RuntimeException | Error e) {
        if (!isCancelled()) {
          subscriber.onError(e);
        }
      }
    }

    /** Waits for demand; false once cancelled. Fails on a bad request (rule 3.9 of the spec). */
    private boolean awaitDemand() throws InterruptedException {
      lock.lock();
      try {
        while (demand == 0 && !cancelled && badRequest == null) {
          wanted.await();
        }
        if (badRequest != null && !cancelled) {
          throw new Stop(badRequest);
        }
        return !cancelled;
      } finally {
        lock.unlock();
      }
    }

    private boolean isCancelled() {
      lock.lock();
      try {
        return cancelled;
      } finally {
        lock.unlock();
      }
    }

    /** Sets every stream's first address to read. */
    private void begin() throws InterruptedException {
      if (start instanceof AtStreamAddresses at) {
        for (int i = 0; i < n; i++) {
          next[i] = at.next().get(streams.get(i));
          known[i] = next[i] - 1;
        }
        return;
      }
      Tails t = call(() -> log.tails(streams));
      for (int i = 0; i < n; i++) {
        known[i] = t.streamTails().getOrDefault(streams.get(i), -1L);
        next[i] = known[i] + 1;
      }
      if (start instanceof AtGlobal at) {
        skipBelow = at.global();
        for (int i = 0; i < n; i++) {
          if (t.streamLastGlobal().getOrDefault(streams.get(i), -1L) >= at.global()) {
            next[i] = firstAtOrAfter(i, at.global());
          }
        }
      }
    }

    /**
     * The first stream address of stream {@code i} whose entry lies at global address {@code
     * global} or later, reading the stream from its start. A stream trimmed past such an entry
     * fails the watch: what it held there is gone.
     */
    private long firstAtOrAfter(int i, long global) throws InterruptedException {
      StreamId s = streams.get(i);
      long from = 0;
      boolean trimmedBelow = false;
      while (from <= known[i]) {
        long to = Math.min(known[i], from + PAGE - 1);
        List<StreamEntry> page;
        try {
          long f = from;
          page = call(() -> log.readStream(s, f, to));
        } catch (Stop stop) {
          if (stop.getCause() instanceof TrimmedException trimmed && !trimmedBelow) {
            from = Math.max(from, trimmed.trimMark());
            trimmedBelow = from > 0;
            continue;
          }
          throw stop;
        }
        for (StreamEntry e : page) {
          if (e.isHole()) {
            continue;
          }
          if (e.globalAddress() >= global) {
            if (trimmedBelow && e.globalAddress() > global) {
              // The first entry kept is already past the address: the trimmed ones below it may
              // have been at or past it too. (One exactly at it has every trimmed entry below.)
              throw new Stop(new TrimmedException(from, s));
            }
            return e.streamAddress();
          }
          trimmedBelow = false;
        }
        from = to + 1;
      }
      return known[i] + 1;
    }

    /** The next entry to deliver, reading and waiting for it as needed. */
    private StreamEntry nextEntry() throws InterruptedException {
      while (true) {
        int pick = -1;
        boolean complete = true; // every stream's next entry is known (or it is read to its tail)
        for (int i = 0; i < n; i++) {
          ArrayDeque<StreamEntry> q = read.get(i);
          if (q.isEmpty()) {
            if (next[i] <= known[i]) {
              complete = false;
              readPage(i);
              break;
            }
            continue;
          }
          if (pick < 0
              || q.peekFirst().globalAddress() < read.get(pick).peekFirst().globalAddress()) {
            pick = i;
          }
        }
        if (!complete) {
          continue;
        }
        if (pick >= 0) {
          StreamEntry e = read.get(pick).pollFirst();
          if (e.globalAddress() <= lastDelivered) {
            continue; // the same entry in another watched stream
          }
          lastDelivered = e.globalAddress();
          return e;
        }
        awaitTails();
      }
    }

    /** Reads the next page of stream {@code i} (its data entries at or past skipBelow). */
    private void readPage(int i) throws InterruptedException {
      StreamId s = streams.get(i);
      long from = next[i];
      long to = Math.min(known[i], from + PAGE - 1);
      List<StreamEntry> page = call(() -> log.readStream(s, from, to));
      for (StreamEntry e : page) {
        if (e.streamAddress() < next[i]) {
          continue;
        }
        if (!e.isHole() && e.globalAddress() >= skipBelow) {
          read.get(i).addLast(e);
        }
        next[i] = e.streamAddress() + 1;
      }
      if (page.isEmpty()) {
        throw new Stop(
            new IllegalStateException(
                "stream " + s + " returned nothing for addresses " + from + ".." + to));
      }
    }

    /**
     * Waits until the sequencer has issued past some stream's known tail. Every stream's known tail
     * is then taken from that one answer, a cut of the log, and never kept from an older answer: a
     * sequencer that took over may know lower tails than its predecessor issued (tokens lost with
     * it), and tails of two answers mixed could let an entry past one cut be delivered before an
     * entry of another stream below it. What was read already is below both cuts.
     */
    private void awaitTails() throws InterruptedException {
      long[] marks = known.clone();
      Tails t = call(() -> log.tailsPast(streams, marks, HOLD));
      for (int i = 0; i < n; i++) {
        known[i] = t.streamTails().getOrDefault(streams.get(i), -1L);
      }
    }

    /**
     * The outcome of {@code op}, tried again with back-off while it fails with an error a later try
     * may not meet; {@link Stop} for the errors that end the watch.
     */
    private <T> T call(java.util.function.Supplier<CompletableFuture<T>> op)
        throws InterruptedException {
      long backoffMs = 100;
      boolean warned = false;
      while (true) {
        if (isCancelled()) {
          throw new InterruptedException("cancelled");
        }
        try {
          T result = op.get().get();
          if (warned) {
            LOG.info("watch of {}: the cluster answers again", streams);
          }
          return result;
        } catch (ExecutionException e) {
          Throwable cause = e.getCause() != null ? e.getCause() : e;
          if (cause instanceof TrimmedException
              || cause instanceof BadRequestException
              || cause instanceof IllegalArgumentException
              || cause instanceof IllegalStateException) {
            throw new Stop(cause);
          }
          if (!warned) {
            LOG.warn("watch of {}: {}; trying again until it answers", streams, cause.toString());
            warned = true;
          }
        } catch (IllegalArgumentException | IllegalStateException e) {
          throw new Stop(e);
        }
        TimeUnit.MILLISECONDS.sleep(backoffMs);
        backoffMs = Math.min(2_000, backoffMs * 2);
      }
    }
  }

  /** Ends a watch with its cause. */
  private static final class Stop extends RuntimeException {
    Stop(Throwable cause) {
      super(cause);
    }
  }
}
