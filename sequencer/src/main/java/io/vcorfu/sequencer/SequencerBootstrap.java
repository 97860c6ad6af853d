package io.vcorfu.sequencer;

import io.vcorfu.layout.EpochFence;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fences the tokens of every earlier sequencer, then rebuilds a new sequencer's state from the
 * replicas before it issues a token.
 *
 * <p>First it seals: it proposes an epoch above the layout's and sends {@code Seal{epoch}} to every
 * node of the layout; a node already at a later epoch answers with it, and the proposal starts
 * again above the highest answer. Once every node has sealed the proposal (durably, and with every
 * write admitted under an older epoch finished; see {@link EpochFence}), no token issued before
 * this start can be written any more. Only then it reads the tails: the global tail from every log
 * replica (and the highest global address any stream replica holds), each stream's tail and last
 * global address from the stream replicas, at the new epoch; while a stream chain has no replica or
 * one still copying its streams from the log, each stream's tail as the log replicas' entries show
 * it too (the highest of all counts). So the rebuilt tails cover every entry an earlier token ever
 * wrote (tails never move backwards past an acknowledged write, and no address holding an entry is
 * issued again), and the sequencer serves the new epoch. Retries every 200 ms until every node
 * named in the layout has answered, so nodes of a cluster may start in any order.
 *
 * <p>In a cluster whose layout is agreed elsewhere ({@link #atEpoch}), the epoch is the agreed
 * layout's and is never raised here: the bootstrap seals exactly that epoch on every node of the
 * layout (idempotent: the change that made the layout has usually sealed them already) and reads
 * the tails at it. A node already sealed at a later epoch means a newer layout exists; the
 * bootstrap then stops, and the node replaces this sequencer role when that layout arrives.
 *
 * <p>What it asks of the other nodes goes through {@link Peers}; the server implements it over its
 * RPC client.
 */
public final class SequencerBootstrap implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SequencerBootstrap.class);

  /** What a sequencer's bootstrap asks of the nodes of its layout. */
  public interface Peers {
    /**
     * Seals every epoch below {@code epoch} on {@code node}; completes with the node's epoch after
     * the seal (above {@code epoch} when the node was already sealed further).
     */
    CompletableFuture<Long> seal(Endpoint node, long epoch);

    /**
     * The last global address {@code node}'s log replica holds (-1 when none), at {@code epoch}.
     */
    CompletableFuture<Long> logTail(Endpoint node, long epoch);

    /** Every stream tail {@code node}'s stream replica holds, at {@code epoch}. */
    CompletableFuture<StreamReplicaTails> streamTails(Endpoint node, long epoch);

    /**
     * Every stream's tail as the entries {@code node}'s log replica holds show it, at {@code
     * epoch}: asked only while some stream chain has no replica or one that is still copying its
     * streams from the log (see {@link #needsLogStreamTails}).
     */
    CompletableFuture<StreamReplicaTails> logStreamTails(Endpoint node, long epoch);
  }

  /**
   * True when the stream replicas alone may not know every stream's tail: a stream chain of the
   * current segment is empty (its streams' entries are in the log alone), or was taken up again
   * (its replica holds the older entries only once it has copied them from the log).
   */
  public static boolean needsLogStreamTails(Layout layout) {
    return !layout.streamSince().isEmpty()
        || layout.currentSegment().stream().stream().anyMatch(List::isEmpty);
  }

  /**
   * What one stream replica reports for a bootstrap.
   *
   * @param maxGlobal the highest global address the replica holds, -1 when none
   * @param streams the tail of each stream the replica holds
   */
  public record StreamReplicaTails(
      long maxGlobal, Map<StreamId, StreamTail> streams, List<Long> lost, long lostTotal) {
    /** A stream replica's report (it holds no address marked lost). */
    public StreamReplicaTails(long maxGlobal, Map<StreamId, StreamTail> streams) {
      this(maxGlobal, streams, List.of(), 0);
    }

    /**
     * How many addresses this log replica holds marked lost above {@code global}: counted from
     * {@link #lost} (its highest, ascending) when they reach that low, else all it holds.
     */
    long lostAbove(long global) {
      if (lost.size() < lostTotal && (lost.isEmpty() || lost.get(0) > global)) {
        return lostTotal;
      }
      int i = java.util.Collections.binarySearch(lost, global + 1);
      return lost.size() - (i >= 0 ? i : -i - 1);
    }
  }

  private final Peers peers;
  private final Layout layout;

  /** The epoch proposed to seal; then the one sealed. Confined to the retry thread. */
  private long proposed;

  /** True once every node sealed {@link #proposed}. Confined to the retry thread. */
  private boolean sealed;

  /** True when the epoch is the agreed layout's and must not be raised. */
  private final boolean fixedEpoch;

  /**
   * Stream tails an earlier sequencer of this node knew (empty when none): floors for the tails
   * read from the replicas, since they cover entries no replica may hold any more (lost with a log
   * chain and a stream chain together, see {@link #pastLost}).
   */
  private final Map<StreamId, StreamTail> known;

  private final SequencerService sequencer;
  private final CompletableFuture<Void> done = new CompletableFuture<>();

  /** When waiting for replicas was last logged (nanoTime); confined to the retry thread's flow. */
  private volatile long lastWaitLog = System.nanoTime() - 10_000_000_000L;

  private final ScheduledExecutorService retry =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "sequencer-bootstrap");
            t.setDaemon(true);
            return t;
          });

  /** A bootstrap that raises the epoch above {@code layout}'s on every node (a static layout). */
  public SequencerBootstrap(Peers peers, Layout layout, SequencerService sequencer) {
    this(peers, layout, sequencer, false, Map.of());
  }

  private SequencerBootstrap(
      Peers peers,
      Layout layout,
      SequencerService sequencer,
      boolean fixedEpoch,
      Map<StreamId, StreamTail> known) {
    this.known = Map.copyOf(known);
    this.peers = peers;
    this.layout = layout;
    this.sequencer = sequencer;
    this.fixedEpoch = fixedEpoch;
    this.proposed = fixedEpoch ? layout.epoch() : layout.epoch() + 1;
  }

  /**
   * A bootstrap at the epoch of {@code layout}, an agreed cluster layout naming this sequencer: it
   * seals that epoch (never a higher one) and rebuilds the tails at it.
   */
  public static SequencerBootstrap atEpoch(Peers peers, Layout layout, SequencerService sequencer) {
    return atEpoch(peers, layout, sequencer, Map.of());
  }

  /**
   * {@link #atEpoch(Peers, Layout, SequencerService)} on a node whose earlier sequencer (of an
   * older epoch, bootstrapped but replaced before it served) knew the stream tails {@code known}:
   * each counts as a floor for its stream (a tail never moves back), and such a stream is not moved
   * past lost addresses, its tail being known.
   */
  public static SequencerBootstrap atEpoch(
      Peers peers, Layout layout, SequencerService sequencer, Map<StreamId, StreamTail> known) {
    return new SequencerBootstrap(peers, layout, sequencer, true, known);
  }

  /** Completes once the sequencer serves the new epoch. */
  public CompletableFuture<Void> done() {
    return done;
  }

  /** Starts sealing and reading tails, in the background. */
  public void start() {
    retry.execute(this::attempt);
  }

  private void attempt() {
    if (!sealed) {
      seal();
      return;
    }
    long epoch = proposed;
    List<CompletableFuture<Long>> logs = new ArrayList<>();
    for (Endpoint e : layout.logServers()) {
      logs.add(peers.logTail(e, epoch));
    }
    List<CompletableFuture<StreamReplicaTails>> streams = new ArrayList<>();
    for (Endpoint e : layout.streamServers()) {
      streams.add(peers.streamTails(e, epoch));
    }
    List<CompletableFuture<StreamReplicaTails>> fromLog = new ArrayList<>();
    if (needsLogStreamTails(layout)) {
      for (Endpoint e : layout.logServers()) {
        fromLog.add(peers.logStreamTails(e, epoch));
      }
    }
    List<CompletableFuture<?>> all = new ArrayList<>(logs);
    all.addAll(streams);
    all.addAll(fromLog);
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
        .whenComplete(
            (v, error) -> {
              if (error != null) {
                if (!retry.isShutdown()) {
                  waiting("for replicas to report their tails", epoch, error);
                  retry.schedule(this::attempt, 200, TimeUnit.MILLISECONDS);
                }
                return;
              }
              long globalTail = -1;
              for (var f : logs) {
                globalTail = Math.max(globalTail, f.join());
              }
              Map<StreamId, StreamTail> tails = new HashMap<>();
              for (var f : streams) {
                StreamReplicaTails r = f.join();
                globalTail = Math.max(globalTail, r.maxGlobal());
                r.streams()
                    .forEach((s, t) -> tails.merge(s, t, (a, b) -> a.tail() >= b.tail() ? a : b));
              }
              java.util.Set<StreamId> onStreamReplicas = new java.util.HashSet<>(tails.keySet());
              onStreamReplicas.addAll(known.keySet());
              List<StreamReplicaTails> logReports = new ArrayList<>();
              for (var f : fromLog) {
                StreamReplicaTails r = f.join();
                logReports.add(r);
                globalTail = Math.max(globalTail, r.maxGlobal());
                r.streams()
                    .forEach((s, t) -> tails.merge(s, t, (a, b) -> a.tail() >= b.tail() ? a : b));
              }
              for (Map.Entry<StreamId, StreamTail> e : tails.entrySet()) {
                if (!onStreamReplicas.contains(e.getKey())) {
                  e.setValue(pastLost(e.getValue(), logReports));
                }
              }
              known.forEach((s, t) -> tails.merge(s, t, (a, b) -> a.tail() >= b.tail() ? a : b));
              sequencer.bootstrap(epoch, globalTail, tails).join();
              LOG.info(
                  "sequencer ready at epoch {}: global tail {}, {} streams",
                  epoch,
                  globalTail,
                  tails.size());
              done.complete(null);
            });
  }

  /**
   * The tail of a stream that only the log replicas know (its chain has no replica, or one still
   * copying from the log), past every slot an entry lost with its log chain may have held.
   *
   * <p>Such an entry is gone from the stream's replicas and the log alike, so the log shows the
   * stream shorter than it was. Each lost entry was at a lost log address above the stream's last
   * entry the log shows: an address marked lost on a log replica, or one of a log chain still being
   * rebuilt from the stream replicas ({@link io.vcorfu.layout.LostLogChains}). The tail moves up by
   * one per such address, and the stream's last global address becomes the highest of them, so a
   * new entry's backpointer leads readers to the loss: no slot a lost entry held is issued again,
   * and the slots skipped read as lost, never as holes.
   */
  private StreamTail pastLost(StreamTail t, List<StreamReplicaTails> logReports) {
    long above = 0;
    long highest = -1;
    for (StreamReplicaTails r : logReports) {
      long n = r.lostAbove(t.lastGlobal());
      above += n;
      if (n > 0) {
        highest = Math.max(highest, r.lost().isEmpty() ? -1 : r.lost().get(r.lost().size() - 1));
      }
    }
    for (int[] sc : rebuiltFromStreams()) {
      io.vcorfu.layout.Segment seg = layout.segments().get(sc[0]);
      long n = io.vcorfu.layout.LostLogChains.addressesOn(seg, sc[1], t.lastGlobal() + 1);
      if (n > 0) {
        above += n;
        highest = Math.max(highest, io.vcorfu.layout.LostLogChains.highestOn(seg, sc[1]));
      }
    }
    if (above == 0) {
      return t;
    }
    LOG.warn(
        "sequencer: stream tail {} (last global {}) as the log shows it may miss entries lost with"
            + " their log chain; issuing from {} on, past {} lost addresses",
        t.tail(),
        t.lastGlobal(),
        t.tail() + above + 1,
        above);
    return new StreamTail(t.tail() + above, Math.max(t.lastGlobal(), highest));
  }

  /** The log chains being rebuilt from the stream replicas, (segment, chain) pairs. */
  private List<int[]> rebuiltFromStreams() {
    List<int[]> out = new ArrayList<>();
    for (Endpoint e : layout.rebuilding().keySet()) {
      out.addAll(io.vcorfu.layout.LostLogChains.rebuiltBy(layout, e));
    }
    return out;
  }

  /** Seals {@link #proposed} on every node of the layout, then reads the tails at it. */
  private void seal() {
    long epoch = proposed;
    List<CompletableFuture<Long>> seals = new ArrayList<>();
    for (Endpoint e : layout.allServers()) {
      seals.add(peers.seal(e, epoch));
    }
    CompletableFuture.allOf(seals.toArray(CompletableFuture[]::new))
        .whenCompleteAsync(
            (v, error) -> {
              if (error != null) {
                if (!retry.isShutdown()) {
                  waiting("to seal every node", epoch, error);
                  retry.schedule(this::attempt, 200, TimeUnit.MILLISECONDS);
                }
                return;
              }
              long highest = seals.stream().mapToLong(CompletableFuture::join).max().orElse(epoch);
              if (highest > epoch && fixedEpoch) {
                LOG.info(
                    "sequencer bootstrap at epoch {} stops: a node is sealed at epoch {}, so a"
                        + " newer layout exists",
                    epoch,
                    highest);
                return;
              }
              if (highest > epoch) {
                // Some node was sealed further already (an earlier start got that far): go above
                // it.
                proposed = highest + 1;
              } else {
                LOG.info("sequencer sealed every epoch below {} on {} nodes", epoch, seals.size());
                sealed = true;
              }
              attempt();
            },
            retry);
  }

  /**
   * Says why the bootstrap waits at once and then every 5 s, so a person waiting for the node sees
   * what it waits for (a replica down, a node that does not answer).
   */
  private void waiting(String what, long epoch, Throwable error) {
    long now = System.nanoTime();
    if (now - lastWaitLog > 5_000_000_000L) {
      lastWaitLog = now;
      LOG.info("sequencer of epoch {} waiting {}: {}", epoch, what, unwrap(error).getMessage());
    }
  }

  private static Throwable unwrap(Throwable t) {
    while (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  @Override
  public void close() {
    retry.shutdownNow();
    // A refusal clients retry: the role closed because the node stopped or a newer layout
    // replaced it, and the sequencer of that layout answers instead.
    done.completeExceptionally(
        new io.vcorfu.protocol.NotServingException(
            "sequencer",
            "the sequencer closed before it was ready (the node stopped, or a newer layout"
                + " replaced it); ask again"));
  }
}
