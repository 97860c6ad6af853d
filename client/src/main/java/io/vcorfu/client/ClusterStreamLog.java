package io.vcorfu.client;

import com.google.protobuf.ByteString;
import io.vcorfu.client.chain.ChainWriter;
import io.vcorfu.client.layout.LayoutCache;
import io.vcorfu.client.read.RepairingReader;
import io.vcorfu.client.read.WriteCache;
import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.client.tails.ReadLease;
import io.vcorfu.client.tails.TailBatcher;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TokenRefusedException;
import io.vcorfu.protocol.TooLargeException;
import io.vcorfu.protocol.Transport;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.UnknownStreamException;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadLeaseResponse;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.protocol.proto.TailResponse;
import io.vcorfu.protocol.proto.Token;
import io.vcorfu.protocol.proto.TxResolution;
import io.vcorfu.protocol.proto.ViewCallRequest;
import io.vcorfu.protocol.proto.ViewCallResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The stream layer over a cluster described by a layout: token from the sequencer, writes through
 * the log chain and the stream chains, commits; readers that wait a bounded time and repair.
 * Thread-safe.
 */
public final class ClusterStreamLog implements StreamLog {
  private final RpcClient client;
  private final ReplicaClient ops;
  private final ChainWriter driver;
  private final RepairingReader reader;
  private final StreamLogOptions options;
  private final TailBatcher tailBatcher = new TailBatcher(this::sendTail);
  private final WriteCache writeCache;

  /**
   * Highest stream tail this client has seen per stream, with the global address of the entry
   * there; reads never go past it (no fills beyond a tail).
   */
  private final Map<StreamId, KnownTail> knownTails = new ConcurrentHashMap<>();

  /** The read lease, or null when the options ask for none. */
  private final ReadLease lease;

  private final AtomicLong knownGlobalTail = new AtomicLong(-1);

  /**
   * The epoch the sequencer answered the last lease request in: the lease's knowledge comes from
   * that epoch (a sequencer of a later epoch starts every lease afresh).
   */
  private final AtomicLong leaseEpoch = new AtomicLong(0);

  /** A transport this log created for itself and closes with itself, or null. */
  private volatile Transport ownedTransport;

  private ClusterStreamLog(RpcClient client, LayoutCache layout, StreamLogOptions options) {
    this.client = client;
    this.options = options;
    StreamId clientId = StreamId.of(UUID.randomUUID().toString());
    this.ops = new ReplicaClient(new EpochRpc(client, layout, clientId));
    this.driver = new ChainWriter(ops);
    this.reader = new RepairingReader(ops, driver, options.repairAfter());
    this.writeCache = new WriteCache(options.writeCacheBytes());
    this.lease =
        options.readLease().isZero()
            ? null
            : new ReadLease(
                new ReadLease.Channel() {
                  @Override
                  public CompletableFuture<ReadLeaseResponse> request(int leaseMs, long applied) {
                    return ops.readLease(leaseMs, applied, leaseEpoch::set);
                  }

                  @Override
                  public CompletableFuture<ReadLeaseResponse> release() {
                    return ops.releaseReadLease();
                  }

                  @Override
                  public void learnStream(StreamId stream, long tail, long lastGlobal) {
                    learn(stream, tail, lastGlobal);
                  }

                  @Override
                  public void learnGlobal(long globalTail) {
                    learnGlobalTail(globalTail);
                  }

                  @Override
                  public void schedule(Runnable task, long delayNanos) {
                    CompletableFuture.delayedExecutor(delayNanos, TimeUnit.NANOSECONDS)
                        .execute(task);
                  }
                },
                options.readLease(),
                System::nanoTime);
    if (lease != null) {
      ops.rpc().onLeasePush(lease::pushedWithAnswer);
    }
  }

  /** A stream's tail and the global address of its entry there. */
  private record KnownTail(long tail, long lastGlobal) {
    static final KnownTail NONE = new KnownTail(-1, -1);
  }

  /**
   * Records that {@code stream}'s tail is at least {@code tail}, its entry there at {@code
   * lastGlobal}.
   */
  private void learn(StreamId stream, long tail, long lastGlobal) {
    knownTails.merge(
        stream, new KnownTail(tail, lastGlobal), (old, now) -> now.tail() > old.tail() ? now : old);
  }

  private KnownTail known(StreamId stream) {
    return knownTails.getOrDefault(stream, KnownTail.NONE);
  }

  private void learnGlobalTail(long globalTail) {
    knownGlobalTail.accumulateAndGet(globalTail, Math::max);
  }

  /** Connects through {@code transport}, reading the layout from {@code seed}. */
  public static ClusterStreamLog connect(
      Transport transport, Endpoint seed, StreamLogOptions options) {
    RpcClient client = transport.newClient(options.rpc());
    try {
      return new ClusterStreamLog(client, LayoutCache.fetch(client, seed), options);
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
    Transport transport = new NettyTransport();
    try {
      ClusterStreamLog log = connect(transport, seed, options);
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
    long current = layout().current().epoch();
    return lease != null && lease.valid() ? Math.min(current, leaseEpoch.get()) : current;
  }

  /** Typed access to the replicas, for tools (CLI, benchmarks) that need the raw operations. */
  public ReplicaClient ops() {
    return ops;
  }

  @Override
  public CompletableFuture<AppendResult> append(Collection<StreamId> streams, byte[] payload) {
    return appendAttempt(List.copyOf(streams), payload, null, 1);
  }

  @Override
  public CompletableFuture<AppendResult> appendConditional(
      Collection<StreamId> streams, byte[] payload, TxResolution tx) {
    return appendAttempt(List.copyOf(streams), payload, tx, 1);
  }

  private CompletableFuture<AppendResult> appendAttempt(
      List<StreamId> streams, byte[] payload, TxResolution tx, int attempt) {
    if (payload.length > options.maxEntryBytes()) {
      return CompletableFuture.failedFuture(
          new TooLargeException(payload.length, options.maxEntryBytes()));
    }
    long nonce = ThreadLocalRandom.current().nextLong() | 1L;
    CompletableFuture<Written> written =
        layout().current().sequencerHostsEveryChain()
            // One node hosts everything: it issues the token and writes the whole chain at once.
            ? ops.sequencedWrite(streams, tx, payload, nonce)
                .thenApply(
                    r -> {
                      LogEntryMsg entry =
                          entry(r.getToken().getTokens(0), payload, r.getToken().getEpoch(), nonce);
                      return new Written(entry, driver.afterWholeChain(entry, r.getWrite()));
                    })
            : ops.token(streams, tx, 1)
                .thenApply(
                    r -> {
                      LogEntryMsg entry = entry(r.getTokens(0), payload, r.getEpoch(), nonce);
                      return new Written(entry, driver.drive(entry));
                    });
    return written.thenCompose(
        w -> {
          LogEntryMsg entry = w.entry();
          return w.outcome()
              .handle(
                  (outcome, error) -> {
                    if (error == null) {
                      return settled(streams, payload, tx, attempt, entry, outcome, null);
                    }
                    // The write failed somewhere along the chain: ask the decider what became of
                    // the entry (this also leaves no slot of it undecided) and report that.
                    Throwable cause = EpochRpc.unwrap(error);
                    return driver
                        .decide(entry)
                        .handle(
                            (decided, undecidable) -> {
                              if (undecidable != null) {
                                AppendOutcomeUnknownException unknown =
                                    new AppendOutcomeUnknownException(
                                        entry.getGlobalAddress(), EpochRpc.unwrap(undecidable));
                                unknown.addSuppressed(cause);
                                return CompletableFuture.<AppendResult>failedFuture(unknown);
                              }
                              return settled(streams, payload, tx, attempt, entry, decided, cause);
                            })
                        .thenCompose(f -> f);
                  })
              .thenCompose(f -> f);
        });
  }

  /**
   * What an append attempt reports once its entry's outcome is decided: the entry's addresses when
   * it committed (even after a failed write: the decider holds it); when it aborted, a fresh
   * attempt for a blind append, else AppendAbortedException. An attempt whose write failed with a
   * non-transient error ({@code failure}, e.g. an entry the replica refuses) reports that error
   * instead of retrying: a fresh token would meet it again.
   */
  private CompletableFuture<AppendResult> settled(
      List<StreamId> streams,
      byte[] payload,
      TxResolution tx,
      int attempt,
      LogEntryMsg entry,
      ChainWriter.Outcome outcome,
      Throwable failure) {
    if (outcome == ChainWriter.Outcome.COMMITTED) {
      AppendResult r = result(entry);
      writeCache.put(r.streamAddresses(), r.globalAddress(), payload);
      return CompletableFuture.completedFuture(r);
    }
    if (failure != null && !ChainWriter.isTransient(failure)) {
      return CompletableFuture.failedFuture(failure);
    }
    String why =
        failure == null
            ? "a reader filled one of its slots first"
            : "its write failed (" + failure.getMessage() + ") and the chain then aborted it";
    if (tx != null && tx.getReadSetCount() > 0 && entry.getEpoch() < epoch()) {
      // The token was fenced by a sequencer restart (see EpochFence): the snapshot it was judged
      // against predates the restart.
      return CompletableFuture.failedFuture(
          TokenRefusedException.sequencerRestarted(StreamId.fromMsg(tx.getReadSet(0).getStream())));
    }
    if (tx != null && tx.getReadSetCount() > 0) {
      // A conditional write's token was judged against its snapshot; a fresh token would need a
      // fresh judgement, so the caller decides.
      return CompletableFuture.failedFuture(
          new AppendAbortedException(entry.getGlobalAddress(), why));
    }
    if (attempt >= options.maxAppendAttempts()) {
      return CompletableFuture.failedFuture(
          new AppendAbortedException(
              entry.getGlobalAddress(),
              "gave up after "
                  + attempt
                  + " attempts, each aborted by the chain (the last: "
                  + why
                  + ")"));
    }
    // Without reads to re-check (a plain or keyed blind write) a fresh token is as good as the
    // first.
    return appendAttempt(streams, payload, tx, attempt + 1);
  }

  /** An entry and the future of its drive through the chain. */
  private record Written(LogEntryMsg entry, CompletableFuture<ChainWriter.Outcome> outcome) {}

  private static LogEntryMsg entry(Token token, byte[] payload, long epoch, long nonce) {
    return ChainWriter.dataEntry(token, ByteString.copyFrom(payload), epoch, nonce);
  }

  private AppendResult result(LogEntryMsg entry) {
    Map<StreamId, Long> addresses = new LinkedHashMap<>();
    for (StreamSlot slot : entry.getSlotsList()) {
      StreamId s = StreamId.fromMsg(slot.getStream());
      addresses.put(s, slot.getStreamAddress());
      learn(s, slot.getStreamAddress(), entry.getGlobalAddress());
    }
    learnGlobalTail(entry.getGlobalAddress());
    return new AppendResult(entry.getGlobalAddress(), addresses);
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
    long known = known(stream).tail();
    CompletableFuture<Long> limit =
        to <= known
            ? CompletableFuture.completedFuture(to)
            : tails(List.of(stream))
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
                      .thenApply(results -> toStreamEntries(stream, results));
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

  private static List<StreamEntry> concat(List<StreamEntry> a, List<StreamEntry> b) {
    List<StreamEntry> out = new ArrayList<>(a.size() + b.size());
    out.addAll(a);
    out.addAll(b);
    return out;
  }

  /** The stream's trim mark, from the last replica of its chain. */
  private CompletableFuture<Long> trimMark(StreamId stream) {
    List<Endpoint> chain = layout().current().streamChain(stream);
    return ops.streamTail(chain.get(chain.size() - 1), List.of(stream), false)
        .thenApply(r -> r.getTailsCount() == 0 ? 0L : r.getTails(0).getTrimMark());
  }

  private static List<StreamEntry> toStreamEntries(StreamId stream, List<ReadResult> results) {
    List<StreamEntry> out = new ArrayList<>(results.size());
    for (ReadResult r : results) {
      LogEntryMsg e = r.getEntry();
      boolean hole = e.getKind() != EntryKind.DATA;
      out.add(
          new StreamEntry(
              stream,
              r.getAddress(),
              hole ? -1 : e.getGlobalAddress(),
              hole,
              hole ? new byte[0] : e.getPayload().toByteArray()));
    }
    return out;
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
  public CompletableFuture<List<GlobalEntry>> readGlobalRange(long from, long to) {
    CompletableFuture<Long> limit =
        to <= knownGlobalTail.get()
            ? CompletableFuture.completedFuture(to)
            : tails(List.of()).thenApply(t -> Math.min(to, t.globalTail()));
    return limit.thenCompose(
        end ->
            reader
                .readGlobal(Math.max(0, from), end)
                .thenApply(
                    results -> {
                      List<GlobalEntry> out = new ArrayList<>(results.size());
                      for (ReadResult r : results) {
                        LogEntryMsg e = r.getEntry();
                        boolean hole = e.getKind() != EntryKind.DATA;
                        Map<StreamId, Long> slots = new LinkedHashMap<>();
                        for (StreamSlot s : e.getSlotsList()) {
                          slots.put(StreamId.fromMsg(s.getStream()), s.getStreamAddress());
                        }
                        out.add(
                            new GlobalEntry(
                                r.getAddress(),
                                hole,
                                hole ? Map.of() : slots,
                                hole ? new byte[0] : e.getPayload().toByteArray()));
                      }
                      return out;
                    }));
  }

  /**
   * {@inheritDoc}
   *
   * <p>Concurrent calls share requests (see {@link TailBatcher}): at most one tail request is in
   * flight, and every call is answered by a request sent after the call began, so the tails are
   * never older than those that existed when the call was made.
   *
   * <p>With a read lease ({@link StreamLogOptions#readLease()}) that covers every stream asked for,
   * the answer comes from memory with no request, and is just as current (see {@link ReadLease}).
   */
  @Override
  public CompletableFuture<Tails> tails(Collection<StreamId> streams) {
    if (lease == null) {
      return tailBatcher.tails(streams);
    }
    if (lease.covers(streams)) {
      Tails known = stableKnownTails(streams);
      if (known != null) {
        return CompletableFuture.completedFuture(known);
      }
    }
    long generation = lease.generationIfValid();
    return tailBatcher
        .tails(streams)
        .thenApply(
            t -> {
              lease.learnt(generation, streams);
              return t;
            });
  }

  /**
   * The tails this client knows, if every token they come from is at or below the lease's stable
   * point (every other holder knows it too), else null: answering with a newer token would reveal a
   * write another holder may still miss (see {@link ReadLease}). Read in the opposite order to how
   * they are learnt (stable point, global tail, stream tails), so every stream tail is at least as
   * new as the global tail. With streams asked for, the global tail answered is capped at the
   * stable point: every entry of those streams up to it is within their tails, and every later one
   * lies beyond it.
   */
  private Tails stableKnownTails(Collection<StreamId> streams) {
    long stable = lease.stable();
    long global = knownGlobalTail.get();
    if (streams.isEmpty()) {
      return global <= stable ? new Tails(global, Map.of(), Map.of()) : null;
    }
    Map<StreamId, Long> tails = new HashMap<>();
    Map<StreamId, Long> lastGlobal = new HashMap<>();
    for (StreamId s : streams) {
      KnownTail k = known(s);
      if (k.lastGlobal() > stable) {
        return null;
      }
      tails.put(s, k.tail());
      lastGlobal.put(s, k.lastGlobal());
    }
    return new Tails(Math.min(global, stable), tails, lastGlobal);
  }

  /** Whether this client holds a usable read lease now (for tests and diagnostics). */
  public boolean holdsReadLease() {
    return lease != null && lease.valid();
  }

  /** Sends one tail request and records the tails it reports, before any caller sees them. */
  private CompletableFuture<TailResponse> sendTail(List<StreamId> streams) {
    return ops.tail(streams)
        .thenApply(
            t -> {
              int n =
                  Math.min(
                      streams.size(),
                      Math.min(t.getStreamTailsCount(), t.getStreamLastGlobalCount()));
              for (int i = 0; i < n; i++) {
                learn(streams.get(i), t.getStreamTails(i), t.getStreamLastGlobal(i));
              }
              learnGlobalTail(t.getGlobalTail());
              return t;
            });
  }

  /** Sent to the last replica of the stream's chain, which hosts the stream's remote views. */
  @Override
  public CompletableFuture<ViewCallResponse> viewCall(ViewCallRequest request) {
    List<Endpoint> chain = layout().current().streamChain(StreamId.fromMsg(request.getStream()));
    return ops.viewCall(chain.get(chain.size() - 1), request);
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
    List<Endpoint> chain = layout().current().streamChain(stream);
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
    if (lease != null) {
      lease.close(Duration.ofSeconds(1));
    }
    client.close();
    Transport owned = ownedTransport;
    if (owned != null) {
      owned.close();
    }
  }
}
