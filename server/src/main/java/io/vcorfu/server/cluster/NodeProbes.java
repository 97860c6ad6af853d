package io.vcorfu.server.cluster;

import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.TransportException;
import io.vcorfu.protocol.proto.PingResponse;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * What the manager's probes heard of each node, and the judgements it draws from them: whether a
 * node is down, answers, or came back on a wiped data directory.
 *
 * <p>Invariant: a node is judged by the send time of the pings it answered, never by when an answer
 * arrived, so a late answer cannot make a node that went silent look alive now; and a refused
 * connection counts only when it was sent after the node's last answer (a process that is gone
 * refuses, a paused or cut-off one does not). After a pause of the manager itself, {@link #forget}
 * gives every node a full failure timeout again. A node's failure timeout adapts to the round trips
 * its answers took ({@link #timeout}), from the configured one up to twice it (at least 1 s); a
 * node that has answered for less than {@link #STEADY_AFTER_NANOS} (just started, or back after a
 * silence) is still compiling and loading, and is given at least {@link #STARTING_TIMEOUT_NANOS}. A
 * node whose answers have given an older epoch than the layout it was probed under for longer than
 * its failure timeout (at least {@link #LAG_TIMEOUT_NANOS}) lags ({@link #lagging}): alive, but not
 * serving the agreed layout.
 *
 * <p>Confined to the manager's thread.
 */
final class NodeProbes {
  /** How long a node must have answered before it is judged by a failure timeout under 1 s. */
  static final long STEADY_AFTER_NANOS = TimeUnit.SECONDS.toNanos(10);

  /** The least failure timeout of a node that has answered for less than STEADY_AFTER_NANOS. */
  static final long STARTING_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final ClusterConfig config;
  private final NodeCalls calls;
  private final LongSupplier clock;

  /** When each node last answered a probe (the probe's send time), nanoTime. */
  private final Map<Endpoint, Long> lastHeard = new HashMap<>();

  /**
   * Since when each node has answered without a silence of a failure timeout (the send time of the
   * first ping of that run of answers), nanoTime. Kept across {@link #forget}: it is the node's
   * history, not the manager's.
   */
  private final Map<Endpoint, Long> answeringSince = new HashMap<>();

  /** The send time of the last ping each node answered, nanoTime. */
  private final Map<Endpoint, Long> answeredAt = new HashMap<>();

  /** When a ping to each node last found its port closed (the ping's send time), nanoTime. */
  private final Map<Endpoint, Long> refusedAt = new HashMap<>();

  /**
   * Since when each node has answered with an older epoch than the layout it was probed under (the
   * send time of the first such ping of the run), nanoTime: it has not adopted the agreed layout.
   */
  private final Map<Endpoint, Long> laggingSince = new HashMap<>();

  /** The least time a node may lag behind the agreed layout before it counts as down. */
  static final long LAG_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** The latest answer of each node. */
  private final Map<Endpoint, PingResponse> lastAnswer = new HashMap<>();

  /** The round trips of each node's answered pings, smoothed. */
  private final Map<Endpoint, RoundTrips> roundTrips = new HashMap<>();

  /**
   * A node's round-trip time, smoothed as TCP smooths it (RFC 6298): the mean, and the mean
   * deviation from it.
   */
  private static final class RoundTrips {
    private double mean;
    private double deviation;

    RoundTrips(long first) {
      mean = first;
      deviation = first / 2.0;
    }

    void add(long sample) {
      deviation = 0.75 * deviation + 0.25 * Math.abs(mean - sample);
      mean = 0.875 * mean + 0.125 * sample;
    }
  }

  /** What a ping found: its answer or its error, and when that arrived. */
  private record Heard(PingResponse answer, Throwable error, long arrived) {}

  /**
   * Probes through {@code calls}, reading the time ({@code System.nanoTime()}) from {@code clock}.
   */
  NodeProbes(ClusterConfig config, NodeCalls calls, LongSupplier clock) {
    this.config = config;
    this.calls = calls;
    this.clock = clock;
  }

  /** Forgets when nodes were last heard: each gets a full failure timeout from the next probe. */
  void forget() {
    lastHeard.clear();
    refusedAt.clear();
    laggingSince.clear();
  }

  /**
   * Pings every node of {@code layout}, its spares and removed nodes. An answer, whenever it comes,
   * records that the node was alive when the ping was sent; a refused connection, that its process
   * was gone then. Waits one probe interval for answers; those in by then count at once, later ones
   * are recorded on {@code thread} (the manager's) when they come.
   */
  void probe(Layout layout, Executor thread) {
    long sent = clock.getAsLong();
    long epoch = layout.epoch();
    Map<Endpoint, CompletableFuture<Heard>> pings = new HashMap<>();
    Set<Endpoint> probed = probed(layout);
    for (Endpoint node : probed) {
      lastHeard.putIfAbsent(node, sent);
      pings.put(
          node,
          calls.ping(node).handle((answer, error) -> new Heard(answer, error, clock.getAsLong())));
    }
    lastHeard.keySet().retainAll(probed);
    lastAnswer.keySet().retainAll(probed);
    refusedAt.keySet().retainAll(probed);
    roundTrips.keySet().retainAll(probed);
    answeringSince.keySet().retainAll(probed);
    answeredAt.keySet().retainAll(probed);
    laggingSince.keySet().retainAll(probed);
    try {
      CompletableFuture.allOf(pings.values().toArray(CompletableFuture[]::new))
          .get(config.probeInterval().toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      // Some did not answer in time; they are judged by when they last did.
    }
    pings.forEach(
        (node, ping) -> {
          if (ping.isDone()) {
            record(node, sent, epoch, ping.join());
          } else {
            ping.thenAcceptAsync(heard -> record(node, sent, epoch, heard), thread);
          }
        });
  }

  /** The layout's nodes, then its spares and removed nodes (candidates to restore a chain). */
  private static Set<Endpoint> probed(Layout layout) {
    Set<Endpoint> all = new LinkedHashSet<>(layout.allServers());
    all.addAll(layout.spares());
    all.addAll(layout.removed());
    return all;
  }

  /**
   * Records what the ping sent to {@code node} at {@code sent}, under the layout of {@code epoch},
   * found.
   */
  private void record(Endpoint node, long sent, long epoch, Heard heard) {
    if (!lastHeard.containsKey(node)) {
      return;
    }
    PingResponse answer = heard.answer();
    Throwable error = heard.error();
    if (error == null) {
      long rtt = Math.max(0, heard.arrived() - sent);
      RoundTrips trips = roundTrips.get(node);
      if (trips == null) {
        roundTrips.put(node, new RoundTrips(rtt));
      } else {
        trips.add(rtt);
      }
      lastHeard.merge(node, sent, (a, b) -> b - a > 0 ? b : a);
      Long before = answeredAt.get(node);
      if (before == null || sent - before > config.failureTimeout().toNanos()) {
        answeringSince.put(node, sent);
      }
      answeredAt.merge(node, sent, (a, b) -> b - a > 0 ? b : a);
      lastAnswer.put(node, answer);
      if (answer.getEpoch() < epoch) {
        laggingSince.putIfAbsent(node, sent);
      } else {
        laggingSince.remove(node);
      }
      Long refused = refusedAt.get(node);
      if (refused != null && sent - refused > 0) {
        refusedAt.remove(node);
      }
    } else if (EpochRpc.unwrap(error) instanceof TransportException t && t.wasRefused()) {
      refusedAt.merge(node, sent, (a, b) -> b - a > 0 ? b : a);
    }
  }

  /**
   * How long {@code node} may stay silent before it is down: the configured failure timeout, or
   * longer where the round trips its answers took call for it (a loaded host, a slow network):
   * twice the sum of a probe interval, the smoothed round trip and four mean deviations of it (the
   * last two as a retransmission timeout is computed), but never more than twice the failure
   * timeout or 1 s, whichever is longer, so a node that dies is still removed soon. A node that has
   * not yet answered for {@link #STEADY_AFTER_NANOS} as of {@code now} gets at least {@link
   * #STARTING_TIMEOUT_NANOS}: a process that has just started (its code still compiling, its data
   * loading, its host busy starting it) stalls in ways a steady one does not, and a short
   * configured timeout would remove it for that.
   */
  long timeout(Endpoint node, long now) {
    long floor = config.failureTimeout().toNanos();
    RoundTrips trips = roundTrips.get(node);
    long timeout = floor;
    if (trips != null) {
      double needed = 2 * (config.probeInterval().toNanos() + trips.mean + 4 * trips.deviation);
      timeout = Math.min(ceiling(), Math.max(floor, (long) needed));
    }
    Long since = answeringSince.get(node);
    if (since == null || now - since < STEADY_AFTER_NANOS) {
      timeout = Math.max(timeout, STARTING_TIMEOUT_NANOS);
    }
    return timeout;
  }

  /** The longest failure timeout slow round trips earn: twice the configured one, at least 1 s. */
  private long ceiling() {
    return Math.max(2 * config.failureTimeout().toNanos(), STARTING_TIMEOUT_NANOS);
  }

  /** True once {@code node} has been probed (and not forgotten since). */
  boolean probed(Endpoint node) {
    return lastHeard.containsKey(node);
  }

  /** The latest answer of {@code node}, or null. */
  PingResponse answer(Endpoint node) {
    return lastAnswer.get(node);
  }

  /** The highest epoch any node answered it is sealed at, and {@code floor}. */
  long highestSealedEpoch(long floor) {
    long highest = floor;
    for (PingResponse p : lastAnswer.values()) {
      highest = Math.max(highest, p.getSealedEpoch());
    }
    return highest;
  }

  /**
   * True when {@code node} is down as of {@code now}: it has not answered for the failure timeout,
   * or a connection to it was refused after its last answer (its process is gone: nothing listens
   * on its port, which a paused or cut-off process would still do), or it answers that its data
   * directory is not the incarnation the layout counts on (wiped or replaced).
   */
  boolean down(Endpoint node, long now) {
    long heard = lastHeard.getOrDefault(node, now);
    if (now - heard > timeout(node, now)) {
      return true;
    }
    Long refused = refusedAt.get(node);
    if (refused != null && refused - heard > 0) {
      return true;
    }
    PingResponse answer = lastAnswer.get(node);
    return answer != null && answer.getUntrusted();
  }

  /**
   * True when {@code node} answered a probe lately, as a node of this cluster: within the failure
   * timeout and with no refused connection since, and it does not say its data directory is
   * foreign.
   */
  boolean answering(Endpoint node, long now) {
    PingResponse answer = lastAnswer.get(node);
    return answer != null
        && answer.getCluster().equals(config.name())
        && lastHeard.containsKey(node)
        && !down(node, now)
        && !lagging(node, now);
  }

  /**
   * True when {@code node} answers as a node of this cluster on a data directory that is not the
   * incarnation the layout counts on: whatever it held is proven gone.
   */
  boolean wiped(Endpoint node, long now) {
    PingResponse answer = lastAnswer.get(node);
    long heard = lastHeard.getOrDefault(node, now);
    Long refused = refusedAt.get(node);
    return answer != null
        && answer.getUntrusted()
        && answer.getCluster().equals(config.name())
        && now - heard <= timeout(node, now)
        && (refused == null || refused - heard <= 0);
  }

  /**
   * True when {@code node} has answered, for longer than its failure timeout and at least {@link
   * #LAG_TIMEOUT_NANOS} as of {@code now}, with an older epoch than the layout it was probed under:
   * it is alive but has not adopted the agreed layout (it cannot reach ZooKeeper, or its adoption
   * keeps failing), and serves nothing of it, so every write through its chains waits for it. It
   * answers, so it is evidence that the manager is not the one cut off.
   */
  boolean lagging(Endpoint node, long now) {
    Long since = laggingSince.get(node);
    return since != null
        && !down(node, now)
        && now - since > Math.max(timeout(node, now), LAG_TIMEOUT_NANOS);
  }

  /** Why {@code node} counts as down as of {@code now}, for the log. */
  String whyDown(Endpoint node, long now) {
    if (lagging(node, now)) {
      PingResponse answer = lastAnswer.get(node);
      return "answers, but has not adopted the agreed layout for over "
          + TimeUnit.NANOSECONDS.toMillis(now - laggingSince.get(node))
          + " ms (it serves epoch "
          + (answer == null ? "?" : answer.getEpoch())
          + ": cut off from ZooKeeper, or its adoption keeps failing)";
    }
    long heard = lastHeard.getOrDefault(node, now);
    PingResponse answer = lastAnswer.get(node);
    return now - heard > timeout(node, now)
        ? "unresponsive for over " + TimeUnit.NANOSECONDS.toMillis(timeout(node, now)) + " ms"
        : answer != null && answer.getUntrusted()
            ? "runs on a wiped or replaced data directory"
            : "refuses connections: its process is gone";
  }

  /** These probes as the healing plan sees them, as of {@code now}. */
  HealingPlan.Probes asOf(long now) {
    return new HealingPlan.Probes() {
      @Override
      public boolean answering(Endpoint node) {
        return NodeProbes.this.answering(node, now);
      }

      @Override
      public PingResponse lastAnswer(Endpoint node) {
        return lastAnswer.get(node);
      }
    };
  }
}
