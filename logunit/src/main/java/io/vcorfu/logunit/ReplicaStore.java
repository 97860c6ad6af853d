package io.vcorfu.logunit;

import io.vcorfu.layout.ChainPlan;
import io.vcorfu.logunit.internal.EntryRecords;
import io.vcorfu.logunit.internal.KeptHoles;
import io.vcorfu.logunit.internal.StorageEngine;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.Errors;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.ChainStep;
import io.vcorfu.protocol.proto.ChainWriteRequest;
import io.vcorfu.protocol.proto.ChainWriteResponse;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.StreamSlot;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The storage of one node: a single storage engine shared by the node's log replica and stream
 * replica. Their records go to the same segment files in the order they were made, so one forced
 * write covers both, and a stream record is never durable while the log record written before it is
 * not.
 *
 * <p>{@link #chainWrite} runs the consecutive visits of one entry's chain that land on this node
 * (log replica, then stream replica) as one call: one message, one fsync.
 *
 * <p>Invariant: an entry's payload is stored once on a node that holds both its log copy and its
 * stream copies. Both visits in one call store one record indexed under the log address and every
 * stream slot; a stream visit in a later message indexes the payload the log record holds when the
 * log still holds those very bytes ({@link RecentLogPayloads}), and stores its own copy otherwise.
 *
 * <p>Thread-safe. Closing the store closes its replicas; closing a replica handed out here does
 * nothing.
 */
public final class ReplicaStore implements AutoCloseable {
  private final StorageEngine engine;
  private final LogReplica log;
  private final StreamReplica streams;
  private final JoinState join = new JoinState();
  private final ChainStepRunner stepRunner;

  private ReplicaStore(StorageEngine engine) {
    this.engine = engine;
    RecentLogPayloads recent = new RecentLogPayloads();
    this.log = new LogReplica(engine, false, join, recent);
    this.streams = new StreamReplica(engine, false, join, recent);
    this.stepRunner = new ChainStepRunner(engine, log, streams);
  }

  /**
   * Makes both replicas rebuilding replicas that joined their chains at epoch {@code since} (see
   * {@link JoinState} for what that changes), or full members again with 0.
   */
  public void joinedAt(long since) {
    join.set(since);
  }

  /**
   * Makes the replicas rebuilding replicas, since epoch {@code since}, of the chains of the log
   * addresses {@code log} accepts and of the streams {@code streams} accepts, and full members of
   * every other chain (see {@link JoinState}): a node that keeps serving its chains while it
   * rebuilds chains it joined.
   */
  public void joinedAt(
      long since,
      java.util.function.LongPredicate log,
      java.util.function.Predicate<StreamId> streams) {
    join.set(since, log, streams);
  }

  /**
   * Refuses reads of the streams {@code streams} accepts (NotServing, saying {@code why}) until
   * called again: while the node copies the older entries of a stream chain it took up from the
   * log. Writes, fills and commits of those streams are served as usual.
   */
  public void copying(java.util.function.Predicate<StreamId> streams, String why) {
    join.copying(streams, why);
  }

  /** The epoch the replicas joined at as rebuilding replicas; 0 when they are full members. */
  public long joinedAt() {
    return join.since();
  }

  /**
   * Replaces every uncommitted DATA record, log and streams, with an uncommitted hole; returns how
   * many it replaced. A node rejoining its chains does this before it serves them: an uncommitted
   * entry it kept from before it left was never acknowledged and its address may have been issued
   * again since, so a reader must never find it here and finish it. (An uncommitted hole is
   * harmless: it refuses a later write, which retries elsewhere, and a fill passes over it.)
   */
  public long purgeUncommittedData() {
    return purgeUncommittedData(s -> true, true);
  }

  /**
   * {@link #purgeUncommittedData()} for the streams {@code streams} accepts only, and the log only
   * with {@code log}: a member that joins more chains purges those chains' streams, which it may
   * have served before it left them, and keeps its own chains' records as they are.
   */
  public long purgeUncommittedData(java.util.function.Predicate<StreamId> streams, boolean log) {
    long purged = 0;
    synchronized (engine) {
      for (StreamId ns : engine.namespaces()) {
        boolean isLog = ns.equals(LogReplica.LOG);
        if (isLog ? !log : KeptHoles.reserved(ns) || !streams.test(ns)) {
          continue;
        }
        for (long a : engine.uncommittedData(ns)) {
          LogEntryMsg.Builder hole =
              LogEntryMsg.newBuilder().setKind(EntryKind.HOLE).setGlobalAddress(isLog ? a : -1);
          if (!isLog) {
            hole.addSlots(StreamSlot.newBuilder().setStream(ns.toMsg()).setStreamAddress(a));
          }
          engine.put(
              EntryRecords.key(ns, a),
              isLog ? a : -1,
              0,
              StorageEngine.HOLE,
              hole.build().toByteArray(),
              null);
          purged++;
        }
      }
    }
    engine.barrier(false).join();
    return purged;
  }

  /**
   * How many addresses of {@code [from, to]} of {@code stream} (the global log when null) at or
   * above its trim mark hold no committed record here: what a rebuild still has to copy.
   */
  public long missing(StreamId stream, long from, long to) {
    return missing(stream, from, to, a -> true);
  }

  /** {@link #missing(StreamId, long, long)} counting only the addresses {@code counted} accepts. */
  public long missing(
      StreamId stream, long from, long to, java.util.function.LongPredicate counted) {
    return engine.missing(stream == null ? LogReplica.LOG : stream, from, to, counted);
  }

  /**
   * Stores decided slots copied from a chain's decider: each COMMITTED result of {@code decided}
   * (its address is the slot's address in {@code stream}, the global log when null) is written
   * committed, replacing whatever uncommitted record the slot held; a slot already holding a
   * committed record (a decision too) and results of any other status are left alone. Completes,
   * once durable, with the number of payload bytes written.
   */
  public CompletableFuture<Long> install(StreamId stream, List<ReadResult> decided) {
    return install(stream, decided, null);
  }

  /**
   * {@link #install(StreamId, List)}, checking each DATA result that carries the source replica's
   * digest against the digest of the entry as received: one that differs (the source's copy was
   * altered after it stored it, or damaged on the way) is not stored, and its address goes to
   * {@code refused} (when not null), for the caller to copy from another replica.
   */
  public CompletableFuture<Long> install(
      StreamId stream, List<ReadResult> decided, List<Long> refused) {
    return DecidedCopies.install(engine, log, stream, decided, refused);
  }

  /**
   * Stores, in the log, each entry of {@code entries} at its global address as an
   * <em>uncommitted</em> record, where the log holds nothing yet: a log chain rebuilt from the
   * stream replicas gets back the copy it held of an entry that no stream chain had decided yet
   * (the log copy is written before the stream copies, so it held one), and readers decide the
   * entry as they decide any entry a writer left unfinished. Completes, once durable, with the
   * number of entries stored.
   */
  public CompletableFuture<Long> installUndecided(List<LogEntryMsg> entries) {
    long stored = 0;
    CompletableFuture<Void> barrier;
    synchronized (engine) {
      for (LogEntryMsg entry : entries) {
        long a = entry.getGlobalAddress();
        if (a < engine.trimMark(LogReplica.LOG) || engine.lookup(LogReplica.LOG, a) != null) {
          continue;
        }
        boolean data = entry.getKind() == EntryKind.DATA;
        EntryRecords.Prepared p = EntryRecords.prepare(engine, entry);
        engine.put(
            EntryRecords.key(LogReplica.LOG, a),
            a,
            data ? p.hash() : 0,
            data ? 0 : StorageEngine.HOLE,
            p.bytes(),
            p.digest(),
            p.crc());
        if (data) {
          log.noted(entry);
        }
        stored++;
      }
      barrier = engine.barrier();
    }
    long n = stored;
    return barrier.thenApply(v -> n);
  }

  /**
   * Marks each address of {@code addresses} that the log holds nothing at, at or above its trim
   * mark, as committed {@code LOST} (see {@code EntryKind.LOST}): the log chain was rebuilt from
   * the stream replicas and none of them held an entry for it. Completes, once durable, with the
   * number of addresses marked.
   */
  public CompletableFuture<Long> markLost(List<Long> addresses) {
    List<ReadResult> lost = new ArrayList<>(addresses.size());
    synchronized (engine) {
      for (long a : addresses) {
        if (a >= engine.trimMark(LogReplica.LOG) && engine.lookup(LogReplica.LOG, a) == null) {
          lost.add(
              ReadResult.newBuilder()
                  .setAddress(a)
                  .setStatus(ReadResult.Status.COMMITTED)
                  .setEntry(LogEntryMsg.newBuilder().setGlobalAddress(a).setKind(EntryKind.LOST))
                  .build());
        }
      }
    }
    return install(null, lost).thenApply(bytes -> (long) lost.size());
  }

  /** The highest global address any record of this store names (log or streams); -1 if none. */
  public long maxGlobal() {
    return engine.maxGlobal();
  }

  /** Opens (and in durable mode recovers) the node's storage in {@code options}' directory. */
  public static ReplicaStore open(StorageOptions options) throws IOException {
    return new ReplicaStore(StorageEngine.open(options));
  }

  /** The log replica on this store. */
  public LogReplica logReplica() {
    return log;
  }

  /** The stream replica on this store. */
  public StreamReplica streamReplica() {
    return streams;
  }

  /** How many times the durable store has forced its active segment to disk since it opened. */
  public long forcedWrites() {
    return engine.forceStats()[0];
  }

  /** Nanoseconds the durable store's forces took in all (0 in memory). */
  public long forceNanos() {
    return engine.forceStats()[1];
  }

  /** Records the durable store's forces made durable (0 in memory). */
  public long forcedAppends() {
    return engine.forceStats()[2];
  }

  /**
   * The lowest global address the log keeps for the streams this store holds that were trimmed:
   * above the last entry each of them trimmed away; {@link Long#MAX_VALUE} when none was. The log
   * keeps as much history as the least trimmed stream (a stream never trimmed keeps its own entries
   * in its stream replicas, and does not hold the log back). {@code counts} receives {streams,
   * trimmed streams}.
   */
  public long logNeededFrom(long[] counts) {
    return engine.neededFrom(ns -> !KeptHoles.reserved(ns), counts);
  }

  /**
   * Takes the trim mark {@code before} of {@code stream}'s chain (the log's when null), with the
   * global address of the last entry the chain trimmed away, whatever this store holds: a replica
   * rebuilt from a chain adopts its marks, so it reads TRIMMED where the chain does and asks the
   * log to keep only what the chain needs. Completes, once durable, with the mark in force.
   */
  public CompletableFuture<Long> adoptTrimMark(StreamId stream, long before, long floorGlobal) {
    return adoptTrimMark(stream, before, floorGlobal, null);
  }

  /**
   * {@link #adoptTrimMark(StreamId, long, long)} with the chain's {@code anchor} (its chain head
   * just below {@code before}; null when not known), so that this replica's chain heads are the
   * chain's.
   */
  public CompletableFuture<Long> adoptTrimMark(
      StreamId stream, long before, long floorGlobal, byte[] anchor) {
    long mark;
    CompletableFuture<Void> barrier;
    synchronized (engine) {
      mark =
          engine.adoptTrim(stream == null ? LogReplica.LOG : stream, before, floorGlobal, anchor);
      barrier = engine.barrier();
    }
    return barrier.thenApply(v -> mark);
  }

  /** The log's highest address held (-1 when none), its trim mark and the holes kept below it. */
  public long[] logTailAndTrimMark() {
    synchronized (engine) {
      return new long[] {
        engine.maxAddress(LogReplica.LOG), engine.trimMark(LogReplica.LOG), KeptHoles.count(engine)
      };
    }
  }

  /** What the store's files take on disk, what of it is live, and what compaction did. */
  public SpaceReport space() {
    return engine.space();
  }

  /**
   * Compacts now every sealed segment whose live bytes are below {@code threshold} of its length
   * (in [0, 1)), as background compaction does below its configured share; returns how many
   * segments were reclaimed. Does nothing in memory mode.
   */
  public int compact(double threshold) throws InterruptedException {
    if (!(threshold >= 0 && threshold < 1)) {
      throw new IllegalArgumentException(
          "compaction applies below a share of live bytes in [0, 1), not " + threshold);
    }
    return engine.compact(threshold, System.nanoTime(), false);
  }

  /** What opening this store found on disk (for operators and tests). */
  public RecoveryStats recoveryStats() {
    return engine.recoveryStats();
  }

  public StorageOptions options() {
    return engine.options();
  }

  /**
   * One visit of an entry's chain on this node: its log replica, or its stream replica with the
   * entry's slots that replica hosts; {@code commit} for the last visit of the chain.
   */
  public record Step(boolean log, List<StreamReplica.Slot> slots, boolean commit) {
    public Step {
      slots = List.copyOf(slots);
    }

    /** The step for {@code visit} of {@code entry}'s chain plan. */
    public static Step of(LogEntryMsg entry, ChainPlan.Visit visit, boolean commit) {
      if (visit.role() == ChainPlan.Role.LOG) {
        return new Step(true, List.of(), commit);
      }
      Set<StreamId> hosted = new HashSet<>(visit.streams());
      List<StreamReplica.Slot> slots = new ArrayList<>();
      for (StreamSlot slot : entry.getSlotsList()) {
        StreamReplica.Slot s = StreamReplica.Slot.of(slot);
        if (hosted.contains(s.stream())) {
          slots.add(s);
        }
      }
      return new Step(false, slots, commit);
    }

    private static Step of(ChainStep step) {
      return new Step(step.getLog(), StreamReplica.Slot.of(step.getSlotsList()), step.getCommit());
    }
  }

  /**
   * What a chain write did: how many steps succeeded and, if one failed, its typed error (null when
   * every step succeeded).
   */
  public record ChainWriteResult(int done, Throwable failure) {
    /** This result as the wire answer. */
    public ChainWriteResponse toResponse() {
      ChainWriteResponse.Builder b = ChainWriteResponse.newBuilder().setDone(done);
      if (failure != null) {
        b.setError(Errors.toMsg(failure));
      }
      return b.build();
    }
  }

  /**
   * Runs the steps in order, each a call of the replica's Java API ({@link
   * LogReplica#write(LogEntryMsg, boolean)} or {@link StreamReplica#write(LogEntryMsg, List,
   * boolean)}), stopping at the first that fails; with {@code commitEarlier}, once every step
   * succeeded, commits the steps before the last. Completes once everything written is durable per
   * the fsync policy, with the number of steps that succeeded and, if one failed, its typed error.
   * Only a failure of the store itself fails the future.
   */
  public CompletableFuture<ChainWriteResult> chainWrite(
      LogEntryMsg entry, List<Step> steps, boolean commitEarlier) {
    if (steps.isEmpty() || entry == null) {
      return CompletableFuture.failedFuture(
          new BadRequestException("A chain write needs an entry and at least one step."));
    }
    // Every record of the write reaches the segment writer at once: one forced write, not one
    // for the first step and another for the rest.
    try {
      // Serialized and digested here, outside the engine's monitor; the steps find it prepared.
      EntryRecords.prepare(engine, entry);
    } catch (RuntimeException e) {
      // Too large: the step that stores it fails with that, as its answer.
    }
    ChainStepRunner.Steps run;
    try {
      run = engine.group(() -> stepRunner.run(entry, steps, commitEarlier));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    List<CompletableFuture<?>> written = run.written();
    return CompletableFuture.allOf(written.toArray(CompletableFuture[]::new))
        .handle(
            (v, error) -> {
              if (error != null) {
                // A write accepted in memory failed to become durable: the store itself failed.
                throw error instanceof CompletionException ce ? ce : new CompletionException(error);
              }
              return new ChainWriteResult(run.attempted(), run.failure());
            });
  }

  /**
   * {@link #chainWrite(LogEntryMsg, List, boolean)} for a request from the wire. The commits riding
   * on it are the caller's to apply first ({@link #commitRiding}), ahead of the epoch fence, which
   * they do not pass through; a request of commits alone ({@link #commitsOnly}) is not run here.
   */
  public CompletableFuture<ChainWriteResponse> chainWrite(ChainWriteRequest request) {
    List<Step> steps = new ArrayList<>(request.getStepsCount());
    request.getStepsList().forEach(s -> steps.add(Step.of(s)));
    return chainWrite(
            request.hasEntry() ? request.getEntry() : null, steps, request.getCommitEarlier())
        .thenApply(ChainWriteResult::toResponse);
  }

  /** True if {@code request} carries commits of other entries and nothing to write. */
  public static boolean commitsOnly(ChainWriteRequest request) {
    return !request.hasEntry()
        && request.getStepsCount() == 0
        && (request.getCommitLogCount() > 0 || request.getCommitSlotsCount() > 0);
  }

  /**
   * Applies the commits riding on a chain write: every listed copy this node holds as uncommitted
   * DATA is committed, the rest skipped (see {@code ChainWriteRequest}). Never fails: a commit is
   * advice, and a reader decides what it missed.
   */
  public void commitRiding(ChainWriteRequest request) {
    try {
      logReplica().commitHeld(request.getCommitLogList());
      streamReplica().commitHeld(StreamReplica.Slot.of(request.getCommitSlotsList()));
    } catch (RuntimeException e) {
      // A malformed slot (an unknown stream id) or a role this store lacks: nothing to commit.
    }
  }

  /**
   * Checks this store against the digests it stored, or answers chain heads (see {@code
   * VerifyRequest} and {@link ChainVerify}).
   */
  public CompletableFuture<io.vcorfu.protocol.proto.VerifyResponse> verify(
      io.vcorfu.protocol.proto.VerifyRequest request) {
    return ChainVerify.answer(engine, request);
  }

  /** Makes everything written durable, then releases the files; later calls fail. */
  @Override
  public void close() throws IOException {
    engine.close();
  }
}
