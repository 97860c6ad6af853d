package io.vcorfu.server;

import io.vcorfu.client.layout.LayoutCache;
import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.LogTailResponse;
import io.vcorfu.protocol.proto.StreamTailEntry;
import io.vcorfu.protocol.proto.StreamTailResponse;
import io.vcorfu.sequencer.SequencerService;
import io.vcorfu.sequencer.StreamTailInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
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
 * global address from the stream replicas, at the new epoch. So the rebuilt tails cover every entry
 * an earlier token ever wrote (tails never move backwards past an acknowledged write, and no
 * address holding an entry is issued again), and the sequencer serves the new epoch. Retries every
 * 200 ms until every node named in the layout has answered, so nodes of a cluster may start in any
 * order.
 */
final class SequencerBootstrap implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SequencerBootstrap.class);

  private final RpcClient peers;
  private final Layout layout;

  /** The epoch proposed to seal; then the one sealed. Confined to the retry thread. */
  private long proposed;

  /**
   * Operations at the sealed epoch; null until every node sealed it. Confined to the retry thread.
   */
  private ReplicaClient ops;

  private final SequencerService sequencer;
  private final CompletableFuture<Void> done = new CompletableFuture<>();
  private final ScheduledExecutorService retry =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "sequencer-bootstrap");
            t.setDaemon(true);
            return t;
          });

  SequencerBootstrap(RpcClient peers, Layout layout, SequencerService sequencer) {
    this.peers = peers;
    this.layout = layout;
    this.sequencer = sequencer;
    this.proposed = layout.epoch() + 1;
  }

  private ReplicaClient opsAt(Layout l) {
    return new ReplicaClient(
        new EpochRpc(peers, LayoutCache.of(peers, l), StreamId.of("sequencer")));
  }

  CompletableFuture<Void> done() {
    return done;
  }

  void start() {
    retry.execute(this::attempt);
  }

  private void attempt() {
    if (ops == null) {
      seal();
      return;
    }
    List<CompletableFuture<LogTailResponse>> logs = new ArrayList<>();
    for (Endpoint e : Node.logServers(layout)) {
      logs.add(ops.logTail(e));
    }
    List<CompletableFuture<StreamTailResponse>> streams = new ArrayList<>();
    for (Endpoint e : Node.streamServers(layout)) {
      streams.add(ops.streamTail(e, List.of(), true));
    }
    List<CompletableFuture<?>> all = new ArrayList<>(logs);
    all.addAll(streams);
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
        .whenComplete(
            (v, error) -> {
              if (error != null) {
                if (!retry.isShutdown()) {
                  LOG.debug(
                      "sequencer bootstrap waiting for replicas: {}",
                      EpochRpc.unwrap(error).getMessage());
                  retry.schedule(this::attempt, 200, TimeUnit.MILLISECONDS);
                }
                return;
              }
              long globalTail = -1;
              for (var f : logs) {
                globalTail = Math.max(globalTail, f.join().getTail());
              }
              Map<StreamId, StreamTailInfo> tails = new HashMap<>();
              for (var f : streams) {
                StreamTailResponse r = f.join();
                globalTail = Math.max(globalTail, r.getMaxGlobal());
                for (StreamTailEntry t : r.getTailsList()) {
                  StreamId s = StreamId.fromMsg(t.getStream());
                  StreamTailInfo info = new StreamTailInfo(t.getTail(), t.getLastGlobal());
                  tails.merge(s, info, (a, b) -> a.tail() >= b.tail() ? a : b);
                }
              }
              sequencer.bootstrap(proposed, globalTail, tails).join();
              LOG.info(
                  "sequencer ready at epoch {}: global tail {}, {} streams",
                  proposed,
                  globalTail,
                  tails.size());
              done.complete(null);
            });
  }

  /** Seals {@link #proposed} on every node of the layout, then reads the tails at it. */
  private void seal() {
    ReplicaClient sealing = opsAt(layout);
    long epoch = proposed;
    List<CompletableFuture<Long>> seals = new ArrayList<>();
    for (Endpoint e : layout.allServers()) {
      seals.add(sealing.seal(e, epoch));
    }
    CompletableFuture.allOf(seals.toArray(CompletableFuture[]::new))
        .whenCompleteAsync(
            (v, error) -> {
              if (error != null) {
                if (!retry.isShutdown()) {
                  LOG.debug(
                      "sequencer waiting to seal epoch {}: {}",
                      epoch,
                      EpochRpc.unwrap(error).getMessage());
                  retry.schedule(this::attempt, 200, TimeUnit.MILLISECONDS);
                }
                return;
              }
              long highest = seals.stream().mapToLong(CompletableFuture::join).max().orElse(epoch);
              if (highest > epoch) {
                // Some node was sealed further already (an earlier start got that far): go above
                // it.
                proposed = highest + 1;
              } else {
                LOG.info("sequencer sealed every epoch below {} on {} nodes", epoch, seals.size());
                ops = opsAt(layout.withEpoch(epoch));
              }
              attempt();
            },
            retry);
  }

  @Override
  public void close() {
    retry.shutdownNow();
    done.completeExceptionally(
        new IllegalStateException("node closed before the sequencer was ready"));
  }
}
