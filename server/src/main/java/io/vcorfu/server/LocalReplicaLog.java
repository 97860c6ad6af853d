package io.vcorfu.server;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.GlobalEntry;
import io.vcorfu.client.IssueCondition;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLog;
import io.vcorfu.client.Tails;
import io.vcorfu.client.rpc.Messages;
import io.vcorfu.layout.Layout;
import io.vcorfu.logunit.StreamReplica;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.TailRequest;
import io.vcorfu.protocol.proto.TailResponse;
import io.vcorfu.sequencer.ReadLeases;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The stream log of a node's remote-view host: stream reads come from the node's own stream replica
 * and tails from its own sequencer, in process; whatever this node cannot answer by itself goes to
 * the cluster like any client's request.
 *
 * <p>Invariant: answers are the ones the cluster would give. A stream read returns the slots the
 * local replica holds committed (a committed slot is final: the chain decided it, and no replica
 * can ever answer differently); a slot held here uncommitted (its commit is on its way) is read
 * here again for a few milliseconds; from the first slot that is not committed here then (empty, in
 * flight, trimmed, or a stream this replica does not hold) the rest of the range is read through
 * the cluster's repairing reader, which waits for or repairs it. Tails come from the local
 * sequencer only while the current layout names this node the sequencer, and only under the same
 * rules as a tail request over the network: after the sequencer has bootstrapped, after every read
 * lease from before a restart has run out, and once every lease holder has been shown the tokens
 * the answer reveals. Appends, trims and global reads are the cluster's.
 *
 * <p>Thread-safe.
 */
final class LocalReplicaLog implements StreamLog {
  /** The most slots read from the local replica in one go (the replica's own range limit). */
  private static final int MAX_LOCAL_RANGE = 4096;

  /**
   * How many times an uncommitted slot is read here again before the cluster is asked: 100 us
   * doubling, 51 ms in all, well past the 2 ms a writer's commits wait for a write to ride on (on a
   * loaded host 6.3 ms was sometimes too short, and the read went to another replica, which would
   * itself have waited for the same commit).
   */
  static final int LOCAL_WAITS = 9;

  private final StreamLog cluster;
  private final Endpoint self;
  private final Supplier<Layout> layout;
  private final StreamReplica replica;
  private final Supplier<SequencerRole> sequencer;

  /**
   * A log over {@code cluster} that answers from {@code replica} and the node's current sequencer
   * role where it can; {@code replica} is null when this node hosts no stream replica, and {@code
   * sequencer} supplies null while it hosts no sequencer.
   */
  LocalReplicaLog(
      StreamLog cluster,
      Endpoint self,
      Supplier<Layout> layout,
      StreamReplica replica,
      Supplier<SequencerRole> sequencer) {
    this.cluster = cluster;
    this.self = self;
    this.layout = layout;
    this.replica = replica;
    this.sequencer = sequencer;
  }

  @Override
  public CompletableFuture<List<StreamEntry>> readStream(StreamId stream, long from, long to) {
    return readStream(stream, from, to, 0);
  }

  /**
   * Reads {@code [from, to]}, the first slot having been found held but not yet committed here
   * {@code waited} times in a row: its commit rides on its writer's next message to this node, or
   * follows within a few milliseconds ({@code RidingCommits} in the client), so it is read here
   * again after 100, 200, 400 ... us, up to {@link #LOCAL_WAITS} times, before the cluster's
   * repairing reader is asked.
   */
  private CompletableFuture<List<StreamEntry>> readStream(
      StreamId stream, long from, long to, int waited) {
    if (replica == null || from > to || from < 0) {
      return cluster.readStream(stream, from, to);
    }
    long end = Math.min(to, from + MAX_LOCAL_RANGE - 1);
    return replica
        .read(stream, from, end)
        .handle(
            (results, error) -> {
              if (error != null) {
                // Not held here, or not readable here: the cluster decides.
                return cluster.readStream(stream, from, to);
              }
              List<ReadResult> committed = committedPrefix(results);
              List<StreamEntry> head = Messages.streamEntries(stream, committed);
              long next = from + committed.size();
              if (next > to) {
                return CompletableFuture.completedFuture(head);
              }
              boolean inFlight =
                  committed.size() < results.size()
                      && results.get(committed.size()).getStatus() == ReadResult.Status.UNCOMMITTED;
              CompletableFuture<List<StreamEntry>> rest;
              if (committed.isEmpty() && inFlight && waited < LOCAL_WAITS) {
                rest =
                    CompletableFuture.supplyAsync(
                            () -> null,
                            CompletableFuture.delayedExecutor(
                                100L << waited, TimeUnit.MICROSECONDS))
                        .thenCompose(v -> readStream(stream, next, to, waited + 1));
              } else if (committed.isEmpty()) {
                rest = cluster.readStream(stream, next, to);
              } else {
                rest = readStream(stream, next, to, 0);
              }
              return rest.thenApply(
                  tail -> {
                    List<StreamEntry> all = new ArrayList<>(head.size() + tail.size());
                    all.addAll(head);
                    all.addAll(tail);
                    return all;
                  });
            })
        .thenCompose(f -> f);
  }

  private static List<ReadResult> committedPrefix(List<ReadResult> results) {
    int n = 0;
    while (n < results.size() && results.get(n).getStatus() == ReadResult.Status.COMMITTED) {
      n++;
    }
    return results.subList(0, n);
  }

  @Override
  public CompletableFuture<Tails> tails(Collection<StreamId> streams) {
    SequencerRole role = sequencer.get();
    if (role == null || !self.equals(layout.get().sequencer())) {
      return cluster.tails(streams);
    }
    List<StreamId> asked = List.copyOf(streams);
    TailRequest.Builder request = TailRequest.newBuilder();
    asked.forEach(s -> request.addStreams(s.toMsg()));
    ReadLeases leases = role.leases();
    return role.ready()
        .thenCompose(v -> role.sequencer().tail(request.build()))
        .thenCompose(
            t ->
                (leases == null || t.getGlobalTail() < 0
                        ? CompletableFuture.<Void>completedFuture(null)
                        : leases.visibleTo(null, t.getGlobalTail()))
                    .thenApply(v -> tailsOf(asked, t)));
  }

  private Tails tailsOf(List<StreamId> asked, TailResponse t) {
    Map<StreamId, Long> tails = new HashMap<>();
    Map<StreamId, Long> lastGlobal = new HashMap<>();
    for (int i = 0; i < asked.size(); i++) {
      tails.put(asked.get(i), t.getStreamTails(i));
      lastGlobal.put(asked.get(i), t.getStreamLastGlobal(i));
    }
    return new Tails(t.getGlobalTail(), tails, lastGlobal);
  }

  @Override
  public CompletableFuture<AppendResult> append(Collection<StreamId> streams, byte[] payload) {
    return cluster.append(streams, payload);
  }

  @Override
  public CompletableFuture<AppendResult> appendConditional(
      Collection<StreamId> streams, byte[] payload, IssueCondition condition) {
    return cluster.appendConditional(streams, payload, condition);
  }

  @Override
  public CompletableFuture<GlobalEntry> readGlobal(long address) {
    return cluster.readGlobal(address);
  }

  @Override
  public CompletableFuture<List<GlobalEntry>> readGlobalRange(long from, long to) {
    return cluster.readGlobalRange(from, to);
  }

  @Override
  public CompletableFuture<GlobalEntry> fill(long address) {
    return cluster.fill(address);
  }

  @Override
  public long epoch() {
    return cluster.epoch();
  }

  @Override
  public CompletableFuture<Long> trimStream(StreamId stream, long before) {
    return cluster.trimStream(stream, before);
  }

  @Override
  public CompletableFuture<Long> pinStream(StreamId stream, StreamId name) {
    return cluster.pinStream(stream, name);
  }

  @Override
  public CompletableFuture<Void> unpinStream(StreamId stream, StreamId name) {
    return cluster.unpinStream(stream, name);
  }

  @Override
  public CompletableFuture<io.vcorfu.client.SnapshotFloor> registerSnapshots(
      long oldest, int leaseMs) {
    return cluster.registerSnapshots(oldest, leaseMs);
  }

  @Override
  public void close() {
    cluster.close();
  }
}
