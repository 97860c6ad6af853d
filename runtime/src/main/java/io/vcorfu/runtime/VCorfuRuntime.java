package io.vcorfu.runtime;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.DirectoryEntry;
import io.vcorfu.client.NameDirectory;
import io.vcorfu.client.StreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.client.StreamWatch;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.checkpoint.Checkpoints;
import io.vcorfu.runtime.proxy.ObjectHandle;
import io.vcorfu.runtime.proxy.SmrProxy;
import io.vcorfu.runtime.smr.RuntimeCore;
import io.vcorfu.runtime.view.ObjectDirectory;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The vcorfu object runtime: opens replicated objects on a stream log and runs transactions over
 * them.
 *
 * <p>Thread-safe. Objects opened through a runtime may be used from any thread; transactions are
 * per thread (a transaction begun on one thread is invisible to others) and cover the objects
 * opened through this runtime. Closing the runtime closes its stream log; any later call on the
 * runtime or its objects fails with {@link RuntimeClosedException}.
 *
 * <p>Transactions are optimistic. {@link #TXBegin()} takes the current global tail as the snapshot;
 * every read in the transaction sees the objects exactly as of that snapshot plus the transaction's
 * own buffered writes. {@link #TXEnd()} commits: with no writes it returns at once, without any
 * request; otherwise it asks the sequencer for a conditional token, which is refused if anything
 * the transaction read was written after the snapshot, so an aborted transaction never reaches the
 * log. Transactions nest: an inner {@code TXBegin} opens a level with a write set of its own; an
 * inner {@link #TXAbort()} drops that level's writes and the outer level goes on, an inner {@link
 * #TXEnd()} hands them to the outer level, and only the outermost level commits.
 *
 * <p>Costs inside a transaction: a read of an object the local view has not moved past the snapshot
 * runs on the live state; otherwise on an older version rebuilt by replay (see {@link
 * ObjectBuilder#asOf}). A read of an object the transaction already wrote runs on a private copy:
 * the snapshot's state rebuilt by replay plus the buffered writes, built once per object per
 * transaction, so its cost grows with the object's history since its base (initial state or
 * checkpoint). Objects of a {@link VersionCapturing} class skip the replay: both kinds of read
 * start from the version the local view captured at or below the snapshot, in O(1).
 *
 * <p>Writes outside a transaction: a mutator whose method has a {@code @ConflictParameter} counts
 * at the sequencer as a write of that key only, so it aborts the open transactions that read that
 * key (or the whole object) and no others; any other mutator counts as a write of the whole object.
 */
public final class VCorfuRuntime implements AutoCloseable {
  private final RuntimeCore core;
  private final ObjectOpener objects;
  private final io.vcorfu.runtime.checkpoint.AutoCheckpoints checkpoints;
  private final ObjectDirectory directory;

  private VCorfuRuntime(StreamLog log, RuntimeOptions options) {
    this.core = new RuntimeCore(log, options, this);
    ObjectDirectory directory = new ObjectDirectory(core);
    this.objects = new ObjectOpener(core, directory);
    this.directory = directory;
    // Always running: it registers the snapshots this runtime holds even when it checkpoints
    // nothing, and objects may have their own retention.
    this.checkpoints =
        new io.vcorfu.runtime.checkpoint.AutoCheckpoints(core, directory, options.retention());
  }

  /**
   * The updates committed to the objects of {@code streams} at global address {@code from} or
   * later, as they commit: one {@link ObjectUpdates} per log entry that changed them, in log order,
   * each once, arguments decoded with this runtime's serializer. Pushed by the sequencer, resumable
   * from any address, with back-pressure, riding through failovers; see {@link StreamWatch} for
   * what is guaranteed. Updates trimmed away (below the objects' retention) end the watch with a
   * {@link io.vcorfu.protocol.TrimmedException}, never skipped silently.
   */
  public java.util.concurrent.Flow.Publisher<ObjectUpdates> watch(
      java.util.Collection<StreamId> streams, long from) {
    core.checkOpen();
    return ObjectUpdates.of(
        StreamWatch.fromGlobal(core.log(), streams, from), core.options().serializer());
  }

  /**
   * One page of the history of the object of {@code stream}, newest first: its entries below global
   * address {@code before} ({@code Long.MAX_VALUE}: from the newest) read back from the stream
   * replica, each decoded ({@link ObjectUpdates}) and passed to {@code version}, which makes it a
   * version or answers null to pass it over, until {@code limit} versions are found. No state is
   * replayed: the cost is the entries read. Versions below the object's retention are reported as
   * trimmed ({@link ObjectHistory#trimmed}).
   *
   * @throws IllegalArgumentException if {@code limit} is below 1
   */
  public <T> ObjectHistory<T> history(
      StreamId stream,
      long before,
      int limit,
      java.util.function.Function<ObjectUpdates, T> version) {
    core.checkOpen();
    return ObjectHistory.read(core, stream, before, limit, version);
  }

  /**
   * The updates {@code stream}'s entries made above global address {@code after} and at or below
   * {@code upTo}, oldest first, decoded as {@link #watch} delivers them: read back from the
   * stream's tail to {@code after}, no state replayed. What a diff between two versions reads.
   *
   * @throws io.vcorfu.protocol.TrimmedException if part of that range was trimmed
   * @throws IllegalArgumentException if {@code upTo} is below {@code after}
   */
  public List<ObjectUpdates> updates(StreamId stream, long after, long upTo) {
    core.checkOpen();
    if (upTo < after) {
      throw new IllegalArgumentException(
          "the range ends at " + upTo + ", below where it starts (above " + after + ")");
    }
    return ObjectHistory.between(core, stream, after, upTo);
  }

  /** Like {@link #watch(java.util.Collection, long)}, from what commits after each subscription. */
  public java.util.concurrent.Flow.Publisher<ObjectUpdates> watchFromNow(
      java.util.Collection<StreamId> streams) {
    core.checkOpen();
    return ObjectUpdates.of(StreamWatch.fromNow(core.log(), streams), core.options().serializer());
  }

  /**
   * Runs one pass of the automatic checkpoints and trims now (see {@link Retention}): checkpoints
   * the live views that played enough since their last one and trims their streams as retention
   * allows; returns how many checkpoints it wrote (0 when automatic checkpoints are off).
   */
  public int checkpointNow() {
    core.checkOpen();
    return checkpoints == null ? 0 : checkpoints.runOnce();
  }

  /**
   * Connects to the cluster a node belongs to: reads the layout from {@code hostPort}, one node
   * ({@code host:port}) or several ({@code host:port,host:port,...}, asked in order until one
   * answers), and talks to every server the layout names over TCP. Every node named stays a place
   * the client refreshes its layout from; calls ride through layout changes within {@link
   * StreamLogOptions#failoverTimeout()}.
   *
   * @throws IllegalArgumentException if {@code hostPort} is not a list of {@code host:port}
   */
  public static VCorfuRuntime connect(String hostPort) {
    return connect(hostPort, RuntimeOptions.defaults());
  }

  /** Like {@link #connect(String)}, with options. */
  public static VCorfuRuntime connect(String hostPort, RuntimeOptions options) {
    return connect(hostPort, options, StreamLogOptions.defaults());
  }

  /**
   * Like {@link #connect(String)}, with runtime options and stream-layer options (timeouts, the
   * write cache, a read lease: see {@link StreamLogOptions}).
   */
  public static VCorfuRuntime connect(
      String hostPort, RuntimeOptions options, StreamLogOptions logOptions) {
    return using(ClusterStreamLog.connect(Endpoint.parseList(hostPort), logOptions), options);
  }

  /** A runtime on {@code log} with default options. The runtime owns the log and closes it. */
  public static VCorfuRuntime using(StreamLog log) {
    return using(log, RuntimeOptions.defaults());
  }

  /** A runtime on {@code log}. The runtime owns the log and closes it. */
  public static VCorfuRuntime using(StreamLog log, RuntimeOptions options) {
    return new VCorfuRuntime(
        Objects.requireNonNull(log, "log"), Objects.requireNonNull(options, "options"));
  }

  /**
   * The runtime that opened {@code object}, an object returned by {@link ObjectOpener}; lets an
   * object's own methods open further objects (composed objects open their children this way).
   *
   * @throws IllegalArgumentException if {@code object} was not opened by a vcorfu runtime
   */
  public static VCorfuRuntime runtimeOf(Object object) {
    return (VCorfuRuntime) handleOf(object).core().owner();
  }

  /**
   * The stream id of {@code object}, an object returned by {@link ObjectOpener}.
   *
   * @throws IllegalArgumentException if {@code object} was not opened by a vcorfu runtime
   */
  public static StreamId streamOf(Object object) {
    return handleOf(object).stream();
  }

  private static ObjectHandle handleOf(Object object) {
    if (object instanceof SmrProxy proxy && proxy.getVcorfuHandle$() != null) {
      return proxy.getVcorfuHandle$();
    }
    throw new IllegalArgumentException(
        (object == null ? "null" : "an instance of " + object.getClass().getName())
            + " is not an object opened by a vcorfu runtime");
  }

  /** Opens objects: {@code rt.objects().open("name", Type.class)}. */
  public ObjectOpener objects() {
    core.checkOpen();
    return objects;
  }

  public RuntimeOptions options() {
    return core.options();
  }

  /**
   * The cluster's name directory ({@link NameDirectory}): {@code rt.names().list()} lists every
   * name clients opened or wrote, with its kind and the address it was first registered at.
   */
  public NameDirectory names() {
    core.checkOpen();
    return core.names();
  }

  /**
   * Registers {@code entry} in the name directory unless this runtime knows it is there already (no
   * request then). Objects opened by name register themselves; a collection over several streams
   * registers its own name this way before its first write.
   */
  public void registerName(DirectoryEntry entry) {
    core.register(entry);
  }

  /**
   * Writes a checkpoint of {@code object}, a local view opened by this runtime, as of the version
   * its state currently reflects (it is not synced first): every non-static, non-transient field of
   * the object's class, each encoded by the object's serializer, together with that version's
   * global address and stream position, appended to the object's checkpoint stream ({@code
   * StreamId.of(objectStream + "/checkpoint")}). Views opened later (by any runtime) start from the
   * latest checkpoint and play only the stream after it. The object's stream itself is unchanged:
   * snapshot views as of addresses older than a checkpoint still work, by replaying the stream from
   * the log.
   *
   * @return the global address the checkpoint reflects, or empty when a field of the class cannot
   *     be encoded by its serializer (nothing is written; one log line names the class)
   * @throws IllegalArgumentException if {@code object} is not a live local view of this runtime
   */
  public java.util.OptionalLong checkpoint(Object object) {
    core.checkOpen();
    return Checkpoints.write(core, object);
  }

  /**
   * Keeps {@code retention} for {@code object}, a live local view of this runtime, instead of the
   * runtime's (as {@link ObjectBuilder#retention}); null goes back to the runtime's. Collections
   * over many streams take theirs with their own {@code retain} method.
   *
   * @throws IllegalArgumentException if {@code object} is not an object of this runtime
   */
  public void retain(Object object, Retention retention) {
    core.checkOpen();
    ObjectHandle h = handleOf(object);
    if (h.core() != core) {
      throw new IllegalArgumentException("the object was opened by another runtime");
    }
    directory.retain(h.stream(), retention);
  }

  /**
   * Keeps {@code retention} for the object on {@code stream} (see {@link #retain(Object,
   * Retention)}).
   */
  public void retain(StreamId stream, Retention retention) {
    core.checkOpen();
    directory.retain(stream, retention);
  }

  /**
   * Holds the history of the object on {@code stream} that can be read now, under the hold {@code
   * name} (a fork holds its parent's this way; an application can hold an object's versions for an
   * audit): until {@link #unpinHistory} of that name, no trim of the object's stream or of its
   * checkpoints passes what they hold now, whoever asks for it (any runtime's retention, {@code
   * vcorfu log trim}), so every version readable now stays readable. Durable on every replica
   * before it returns. A held object's storage grows with its updates until the hold is released.
   * Not inside a transaction.
   */
  public void pinHistory(StreamId stream, String name) {
    pinHistory(List.of(stream), name);
  }

  /** {@link #pinHistory(StreamId, String)} of the objects on {@code streams}, all at once. */
  public void pinHistory(List<StreamId> streams, String name) {
    eachHeld(streams, name, core.log()::pinStream);
  }

  /** Runs {@code op} on every stream {@code streams}' hold {@code name} pins, all at once. */
  private void eachHeld(
      List<StreamId> streams,
      String name,
      java.util.function.BiFunction<StreamId, StreamId, java.util.concurrent.CompletableFuture<?>>
          op) {
    core.checkOpen();
    StreamId pin = holdPin(name);
    List<java.util.concurrent.CompletableFuture<?>> calls = new java.util.ArrayList<>();
    for (StreamId s : streams) {
      calls.add(op.apply(s, pin));
      calls.add(op.apply(Checkpoints.streamOf(s), pin));
    }
    calls.forEach(core::await);
  }

  /** The pin a hold called {@code name} puts on streams (see {@link #pinHistory}). */
  public static StreamId holdPin(String name) {
    return StreamId.of("history-pin/" + Objects.requireNonNull(name, "name"));
  }

  /** Releases the hold {@code name} on the object on {@code stream} (see {@link #pinHistory}). */
  public void unpinHistory(StreamId stream, String name) {
    unpinHistory(List.of(stream), name);
  }

  /** {@link #unpinHistory(StreamId, String)} of the objects on {@code streams}, all at once. */
  public void unpinHistory(List<StreamId> streams, String name) {
    eachHeld(streams, name, core.log()::unpinStream);
  }

  /**
   * Estimated bytes this runtime's live views hold in memory to serve old versions (retained
   * updates and captured versions), all views together: at most about {@link
   * RuntimeOptions#retainedHistoryBytes} plus one version per view.
   */
  public long oldVersionBytes() {
    return core.oldVersionBytes();
  }

  /** Begins a transaction on the calling thread, or an inner level of the one already open. */
  @SuppressWarnings("checkstyle:MethodName")
  public void TXBegin() {
    core.transactions().begin();
  }

  /**
   * Ends the calling thread's transaction. For the outermost level: returns the global address of
   * the commit entry, or the snapshot address when the transaction wrote nothing. For a nested
   * level: its writes become the outer level's, and it returns -1 (the outermost level commits).
   *
   * @throws TransactionAbortedException if the sequencer refused the commit, or the commit entry
   *     was aborted on its chain ({@link TransactionAbortedException.Reason#COMMIT_ABORTED});
   *     nothing was written
   * @throws TransactionStateException if no transaction is open on this thread
   */
  @SuppressWarnings("checkstyle:MethodName")
  public long TXEnd() {
    return core.transactions().end();
  }

  /**
   * Aborts the calling thread's transaction level, discarding its writes. At the outermost level
   * that is the whole transaction; at a nested level only the writes made since its {@code
   * TXBegin}, and the outer level goes on (its reads still count when the outermost commits).
   *
   * @throws TransactionStateException if no transaction is open on this thread
   */
  @SuppressWarnings("checkstyle:MethodName")
  public void TXAbort() {
    core.transactions().abort();
  }

  /** True when the calling thread has a transaction open. */
  public boolean inTransaction() {
    return core.transactions().inTransaction();
  }

  /**
   * Runs {@code body} in a transaction and returns its result. Aborts are retried with exponential
   * backoff up to {@link RuntimeOptions#maxTransactionAttempts()}; the last abort is then thrown.
   * Aborts a retry cannot fix ({@link TransactionAbortedException.Reason#TRIMMED}) are thrown at
   * once. Any other exception aborts the transaction and propagates. Inside an open transaction the
   * body runs as a nested level, not retried on its own: its writes join the open transaction when
   * it returns and are dropped when it throws.
   */
  public <T> T transaction(Supplier<T> body) {
    core.checkOpen();
    return core.transactions().run(body);
  }

  /** Like {@link #transaction(Supplier)} for a body without a result. */
  public void transaction(Runnable body) {
    core.checkOpen();
    core.transactions()
        .run(
            () -> {
              body.run();
              return null;
            });
  }

  /**
   * Closes the runtime and its stream log. Idempotent.
   *
   * @throws TransactionStateException after closing, if some thread ended (or is still running)
   *     with a transaction open; its writes were discarded
   */
  @Override
  public void close() {
    if (core.markClosed()) {
      if (checkpoints != null) {
        checkpoints.close();
      }
      try {
        core.log().close();
      } finally {
        core.transactions().checkNoneLeftOpen();
      }
    }
  }
}
