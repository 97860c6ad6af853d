package io.vcorfu.client.layout;

import io.vcorfu.client.rpc.Calls;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.Errors;
import io.vcorfu.protocol.NotServingException;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.RpcTimeoutException;
import io.vcorfu.protocol.TransportException;
import io.vcorfu.protocol.proto.GetLayoutRequest;
import io.vcorfu.protocol.proto.Header;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The client's current layout. Refreshed from any known server (the seeds it was opened with and
 * every server of the layout it holds) when a request is refused for its epoch or a node cannot be
 * reached; a refresh never moves to an older epoch. Thread-safe.
 */
public final class LayoutCache {
  private final RpcClient rpc;
  private final List<Endpoint> seeds;
  private volatile Layout current;

  private final Object monitor = new Object();
  // Guarded by monitor: whether a refresh round is running, and the answer of the round queued
  // behind it (null when nobody waits for one).
  private boolean refreshing;
  private CompletableFuture<Layout> queued;

  private LayoutCache(RpcClient rpc, Layout initial, List<Endpoint> seeds) {
    this.rpc = rpc;
    this.current = initial;
    this.seeds = List.copyOf(seeds);
  }

  /**
   * How long a refresh round that has an answer, but none newer, waits for the servers that have
   * not answered.
   */
  static final Duration ROUND_GRACE = Duration.ofMillis(250);

  /** How many times a connecting client asks a seed for the layout when answers time out. */
  static final int FETCH_ATTEMPTS = 3;

  /** {@link #fetch(RpcClient, List)} with one seed. */
  public static LayoutCache fetch(RpcClient rpc, Endpoint seed) {
    return fetch(rpc, List.of(seed));
  }

  /**
   * How long a connecting client keeps asking a seed that answers that it has no layout yet (a node
   * started moments ago, still adopting the cluster's first layout) before it gives up.
   */
  static final Duration NOT_YET_PATIENCE = Duration.ofSeconds(2);

  /**
   * Fetches the layout from the first of {@code seeds} that answers and keeps it as the starting
   * point; every seed stays a candidate for later refreshes. Seeds are asked one after another, in
   * order, so a seed that is down costs one failed connection (at most the connect timeout) before
   * the next is asked. Reading the layout changes nothing, so a seed whose answer timed out (a slow
   * or lost answer) is asked again after the others, up to {@link #FETCH_ATTEMPTS} times in all,
   * and a seed that answers it has no layout yet is asked again, after a pause that doubles from 50
   * ms, for up to {@link #NOT_YET_PATIENCE}; a seed that failed otherwise is not asked again. When
   * no seed answers, fails with the last error (one seed), or with a {@link TransportException}
   * naming each seed's first error (several).
   *
   * @throws IllegalArgumentException if {@code seeds} is empty
   * @throws CompletionException whose cause is the typed error, when no seed answered
   */
  public static LayoutCache fetch(RpcClient rpc, List<Endpoint> seeds) {
    if (seeds.isEmpty()) {
      throw new IllegalArgumentException("no seed endpoint to read the layout from");
    }
    List<Endpoint> ask = new ArrayList<>(new LinkedHashSet<>(seeds));
    Map<Endpoint, String> errors = new LinkedHashMap<>();
    Map<Endpoint, Integer> timeouts = new HashMap<>();
    long patienceEnds = System.nanoTime() + NOT_YET_PATIENCE.toNanos();
    long pauseMillis = 50;
    CompletionException last = null;
    while (!ask.isEmpty()) {
      List<Endpoint> again = new ArrayList<>();
      boolean notYet = false;
      for (Endpoint seed : ask) {
        try {
          return new LayoutCache(rpc, fetchFrom(rpc, seed).join(), seeds);
        } catch (CompletionException e) {
          last = e;
          Throwable cause = e.getCause();
          errors.putIfAbsent(seed, Calls.unwrap(e).getMessage());
          if (cause instanceof RpcTimeoutException) {
            if (timeouts.merge(seed, 1, Integer::sum) < FETCH_ATTEMPTS) {
              again.add(seed);
            }
          } else if (hasNoLayoutYet(cause) && System.nanoTime() - patienceEnds < 0) {
            again.add(seed);
            notYet = true;
          }
        }
      }
      if (notYet) {
        try {
          Thread.sleep(pauseMillis);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
        pauseMillis = Math.min(pauseMillis * 2, 400);
      }
      ask = again;
    }
    if (seeds.size() == 1) {
      throw last;
    }
    List<String> said = new ArrayList<>();
    errors.forEach((seed, error) -> said.add(seed + " (" + error + ")"));
    throw new CompletionException(
        new TransportException(
            "no seed answered a layout request: " + String.join(", ", said), Calls.unwrap(last)));
  }

  /** A layout request's answer from a node that has not adopted any layout yet. */
  private static boolean hasNoLayoutYet(Throwable error) {
    return error instanceof NotServingException n && "layout".equals(n.role());
  }

  /** A view starting from a known layout. */
  public static LayoutCache of(RpcClient rpc, Layout layout) {
    return new LayoutCache(rpc, layout, List.of());
  }

  public Layout current() {
    return current;
  }

  /**
   * Re-reads the layout from the seeds and every server of the layout held now, all at once, and
   * keeps the newest epoch any of them reports. Completes with the layout held afterwards: as soon
   * as one server reports an epoch newer than the one held when the refresh began, else once every
   * server has answered or failed or {@link #ROUND_GRACE} after the first answer; fails with {@link
   * TransportException} when none answered. Answers arriving after that are still adopted if newer.
   *
   * <p>Asking every server at once keeps a refresh as quick as the quickest server that knows the
   * new layout; a refresh that finds nothing newer ends once every server has answered or failed,
   * or {@link #ROUND_GRACE} after the first answer, so a paused server (which would hold it for a
   * request timeout) costs at most the grace.
   *
   * <p>Concurrent calls share rounds: at most one round is in flight, and a call made while one is
   * in flight is answered by the next round, sent when that one completes, so every answer comes
   * from requests sent after the call began. Each call gets a future of its own: completing or
   * bounding it leaves the round and the other callers alone.
   */
  public CompletableFuture<Layout> refresh() {
    synchronized (monitor) {
      if (refreshing) {
        if (queued == null) {
          queued = new CompletableFuture<>();
        }
        return queued.copy();
      }
      refreshing = true;
    }
    CompletableFuture<Layout> answer = new CompletableFuture<>();
    round(answer);
    return answer.copy();
  }

  /**
   * One refresh round: asks every candidate and completes {@code answer} (see {@link #refresh}).
   */
  private void round(CompletableFuture<Layout> answer) {
    Layout known = current;
    Set<Endpoint> candidates = new LinkedHashSet<>(seeds);
    candidates.addAll(known.allServers());
    AtomicInteger pending = new AtomicInteger(candidates.size());
    AtomicBoolean answered = new AtomicBoolean();
    AtomicReference<Throwable> lastError = new AtomicReference<>();
    for (Endpoint candidate : candidates) {
      CompletableFuture<Layout> fetched;
      try {
        fetched = fetchFrom(rpc, candidate);
      } catch (RuntimeException e) {
        fetched = CompletableFuture.failedFuture(e);
      }
      fetched.whenComplete(
          (layout, error) -> {
            if (error == null) {
              adopt(layout);
              boolean first = answered.compareAndSet(false, true);
              if (layout.epoch() > known.epoch()) {
                finish(answer, null);
              } else if (first) {
                // A server that does not answer (paused, cut off) holds a round that finds
                // nothing newer for at most the grace, not for the request timeout: the caller
                // asks again if it must.
                CompletableFuture.delayedExecutor(ROUND_GRACE.toNanos(), TimeUnit.NANOSECONDS)
                    .execute(() -> finish(answer, null));
              }
            } else {
              lastError.set(Calls.unwrap(error));
            }
            if (pending.decrementAndGet() == 0) {
              finish(
                  answer,
                  answered.get()
                      ? null
                      : new TransportException(
                          "no server answered a layout request (asked " + candidates + ")",
                          lastError.get()));
            }
          });
    }
  }

  /** Completes a round's answer (once), then starts the round queued behind it, if any. */
  private void finish(CompletableFuture<Layout> answer, Throwable error) {
    boolean first = error == null ? answer.complete(current) : answer.completeExceptionally(error);
    if (!first) {
      return;
    }
    CompletableFuture<Layout> next;
    synchronized (monitor) {
      next = queued;
      queued = null;
      if (next == null) {
        refreshing = false;
      }
    }
    if (next != null) {
      round(next);
    }
  }

  /** The nodes a refresh asks: the seeds and every server of the layout held now. */
  public Set<Endpoint> candidates() {
    Set<Endpoint> candidates = new LinkedHashSet<>(seeds);
    candidates.addAll(current.allServers());
    return candidates;
  }

  /**
   * Asks {@code endpoint} alone for a layout newer than epoch {@code epoch}: it answers as soon as
   * it has adopted one, or after {@code wait} with the layout it has. Keeps the answer if its epoch
   * is newer; completes with the layout held afterwards.
   */
  public CompletableFuture<Layout> awaitNewer(Endpoint endpoint, long epoch, Duration wait) {
    GetLayoutRequest question =
        GetLayoutRequest.newBuilder()
            .setNewerThan(epoch)
            .setWaitMs((int) Math.min(Integer.MAX_VALUE, wait.toMillis()))
            .build();
    return fetchFrom(rpc, endpoint, question)
        .thenApply(
            l -> {
              adopt(l);
              return current;
            });
  }

  private synchronized void adopt(Layout layout) {
    if (layout.epoch() > current.epoch()) {
      current = layout;
    }
  }

  static CompletableFuture<Layout> fetchFrom(RpcClient rpc, Endpoint endpoint) {
    return fetchFrom(rpc, endpoint, GetLayoutRequest.getDefaultInstance());
  }

  private static CompletableFuture<Layout> fetchFrom(
      RpcClient rpc, Endpoint endpoint, GetLayoutRequest question) {
    Request request =
        Request.newBuilder()
            .setHeader(Header.newBuilder().setProtocolVersion(Calls.PROTOCOL_VERSION))
            .setGetLayout(question)
            .build();
    return rpc.call(endpoint, request)
        .thenApply(
            response -> {
              Response checked = Errors.check(response);
              return Layout.fromJson(checked.getGetLayout().getLayoutJson());
            })
        .exceptionally(
            e -> {
              throw e instanceof CompletionException ce ? ce : new CompletionException(e);
            });
  }
}
