package io.vcorfu.client;

import io.vcorfu.client.read.DegradedReader;
import io.vcorfu.client.read.RepairingReader;
import io.vcorfu.client.read.WriteCache;
import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.client.rpc.Messages;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.client.tails.TailKnowledge;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.UnknownStreamException;
import io.vcorfu.protocol.proto.ReadResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One attempt at a stream read for {@link ClusterStreamLog} (which retries it through layout
 * changes): cut at the stream's tail, served from the write cache first and from the replicas for
 * the rest, and from the log replicas ({@link DegradedReader}) when the stream's chain has a single
 * serving replica that cannot serve. Thread-safe.
 */
final class StreamReads {
  private final ReplicaClient ops;
  private final RepairingReader reader;
  private final DegradedReader degraded;
  private final WriteCache writeCache;
  private final TailKnowledge tails;

  /**
   * Per stream, the highest committed entry this client has read (its stream address and global
   * address): where a degraded read that follows the stream can start reading the log.
   */
  private final ConcurrentHashMap<StreamId, long[]> lastRead = new ConcurrentHashMap<>();

  StreamReads(
      ReplicaClient ops,
      RepairingReader reader,
      DegradedReader degraded,
      WriteCache writeCache,
      TailKnowledge tails) {
    this.ops = ops;
    this.reader = reader;
    this.degraded = degraded;
    this.writeCache = writeCache;
    this.tails = tails;
  }

  /** {@link ClusterStreamLog#readStream}, once, against the layout held now. */
  CompletableFuture<List<StreamEntry>> readOnce(StreamId stream, long from, long to) {
    long known = tails.knownTail(stream);
    CompletableFuture<Long> limit =
        to <= known
            ? CompletableFuture.completedFuture(to)
            : tails
                .tails(List.of(stream))
                .thenApply(
                    t -> {
                      long tail = t.streamTails().get(stream);
                      if (tail < 0) {
                        throw new UnknownStreamException(stream);
                      }
                      return Math.min(to, tail);
                    });
    long start = Math.max(0, from);
    return limit
        .thenCompose(
            end -> {
              List<StreamEntry> cached = writeCache.run(stream, start, end);
              long next = start + cached.size();
              if (!cached.isEmpty() && next > end) {
                return CompletableFuture.completedFuture(cached);
              }
              CompletableFuture<List<StreamEntry>> rest =
                  reader
                      .readStream(stream, next, end)
                      .exceptionallyCompose(e -> degradedOrFail(stream, next, end, e))
                      .thenApply(
                          results -> noteRead(stream, Messages.streamEntries(stream, results)));
              return cached.isEmpty() ? rest : rest.thenApply(r -> concat(cached, r));
            })
        .exceptionallyCompose(
            error -> {
              Throwable cause = EpochRpc.unwrap(error);
              if (cause instanceof TrimmedException) {
                return trimMark(stream)
                    .thenCompose(
                        mark -> CompletableFuture.failedFuture(new TrimmedException(mark, stream)));
              }
              return CompletableFuture.failedFuture(cause);
            });
  }

  /**
   * When the stream's chain has a single serving replica and it cannot be reached (or does not
   * serve), reads {@code [from, to]} from the log replicas instead ({@link DegradedReader}); any
   * other failure is {@code error} again (a chain with another replica fails over as usual).
   */
  private CompletableFuture<List<ReadResult>> degradedOrFail(
      StreamId stream, long from, long to, Throwable error) {
    Throwable cause = EpochRpc.unwrap(error);
    var layout = ops.rpc().layout().current();
    boolean unreachable =
        cause instanceof io.vcorfu.protocol.TransportException
            || cause instanceof io.vcorfu.protocol.NotServingException;
    if (!unreachable || layout.servingStream(layout.streamChainIndex(stream)).size() > 1) {
      return CompletableFuture.failedFuture(cause);
    }
    long[] known = lastRead.get(stream);
    return tails
        .tails(List.of(stream))
        .thenCompose(
            t ->
                degraded.readStream(
                    stream,
                    from,
                    to,
                    t.streamLastGlobal().getOrDefault(stream, -1L),
                    known == null ? -1 : known[0],
                    known == null ? -1 : known[1]));
  }

  private List<StreamEntry> noteRead(StreamId stream, List<StreamEntry> entries) {
    for (int i = entries.size() - 1; i >= 0; i--) {
      StreamEntry e = entries.get(i);
      if (!e.isHole()) {
        long[] seen = {e.streamAddress(), e.globalAddress()};
        lastRead.merge(stream, seen, (a, b) -> a[0] >= b[0] ? a : b);
        break;
      }
    }
    return entries;
  }

  /** {@link ClusterStreamLog#readStreamFromLog}, once, against the layout held now. */
  CompletableFuture<List<StreamEntry>> fromLogOnce(StreamId stream, long from, long to) {
    return tails
        .tails(List.of(stream))
        .thenCompose(
            t -> {
              long tail = t.streamTails().getOrDefault(stream, -1L);
              if (tail < 0) {
                throw new UnknownStreamException(stream);
              }
              return degraded.readStream(
                  stream,
                  Math.max(0, from),
                  Math.min(to, tail),
                  t.streamLastGlobal().getOrDefault(stream, -1L));
            })
        .thenApply(results -> Messages.streamEntries(stream, results));
  }

  private static List<StreamEntry> concat(List<StreamEntry> a, List<StreamEntry> b) {
    List<StreamEntry> out = new ArrayList<>(a.size() + b.size());
    out.addAll(a);
    out.addAll(b);
    return out;
  }

  /** The stream's trim mark, from the last replica of its chain. */
  private CompletableFuture<Long> trimMark(StreamId stream) {
    List<Endpoint> chain = ops.rpc().layout().current().streamChain(stream);
    if (chain.isEmpty()) {
      return CompletableFuture.failedFuture(RepairingReader.noReplica(stream));
    }
    return ops.streamTail(chain.get(chain.size() - 1), List.of(stream), false)
        .thenApply(r -> r.getTailsCount() == 0 ? 0L : r.getTails(0).getTrimMark());
  }
}
