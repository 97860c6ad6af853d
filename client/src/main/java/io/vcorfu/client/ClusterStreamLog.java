package io.vcorfu.client;

import io.vcorfu.client.chain.Appender;
import io.vcorfu.client.chain.ChainWriter;
import io.vcorfu.client.layout.Failover;
import io.vcorfu.client.layout.LayoutCache;
import io.vcorfu.client.layout.LayoutWatch;
import io.vcorfu.client.read.DegradedReader;
import io.vcorfu.client.read.RepairingReader;
import io.vcorfu.client.read.WriteCache;
import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.client.rpc.Messages;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.client.tails.TailKnowledge;
import io.vcorfu.protocol.ClassesNeededException;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.Transport;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.UnknownStreamException;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.TailRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * The stream layer over a cluster described by a layout: the paper's Table 1 (see {@link
 * StreamLog}) put together from its parts: the {@link Appender} and {@link ChainWriter} (write
 * path), the {@link RepairingReader} and {@link WriteCache} (read path, put together for streams by
 * {@link StreamReads}), {@link TailKnowledge} (tails and read leases), all calling the replicas
 * through one {@link ReplicaClient}. Open one with {@link #connect}, naming one or more nodes of
 * the cluster. Thread-safe.
 *
 * <p><b>Layout changes.</b> Every operation rides through a layout change (a node removed, the
 * sequencer moved) within {@link StreamLogOptions#failoverTimeout()} (see {@link Failover}): reads,
 * tails, fills, trims and remote-view calls change nothing a second run would repeat wrongly, and
 * run again whole against the refreshed layout's nodes; an append repeats only its token request
 * and the decision of an entry whose write failed (see {@link Appender}). Errors no layout change
 * cures are returned at once.
 */
public final class ClusterStreamLog implements StreamLog {
  private final RpcClient client;
  private final ReplicaClient ops;
  private final Appender appender;
  private final RepairingReader reader;
  private final DegradedReader degraded;
  private final WriteCache writeCache;
  private final TailKnowledge tails;
  private final StreamReads streamReads;
  private final Failover failover;
  private final StreamPinner pinner;

  /** Abandons requests the layout moved past (null when the options turn it off). */
  private final LayoutWatch watch;

  /** The longest a held tail request waits: half the request timeout. */
  private final long longestHeldTailMs;

  /** A transport this log created for itself and closes with itself, or null. */
  private volatile Transport ownedTransport;

  private ClusterStreamLog(RpcClient client, LayoutCache layout, StreamLogOptions options) {
    this.client = client;
    this.longestHeldTailMs = options.rpc().requestTimeout().toMillis() / 2;
    StreamId clientId = StreamId.of(UUID.randomUUID().toString());
    EpochRpc rpc = new EpochRpc(client, layout, clientId);
    if (!options.layoutCheckAfter().isZero()) {
      this.watch = new LayoutWatch(layout, options.layoutCheckAfter());
      rpc.watchLayout(watch);
    } else {
      this.watch = null;
    }
    this.ops = new ReplicaClient(rpc);
    ChainWriter writer = new ChainWriter(ops);
    this.reader = new RepairingReader(ops, writer, options.repairAfter());
    this.degraded = new DegradedReader(reader);
    this.writeCache = new WriteCache(options.writeCacheBytes());
    this.tails = new TailKnowledge(ops, options.readLease());
    this.streamReads = new StreamReads(ops, reader, degraded, writeCache, tails);
    this.failover = new Failover(layout, options.failoverTimeout());
    this.pinner =
        new StreamPinner(
            StreamPinner.Calls.over(ops),
            s -> layout().current().streamChain(s),
            this::trimStreamOnce);
    this.appender =
        new Appender(
            ops,
            writer,
            options.maxEntryBytes(),
            options.maxAppendAttempts(),
            this::epoch,
            this::committed,
            failover,
            options.sequencerWrites());
  }

  /** Learns the tails a committed append reveals and keeps its payload for reads. */
  private void committed(AppendResult r, byte[] payload) {
    r.streamAddresses().forEach((s, a) -> tails.learn(s, a, r.globalAddress()));
    tails.learnGlobalTail(r.globalAddress());
    writeCache.put(r.streamAddresses(), r.globalAddress(), payload);
  }

  /** Connects through {@code transport}, reading the layout from {@code seed}. */
  public static ClusterStreamLog connect(
      Transport transport, Endpoint seed, StreamLogOptions options) {
    return connect(transport, List.of(seed), options);
  }

  /**
   * Connects through {@code transport}, reading the layout from the first of {@code seeds} that
   * answers (in order; see {@link LayoutCache#fetch(RpcClient, List)}). Every seed stays a place to
   * refresh the layout from, beside the servers the layout names.
   *
   * @throws IllegalArgumentException if {@code seeds} is empty
   * @throws io.vcorfu.protocol.VCorfuException when no seed answers: a {@code TransportException}
   *     naming what each seed said (nothing listens there, ...), or an {@code RpcTimeoutException}
   */
  public static ClusterStreamLog connect(
      Transport transport, List<Endpoint> seeds, StreamLogOptions options) {
    if (seeds.isEmpty()) {
      throw new IllegalArgumentException("no endpoint to connect to");
    }
    if (options.tls() != null
        && !(transport instanceof NettyTransport n
            && n.tls() != null
            && n.tls().options().equals(options.tls()))) {
      throw new IllegalArgumentException(
          "the options ask for TLS with "
              + options.tls()
              + " but the transport given speaks "
              + (transport instanceof NettyTransport n && n.tls() != null
                  ? "TLS with " + n.tls().options()
                  : "no TLS")
              + ": make it with new NettyTransport(options.tls())");
    }
    RpcClient client = transport.newClient(options.rpc());
    try {
      return new ClusterStreamLog(client, LayoutCache.fetch(client, seeds), options);
    } catch (java.util.concurrent.CompletionException e) {
      client.close();
      // The typed error the seeds gave, not the future's wrapper.
      if (EpochRpc.unwrap(e) instanceof RuntimeException typed) {
        throw typed;
      }
      throw e;
    } catch (RuntimeException e) {
      client.close();
      throw e;
    }
  }

  /**
   * Connects over TCP (a transport of its own, closed with the log), reading the layout from {@code
   * seed}.
   */
  public static ClusterStreamLog connect(Endpoint seed, StreamLogOptions options) {
    return connect(List.of(seed), options);
  }

  /**
   * Connects over TCP (a transport of its own, closed with the log), reading the layout from the
   * first of {@code seeds} that answers.
   */
  public static ClusterStreamLog connect(List<Endpoint> seeds, StreamLogOptions options) {
    Transport transport = new NettyTransport(options.tls());
    try {
      ClusterStreamLog log = connect(transport, seeds, options);
      log.ownedTransport = transport;
      return log;
    } catch (RuntimeException e) {
      transport.close();
      throw e;
    }
  }

  public LayoutCache layout() {
    return ops.rpc().layout();
  }

  /**
   * The epoch of the layout this client uses now (refreshed when a server answers WrongEpoch);
   * while a read lease answers tails from memory, no later than the epoch that lease's knowledge
   * comes from, so a snapshot answered from a lease granted before a sequencer restart is never
   * labelled with the epoch after it.
   */
  @Override
  public long epoch() {
    return tails.epoch(layout().current().epoch());
  }

  /** Typed access to the replicas, for tools (CLI, benchmarks) that need the raw operations. */
  public ReplicaClient ops() {
    return ops;
  }

  @Override
  public CompletableFuture<AppendResult> append(Collection<StreamId> streams, byte[] payload) {
    return appender.append(List.copyOf(streams), payload, null);
  }

  @Override
  public CompletableFuture<AppendResult> appendConditional(
      Collection<StreamId> streams, byte[] payload, IssueCondition condition) {
    return appender.append(List.copyOf(streams), payload, condition);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Fails with {@link UnknownStreamException} when the stream has never been written, and with
   * {@link TrimmedException} (carrying the stream and its exact trim mark) when the range starts
   * below the trim mark. Reads never go past the stream's tail: a range beyond it is cut short.
   *
   * <p>Entries this client appended are served from its write cache ({@link
   * StreamLogOptions#writeCacheBytes()}) while they are retained: the leading run of cached
   * addresses needs no request, and only the rest of the range is read from the replicas. A cached
   * entry is the committed one, so the result is the same; only an entry trimmed by another client
   * can still be returned from the cache instead of failing with {@link TrimmedException}.
   */
  @Override
  public CompletableFuture<List<StreamEntry>> readStream(StreamId stream, long from, long to) {
    return failover.idempotent(() -> streamReads.readOnce(stream, from, to));
  }

  /**
   * The decided slots {@code [from, to]} of {@code stream} as the replicas answer them (committed
   * data or committed holes, each with its stream address), repairing undecided ones as any read
   * does and riding through layout changes. Unlike {@link #readStream} it is not cut at the tail: a
   * slot nobody wrote is filled with a hole after the repair wait. What a rebuild copies.
   */
  public CompletableFuture<List<io.vcorfu.protocol.proto.ReadResult>> decidedStream(
      StreamId stream, long from, long to) {
    return failover.idempotent(() -> reader.readStream(stream, from, to));
  }

  /** {@link #decidedStream} for global addresses {@code [from, to]}. */
  public CompletableFuture<List<io.vcorfu.protocol.proto.ReadResult>> decidedGlobal(
      long from, long to) {
    return failover.idempotent(() -> reader.readGlobal(from, to));
  }

  /**
   * Reads {@code [from, to]} of {@code stream} from the log replicas alone, as a read does while no
   * replica of the stream's chain serves ({@link DegradedReader}), whether or not one does: for
   * audits of the log against the stream replicas, and to measure what degraded mode costs. Cut at
   * the stream's tail; fails with {@link UnknownStreamException} for a stream never written.
   */
  public CompletableFuture<List<StreamEntry>> readStreamFromLog(
      StreamId stream, long from, long to) {
    return failover.idempotent(() -> streamReads.fromLogOnce(stream, from, to));
  }

  /** Global addresses read by degraded stream reads (from the log) since this client started. */
  public long degradedReads() {
    return degraded.scanned();
  }

  /** Log reads made to decide stream slots found empty since this client started. */
  public long logReadsForStreamRepairs() {
    return reader.logReadsForStreamRepairs();
  }

  /** Log reads (round trips) degraded stream reads made since this client started. */
  public long degradedRequests() {
    return degraded.requests();
  }

  @Override
  public CompletableFuture<GlobalEntry> readGlobal(long address) {
    return readGlobalRange(address, address)
        .thenApply(
            l -> {
              if (l.isEmpty()) {
                throw new IllegalArgumentException(
                    "global address " + address + " is beyond the log tail");
              }
              return l.get(0);
            });
  }

  @Override
  public CompletableFuture<GlobalEntry> fill(long address) {
    if (address < 0) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException("a global address is 0 or more, not " + address));
    }
    return failover.idempotent(() -> fillOnce(address));
  }

  private CompletableFuture<GlobalEntry> fillOnce(long address) {
    CompletableFuture<Long> tail =
        address <= tails.knownGlobalTail()
            ? CompletableFuture.completedFuture(address)
            : tails.tails(List.of()).thenApply(Tails::globalTail);
    return tail.thenCompose(
        t -> {
          if (address > t) {
            throw new IllegalArgumentException(
                "global address " + address + " is beyond the log tail " + t);
          }
          return reader
              .fillGlobal(address)
              .thenApply(r -> Messages.globalEntries(List.of(r)).get(0));
        });
  }

  @Override
  public CompletableFuture<List<GlobalEntry>> readGlobalRange(long from, long to) {
    return failover.idempotent(() -> readGlobalRangeOnce(from, to));
  }

  private CompletableFuture<List<GlobalEntry>> readGlobalRangeOnce(long from, long to) {
    CompletableFuture<Long> limit =
        to <= tails.knownGlobalTail()
            ? CompletableFuture.completedFuture(to)
            : tails.tails(List.of()).thenApply(t -> Math.min(to, t.globalTail()));
    return limit.thenCompose(
        end -> reader.readGlobal(Math.max(0, from), end).thenApply(Messages::globalEntries));
  }

  /**
   * {@inheritDoc}
   *
   * <p>Concurrent calls share requests, and with a read lease ({@link
   * StreamLogOptions#readLease()}) covering every stream asked for the answer comes from memory
   * (see {@link TailKnowledge#tails}).
   */
  @Override
  public CompletableFuture<Tails> tails(Collection<StreamId> streams) {
    return failover.idempotent(() -> tails.tails(streams));
  }

  /**
   * {@inheritDoc}
   *
   * <p>The sequencer holds the request (never a read lease's memory), for {@code wait} but at most
   * half the request timeout; the request rides through layout changes like {@link #tails}.
   */
  @Override
  public CompletableFuture<Tails> tailsPast(List<StreamId> streams, long[] marks, Duration wait) {
    if (marks.length != streams.size() || streams.isEmpty()) {
      throw new IllegalArgumentException(
          "one mark per stream, at least one: "
              + streams.size()
              + " streams, "
              + marks.length
              + " marks");
    }
    List<StreamId> asked = List.copyOf(streams);
    long[] copy = marks.clone();
    int waitMs = (int) Math.max(0, Math.min(wait.toMillis(), longestHeldTailMs));
    TailRequest.Builder held = TailRequest.newBuilder().setWaitMs(waitMs);
    for (int i = 0; i < copy.length; i++) {
      held.addStreams(asked.get(i).toMsg()).addPastStreamTails(copy[i]);
    }
    return failover.idempotent(
        () ->
            ops.rpc()
                .call(io.vcorfu.layout.Layout::sequencer, Request.newBuilder().setTail(held))
                .thenApply(r -> Messages.tails(asked, r.getTail())));
  }

  /** Whether this client holds a usable read lease now (for tests and diagnostics). */
  public boolean holdsReadLease() {
    return tails.holdsReadLease();
  }

  /**
   * Sent to the last replica of the stream's chain, which hosts the stream's remote views; the host
   * only reads, so a call is sent again through layout changes like a read (to the last replica of
   * the refreshed layout's chain). A call with a {@link ClassBundle} names it by digest; when the
   * host asks for it ({@link ClassesNeededException}), the call is sent to that host once more
   * carrying the bundle's classes.
   */
  @Override
  public CompletableFuture<ViewCallResult> viewCall(ViewCall call) {
    return failover.idempotent(
        () -> {
          List<Endpoint> chain = layout().current().streamChain(call.stream());
          if (chain.isEmpty()) {
            return CompletableFuture.failedFuture(RepairingReader.noReplica(call.stream()));
          }
          Endpoint host = chain.get(chain.size() - 1);
          io.vcorfu.protocol.proto.ViewCallRequest request = Messages.toMsg(call);
          return ops.viewCall(host, request)
              .exceptionallyCompose(
                  e -> {
                    if (call.bundle() != null
                        && EpochRpc.unwrap(e) instanceof ClassesNeededException needed
                        && call.bundle().hasDigest(needed.digest())) {
                      // Once per call: a host that asks again (it restarted, or dropped the
                      // bundle as unused) is answered the same way on the next call.
                      return ops.viewCall(host, Messages.withClasses(request, call.bundle()));
                    }
                    return CompletableFuture.failedFuture(e);
                  })
              .thenApply(Messages::fromMsg);
        });
  }

  /**
   * {@inheritDoc}
   *
   * <p>A mark below 0 or past the stream's tail + 1 is refused with {@link
   * io.vcorfu.protocol.BadRequestException} before anything is done. Before any replica trims,
   * every entry of the stream below {@code before} is decided and every committed one whose
   * deciding replica is this stream's is committed at all its other copies ({@link
   * RepairingReader#settleBelow}), so trimming this stream never changes what the entry's other
   * streams and the log read (the rule is in {@link ChainWriter}). If that cannot be done (a copy's
   * replica does not answer) nothing is trimmed and the error is returned. Then the chain's last
   * replica trims first: it holds the fewest slots (a chain is written in order), so when it
   * accepts the mark every other replica accepts it too.
   */
  @Override
  public CompletableFuture<Long> trimStream(StreamId stream, long before) {
    return failover.idempotent(() -> trimStreamOnce(stream, before));
  }

  /** {@inheritDoc} See {@link StreamPinner}; retried through layout changes. */
  @Override
  public CompletableFuture<Long> pinStream(StreamId stream, StreamId name) {
    return failover.idempotent(() -> pinner.pin(stream, name));
  }

  @Override
  public CompletableFuture<Void> unpinStream(StreamId stream, StreamId name) {
    return failover.idempotent(() -> pinner.unpin(stream, name));
  }

  /** {@inheritDoc} Registered with the sequencer, retried through layout changes. */
  @Override
  public CompletableFuture<SnapshotFloor> registerSnapshots(long oldest, int leaseMs) {
    return failover.idempotent(() -> ops.snapshots(oldest, leaseMs));
  }

  private CompletableFuture<Long> trimStreamOnce(StreamId stream, long before) {
    List<Endpoint> chain = layout().current().streamChain(stream);
    if (chain.isEmpty()) {
      return CompletableFuture.failedFuture(RepairingReader.noReplica(stream));
    }
    Endpoint last = chain.get(chain.size() - 1);
    return reader
        .settleBelow(stream, before)
        .thenCompose(settled -> ops.streamTrim(last, stream, before))
        .thenCompose(
            lastMark -> {
              List<CompletableFuture<Long>> trims = new ArrayList<>();
              for (Endpoint replica : chain.subList(0, chain.size() - 1)) {
                trims.add(ops.streamTrim(replica, stream, before));
              }
              return CompletableFuture.allOf(trims.toArray(CompletableFuture[]::new))
                  .thenApply(
                      v -> {
                        writeCache.trim(stream, before);
                        return Math.min(
                            lastMark,
                            trims.stream()
                                .mapToLong(CompletableFuture::join)
                                .min()
                                .orElse(lastMark));
                      });
            });
  }

  @Override
  public void close() {
    if (watch != null) {
      watch.close();
    }
    tails.close(Duration.ofSeconds(1));
    client.close();
    Transport owned = ownedTransport;
    if (owned != null) {
      owned.close();
    }
  }
}
