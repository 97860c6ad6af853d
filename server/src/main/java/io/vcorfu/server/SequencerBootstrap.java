package io.vcorfu.server;

import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.LogTailResponse;
import io.vcorfu.protocol.proto.StreamTailEntry;
import io.vcorfu.protocol.proto.StreamTailResponse;
import io.vcorfu.runtime.stream.internal.LayoutView;
import io.vcorfu.runtime.stream.internal.ReplicaOps;
import io.vcorfu.runtime.stream.internal.Rpc;
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
 * Rebuilds a new sequencer's state from the replicas before it issues a token: the global tail from
 * every log replica (and the highest global address any stream replica holds), each stream's tail
 * and last global address from the stream replicas. Retries every 200 ms until every replica named
 * in the layout has answered, so nodes of a cluster may start in any order.
 */
final class SequencerBootstrap implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SequencerBootstrap.class);

  private final ReplicaOps ops;
  private final Layout layout;
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
    this.layout = layout;
    this.sequencer = sequencer;
    this.ops = new ReplicaOps(new Rpc(peers, LayoutView.of(peers, layout), StreamId.of("sequencer")));
  }

  CompletableFuture<Void> done() {
    return done;
  }

  void start() {
    retry.execute(this::attempt);
  }

  private void attempt() {
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
                  LOG.debug("sequencer bootstrap waiting for replicas: {}", Rpc.unwrap(error).getMessage());
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
              sequencer.bootstrap(globalTail, tails).join();
              LOG.info("sequencer ready: global tail {}, {} streams", globalTail, tails.size());
              done.complete(null);
            });
  }

  @Override
  public void close() {
    retry.shutdownNow();
    done.completeExceptionally(new IllegalStateException("node closed before the sequencer was ready"));
  }
}
