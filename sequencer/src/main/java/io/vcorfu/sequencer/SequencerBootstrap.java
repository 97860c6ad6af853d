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
  public record StreamReplicaTails(long maxGlobal, Map<StreamId, StreamTail> streams) {}

  private final Peers peers;
  private final Layout layout;

  /** The epoch proposed to seal; then the one sealed. Confined to the retry thread. */
  private long proposed;

  /** True once every node sealed {@link #proposed}. Confined to the retry thread. */
  private boolean sealed;

  /** True when the epoch is the agreed layout's and must not be raised. */
  private final boolean fixedEpoch;

  private final SequencerService sequencer;
  private final CompletableFuture<Void> done = new CompletableFuture<>();
  private final ScheduledExecutorService retry =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "sequencer-bootstrap");
            t.setDaemon(true);
            return t;
          });

  /** A bootstrap that raises the epoch above {@code layout}'s on every node (a static layout). */
  public SequencerBootstrap(Peers peers, Layout layout, SequencerService sequencer) {
    this(peers, layout, sequencer, false);
  }

  private SequencerBootstrap(
      Peers peers, Layout layout, SequencerService sequencer, boolean fixedEpoch) {
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
    return new SequencerBootstrap(peers, layout, sequencer, true);
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
    if (needsLogStreamTails(layout)) {
      for (Endpoint e : layout.logServers()) {
        streams.add(peers.logStreamTails(e, epoch));
      }
    }
    List<CompletableFuture<?>> all = new ArrayList<>(logs);
    all.addAll(streams);
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
        .whenComplete(
            (v, error) -> {
              if (error != null) {
                if (!retry.isShutdown()) {
                  LOG.debug(
                      "sequencer bootstrap waiting for replicas: {}", unwrap(error).getMessage());
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
              sequencer.bootstrap(epoch, globalTail, tails).join();
              LOG.info(
                  "sequencer ready at epoch {}: global tail {}, {} streams",
                  epoch,
                  globalTail,
                  tails.size());
              done.complete(null);
            });
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
                  LOG.debug(
                      "sequencer waiting to seal epoch {}: {}", epoch, unwrap(error).getMessage());
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

  private static Throwable unwrap(Throwable t) {
    while (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  @Override
  public void close() {
    retry.shutdownNow();
    done.completeExceptionally(
        new IllegalStateException("node closed before the sequencer was ready"));
  }
}
