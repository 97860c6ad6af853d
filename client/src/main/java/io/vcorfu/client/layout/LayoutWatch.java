package io.vcorfu.client.layout;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcTimeoutException;
import io.vcorfu.protocol.proto.Response;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Stops a client from waiting on a node the cluster has moved away from. While one of its requests
 * has waited longer than {@code checkAfter}, the watch asks the other nodes of the layout (and the
 * seeds), skipping nodes that are slow to answer this client, for a layout newer than the one it
 * holds: each holds the question until it adopts one (or for {@link #ASK_WAIT}, and is then asked
 * again), so the client hears of a new layout as soon as any of them has it, with one question per
 * node outstanding. Once the client holds a layout of a newer epoch than a request that has waited
 * that long was sent with, the request fails with {@link RpcTimeoutException} ("abandoned ..."), at
 * once rather than after its request timeout. A paused or cut-off node thus costs a client about
 * the cluster's failover time, not its request timeout.
 *
 * <p>Abandoning a request is giving up waiting for its answer, exactly as a timeout does: its
 * outcome is unknown, and callers retry it only where that is safe (reads, tails, numbered appends,
 * chain writes decided by their deciding replica; see {@link Failover#retryable}). A request sent
 * with an older epoch would be refused by every node sealed at the newer one anyway.
 *
 * <p>Thread-safe. Ticks run on one daemon thread shared by every watch in the process.
 */
public final class LayoutWatch implements AutoCloseable {
  private static final ScheduledExecutorService TIMER =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "vcorfu-layout-watch");
            t.setDaemon(true);
            return t;
          });

  /**
   * How long a node asked for a newer layout may hold the question before it answers with the one
   * it has (the node answers as soon as it adopts a newer one).
   */
  static final Duration ASK_WAIT = Duration.ofSeconds(1);

  private final LayoutCache layout;
  private final long checkAfterNanos;
  private final Set<Waiting> waiting = ConcurrentHashMap.newKeySet();

  private final AtomicLong looks = new AtomicLong();

  /** Nodes a layout question from this watch is waiting on; not asked again until they answer. */
  private final Set<Endpoint> asking = ConcurrentHashMap.newKeySet();

  private final ScheduledFuture<?> ticks;

  /** One request waiting for its answer. */
  private record Waiting(
      CompletableFuture<Response> answer, Endpoint target, long epoch, long sinceNanos) {}

  /** A watch over requests sent with {@code layout}'s epochs; checks after {@code checkAfter}. */
  public LayoutWatch(LayoutCache layout, Duration checkAfter) {
    if (checkAfter.isNegative() || checkAfter.isZero()) {
      throw new IllegalArgumentException("the layout check delay must be positive: " + checkAfter);
    }
    this.layout = layout;
    this.checkAfterNanos = checkAfter.toNanos();
    long period = Math.max(1, checkAfterNanos / 2);
    this.ticks = TIMER.scheduleWithFixedDelay(this::tick, period, period, TimeUnit.NANOSECONDS);
  }

  /**
   * {@code call}'s answer, from a request sent to {@code target} with {@code epoch}; it fails early
   * if the layout moves past {@code epoch} while it waits.
   */
  public CompletableFuture<Response> watch(
      Endpoint target, long epoch, CompletableFuture<Response> call) {
    CompletableFuture<Response> answer = new CompletableFuture<>();
    Waiting w = new Waiting(answer, target, epoch, System.nanoTime());
    waiting.add(w);
    call.whenComplete(
        (r, e) -> {
          waiting.remove(w);
          if (e == null) {
            answer.complete(r);
          } else {
            answer.completeExceptionally(e);
          }
        });
    return answer;
  }

  /** How many requests are waiting now. */
  public int waiting() {
    return waiting.size();
  }

  /** How many times the requests have been looked over (for tests). */
  long looks() {
    return looks.get();
  }

  private void tick() {
    try {
      Set<Endpoint> slow = abandonStale();
      if (slow.isEmpty()) {
        return;
      }
      long epoch = layout.current().epoch();
      Set<Endpoint> ask = new LinkedHashSet<>(layout.candidates());
      ask.removeAll(slow);
      for (Endpoint e : ask) {
        if (asking.add(e)) {
          layout
              .awaitNewer(e, epoch, ASK_WAIT)
              .whenComplete(
                  (l, error) -> {
                    asking.remove(e);
                    if (error == null && l.epoch() > epoch) {
                      // On the watch's own thread: this one may be an I/O thread, which the
                      // abandoned requests' callers (retrying, refreshing) must not hold.
                      TIMER.execute(this::abandonStaleQuietly);
                    }
                  });
        }
      }
    } catch (RuntimeException e) {
      // A tick that fails (a layout that cannot be read) must not end the ticks; the next one
      // tries again.
    }
  }

  private void abandonStaleQuietly() {
    try {
      abandonStale();
    } catch (RuntimeException e) {
      // The next tick tries again.
    }
  }

  /**
   * Abandons every request that has waited at least {@code checkAfter} and was sent with an older
   * epoch than the layout held now; returns the targets of the others that have waited that long.
   */
  private Set<Endpoint> abandonStale() {
    long now = System.nanoTime();
    long epoch = layout.current().epoch();
    Set<Endpoint> slow = new HashSet<>();
    looks.incrementAndGet();
    for (Waiting w : waiting) {
      boolean slowOne = now - w.sinceNanos() >= checkAfterNanos;
      if (w.epoch() < epoch && slowOne) {
        waiting.remove(w);
        w.answer()
            .completeExceptionally(
                new RpcTimeoutException(
                    "abandoned the request to "
                        + w.target()
                        + " after "
                        + TimeUnit.NANOSECONDS.toMillis(now - w.sinceNanos())
                        + " ms: it was sent in epoch "
                        + w.epoch()
                        + ", and the cluster's layout is now at epoch "
                        + epoch));
      } else if (slowOne) {
        slow.add(w.target());
      }
    }
    return slow;
  }

  @Override
  public void close() {
    ticks.cancel(false);
  }
}
