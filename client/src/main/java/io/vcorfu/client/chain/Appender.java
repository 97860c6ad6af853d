package io.vcorfu.client.chain;

import com.google.protobuf.ByteString;
import io.vcorfu.client.AppendAbortedException;
import io.vcorfu.client.AppendOutcomeUnknownException;
import io.vcorfu.client.AppendResult;
import io.vcorfu.client.IssueCondition;
import io.vcorfu.client.layout.Failover;
import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.client.rpc.Messages;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.Segment;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TokenRefusedException;
import io.vcorfu.protocol.TooLargeException;
import io.vcorfu.protocol.TransportException;
import io.vcorfu.protocol.WrongEpochException;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.SequencedWriteResponse;
import io.vcorfu.protocol.proto.Token;
import io.vcorfu.protocol.proto.TxResolution;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;

/**
 * Appends entries: a token from the sequencer (conditional when a transaction asks), the entry
 * driven through its chain by the {@link ChainWriter}, the outcome asked of the deciding replica
 * when a write fails part-way, and a fresh token when the chain aborted a blind append.
 *
 * <p><b>Through layout changes</b> ({@link Failover}): an append is not idempotent, so only the
 * steps that are safe to repeat are repeated, each after the layout is refreshed, within the
 * failover timeout counted from the start of the append:
 *
 * <ul>
 *   <li>a token request that failed ({@link Failover#retryable}, timeouts included: a token issued
 *       but never written becomes a hole); conditional ones too, since the sequencer judges the
 *       request sent again against the same snapshot, and refuses it if its epoch changed;
 *   <li>a sequenced write (token and chain in one request), after any error a layout change may
 *       cure, timeouts and lost connections included: every attempt of one append carries the
 *       append's number among this client's appends, and the node stores one number at most once
 *       (it answers a retry with the attempt it took, found in its table or its log, see {@code
 *       SequencedWrites} on the node). A retry after an error that may have followed a write says
 *       so, and names the lowest address the append can have; if by then the layout no longer lets
 *       the sequencer node take appends whole, so nothing searches for the earlier attempt, the
 *       append fails with {@link AppendOutcomeUnknownException} instead of risking a second copy;
 *   <li>the decision of an entry whose write failed: asked again, of the decider of the layout held
 *       then, until it is reached (so a dead decider is replaced by the new layout's); committed is
 *       success, aborted means a fresh token (for blind appends) after the back-off, or at once
 *       when the layout held by then is newer than the entry's token;
 * </ul>
 *
 * Only when no decision can be reached in time does the append fail with {@link
 * AppendOutcomeUnknownException}. Thread-safe.
 */
public final class Appender {
  private final ReplicaClient ops;
  private final ChainWriter writer;
  private final int maxEntryBytes;
  private final int maxAttempts;
  private final LongSupplier epoch;
  private final BiConsumer<AppendResult, byte[]> committed;
  private final Failover failover;
  private final boolean sequencerDrives;

  /** How many appends this client has begun: the number of the latest. */
  private final AtomicLong appends = new AtomicLong();

  /**
   * The numbers of the appends begun and not finished: every number below the smallest (or below
   * the next when none) has its outcome here, so the node may forget its attempts.
   */
  private final ConcurrentSkipListSet<Long> unfinished = new ConcurrentSkipListSet<>();

  /** The highest global address this client saw committed; -1 before the first. */
  private final AtomicLong highestSeen = new AtomicLong(-1);

  /**
   * Appends through {@code ops} and {@code writer}; refuses payloads over {@code maxEntryBytes},
   * gives a blind append up after {@code maxAttempts} attempts aborted by readers. {@code epoch} is
   * the log's current epoch; {@code committed} hears of every committed append (with its payload)
   * before its caller does; {@code failover} bounds the retries through layout changes. With {@code
   * sequencerDrives}, appends go whole to the sequencer node whenever the layout lets it write
   * every copy ({@link Layout#sequencerDrivesAppends}).
   */
  public Appender(
      ReplicaClient ops,
      ChainWriter writer,
      int maxEntryBytes,
      int maxAttempts,
      LongSupplier epoch,
      BiConsumer<AppendResult, byte[]> committed,
      Failover failover,
      boolean sequencerDrives) {
    this.ops = ops;
    this.writer = writer;
    this.maxEntryBytes = maxEntryBytes;
    this.maxAttempts = maxAttempts;
    this.epoch = epoch;
    this.committed = committed;
    this.failover = failover;
    this.sequencerDrives = sequencerDrives;
  }

  /**
   * Appends {@code payload} to {@code streams}, on {@code condition} unless it is null (see {@link
   * io.vcorfu.client.StreamLog#append} and {@link io.vcorfu.client.StreamLog#appendConditional}).
   */
  public CompletableFuture<AppendResult> append(
      List<StreamId> streams, byte[] payload, IssueCondition condition) {
    if (payload.length > maxEntryBytes) {
      return CompletableFuture.failedFuture(new TooLargeException(payload.length, maxEntryBytes));
    }
    List<Segment> segments = ops.rpc().layout().current().segments();
    // Every token issued from now on is above what this client saw taken and at or above the
    // start of the newest segment it knows.
    long notBelow = Math.max(highestSeen.get() + 1, segments.get(segments.size() - 1).start());
    long seq;
    synchronized (unfinished) {
      // Listed before anyone can read the next number as settled (see settledBelow).
      seq = appends.incrementAndGet();
      unfinished.add(seq);
    }
    Request request =
        new Request(
            streams,
            payload,
            condition,
            Messages.toMsg(condition),
            failover.begin(),
            seq,
            notBelow);
    CompletableFuture<AppendResult> out = attempt(request, 1);
    out.whenComplete((r, e) -> unfinished.remove(seq));
    return out;
  }

  /**
   * Every append of this client numbered below the returned number has finished (its caller has its
   * outcome, and it is never attempted again).
   */
  long settledBelow() {
    Long first = unfinished.ceiling(0L);
    if (first != null) {
      return first;
    }
    synchronized (unfinished) {
      first = unfinished.ceiling(0L);
      return first != null ? first : appends.get() + 1;
    }
  }

  /**
   * One append: what to write, its failover clock, its number among this client's appends, and what
   * its attempts so far leave open. Confined to one attempt at a time.
   */
  private static final class Request {
    final List<StreamId> streams;
    final byte[] payload;
    final IssueCondition condition;
    final TxResolution tx;
    final Failover.Operation failover;
    final long seq;
    final long notBelow;

    /** True once a sequenced attempt failed in a way that may have followed its write. */
    volatile boolean maybeStored;

    /** The error that left {@link #maybeStored} set. */
    volatile Throwable unknownCause;

    /** The address of the last attempt known to have aborted; -1 for none. */
    volatile long abortedAt = -1;

    Request(
        List<StreamId> streams,
        byte[] payload,
        IssueCondition condition,
        TxResolution tx,
        Failover.Operation failover,
        long seq,
        long notBelow) {
      this.streams = streams;
      this.payload = payload;
      this.condition = condition;
      this.tx = tx;
      this.failover = failover;
      this.seq = seq;
      this.notBelow = notBelow;
    }

    List<StreamId> streams() {
      return streams;
    }

    byte[] payload() {
      return payload;
    }

    IssueCondition condition() {
      return condition;
    }

    TxResolution tx() {
      return tx;
    }

    Failover.Operation failover() {
      return failover;
    }

    boolean hasReads() {
      return condition != null && !condition.readSet().isEmpty();
    }

    ReplicaClient.Numbering numbering(long settledBelow) {
      return new ReplicaClient.Numbering(seq, maybeStored, notBelow, abortedAt, settledBelow);
    }
  }

  private CompletableFuture<AppendResult> attempt(Request req, int attempt) {
    long nonce = ThreadLocalRandom.current().nextLong() | 1L;
    // Chosen and sent in one layout: a sequenced write goes out in the epoch whose layout chose it.
    Layout chosenIn = ops.rpc().layout().current();
    boolean sequenced =
        chosenIn.sequencerHostsEveryChain()
            || (sequencerDrives && chosenIn.sequencerDrivesAppends());
    if (!sequenced && req.maybeStored) {
      // An earlier attempt went to a node hosting every chain and may have been stored; nothing
      // on this layout can search for it, so a fresh token could store the append twice.
      return CompletableFuture.failedFuture(
          new AppendOutcomeUnknownException(
              -1,
              req.unknownCause,
              "an earlier attempt may have been stored before the layout placed chains on"
                  + " several nodes"));
    }
    StreamId writerId = ops.rpc().clientId();
    CompletableFuture<Written> written =
        sequenced
            // One node hosts everything: it issues the token and writes the whole chain at once.
            ? ops.sequencedWrite(
                    chosenIn,
                    req.streams(),
                    req.tx(),
                    req.payload(),
                    nonce,
                    req.numbering(settledBelow()))
                .thenApply(
                    r -> {
                      if (r.hasStored()) {
                        // A retry: the node found the attempt it had stored.
                        LogEntryMsg stored = r.getStored();
                        return new Written(
                            stored,
                            r.getStoredCommitted()
                                ? CompletableFuture.completedFuture(ChainWriter.Outcome.COMMITTED)
                                : writer.decide(stored));
                      }
                      LogEntryMsg entry =
                          ChainWriter.dataEntry(
                              r.getToken().getTokens(0),
                              ByteString.copyFrom(req.payload()),
                              r.getToken().getEpoch(),
                              r.getNonce() != 0 ? r.getNonce() : nonce,
                              writerId,
                              req.seq);
                      return new Written(entry, driven(entry, r));
                    })
            : ops.token(req.streams(), req.tx(), 1)
                .thenApply(
                    r -> {
                      LogEntryMsg entry = entry(r.token(0), req.payload(), r.epoch(), nonce);
                      return new Written(entry, writer.drive(entry));
                    });
    return written
        .handle(
            (w, error) -> {
              if (error == null) {
                return outcome(req, attempt, w);
              }
              // No entry is known to be written: no token, a node that refused before writing,
              // or (a sequenced write) an answer that never came, after which the node may hold it.
              Throwable cause = EpochRpc.unwrap(error);
              boolean again = Failover.retryable(cause, true);
              if (sequenced && again && !refusedBeforeWriting(cause)) {
                req.unknownCause = cause;
                req.maybeStored = true;
              }
              if (!again) {
                return CompletableFuture.<AppendResult>failedFuture(cause);
              }
              if (!req.failover().mayRetry()) {
                return CompletableFuture.<AppendResult>failedFuture(req.failover().giveUp(cause));
              }
              return req.failover().backOff().thenCompose(v -> attempt(req, attempt));
            })
        .thenCompose(f -> f);
  }

  /** What became of a written entry: its drive's outcome, or the decider's after a failure. */
  private CompletableFuture<AppendResult> outcome(Request req, int attempt, Written w) {
    LogEntryMsg entry = w.entry();
    return w.outcome()
        .handle(
            (outcome, error) -> {
              if (error == null) {
                return settled(req, attempt, entry, outcome, null);
              }
              // The write failed somewhere along the chain: ask the decider what became of the
              // entry (this also leaves no slot of it undecided) and report that.
              Throwable cause = EpochRpc.unwrap(error);
              return decide(req, entry, cause)
                  .thenCompose(decided -> settled(req, attempt, entry, decided, cause));
            })
        .thenCompose(f -> f);
  }

  /**
   * The decision on {@code entry}, whose write failed with {@code writeError}: asked of the decider
   * of the layout held at each try, again after a back-off and a refresh while the decider cannot
   * be reached (a layout without it then names another) and time is left.
   */
  private CompletableFuture<ChainWriter.Outcome> decide(
      Request req, LogEntryMsg entry, Throwable writeError) {
    return writer
        .decide(entry)
        .handle(
            (decided, error) -> {
              if (error == null) {
                return CompletableFuture.completedFuture(decided);
              }
              Throwable cause = EpochRpc.unwrap(error);
              if (Failover.retryable(cause, true) && req.failover().mayRetry()) {
                return req.failover().backOff().thenCompose(v -> decide(req, entry, writeError));
              }
              AppendOutcomeUnknownException unknown =
                  new AppendOutcomeUnknownException(
                      entry.getGlobalAddress(),
                      cause,
                      req.failover().retries() > 0 ? req.failover().retried() : null);
              unknown.addSuppressed(writeError);
              return CompletableFuture.<ChainWriter.Outcome>failedFuture(unknown);
            })
        .thenCompose(f -> f);
  }

  /**
   * What an append attempt reports once its entry's outcome is decided: the entry's addresses when
   * it committed (even after a failed write: the decider holds it); when it aborted, a fresh
   * attempt for a blind append, else AppendAbortedException. An attempt whose write failed with an
   * error no layout change cures ({@code failure}, e.g. an entry the replica refuses) reports that
   * error instead of retrying: a fresh token would meet it again. One whose write failed with an
   * error a layout change may cure takes its fresh token after the failover back-off; those
   * attempts are bounded by the failover timeout, not by the attempt count.
   */
  private CompletableFuture<AppendResult> settled(
      Request req, int attempt, LogEntryMsg entry, ChainWriter.Outcome outcome, Throwable failure) {
    if (outcome == ChainWriter.Outcome.COMMITTED) {
      highestSeen.accumulateAndGet(entry.getGlobalAddress(), Math::max);
      AppendResult r = Messages.appendResult(entry);
      committed.accept(r, req.payload());
      return CompletableFuture.completedFuture(r);
    }
    // A later attempt of a numbered append must not be answered with this one again.
    req.abortedAt = entry.getGlobalAddress();
    if (failure != null && !Failover.retryable(failure, true)) {
      return CompletableFuture.failedFuture(failure);
    }
    String why =
        failure == null
            ? "a reader filled one of its slots first"
            : "its write failed (" + failure.getMessage() + ") and the chain then aborted it";
    if (req.hasReads() && entry.getEpoch() < epoch.getAsLong()) {
      // The token was fenced by a sequencer restart or a layout change (see EpochFence): the
      // snapshot it was judged against predates it.
      return CompletableFuture.failedFuture(
          TokenRefusedException.sequencerRestarted(req.condition().readSet().get(0).stream()));
    }
    if (req.hasReads()) {
      // A conditional write's token was judged against its snapshot; a fresh token would need a
      // fresh judgement, so the caller decides.
      return CompletableFuture.failedFuture(
          new AppendAbortedException(entry.getGlobalAddress(), why));
    }
    if (failure != null) {
      // Aborted because a node failed: nothing of it remains; a fresh token once the layout has
      // had time to change.
      if (!req.failover().mayRetry()) {
        return CompletableFuture.failedFuture(req.failover().giveUp(failure));
      }
      if (entry.getEpoch() < ops.rpc().layout().current().epoch()) {
        // The layout held now is newer than the entry's token: the change the back-off waits for
        // has happened (the decision was taken against it). The new layout's sequencer answers
        // the fresh token as soon as it serves; another back-off would only add up to its cap.
        return attempt(req, attempt);
      }
      return req.failover().backOff().thenCompose(v -> attempt(req, attempt));
    }
    if (attempt >= maxAttempts) {
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
    return attempt(req, attempt + 1);
  }

  /**
   * True when {@code cause} proves that no node handled a sequenced write: its epoch was refused
   * (checked before any handler) or it was never sent. Any other error, even a refusal that a
   * current node gives only before writing ({@code NotServing}, {@code Sealed}), leaves the retry
   * asking the node to look for an earlier attempt: that costs a lookup, a second copy costs
   * correctness.
   */
  private static boolean refusedBeforeWriting(Throwable cause) {
    return cause instanceof WrongEpochException
        || (cause instanceof TransportException t && t.wasNeverSent());
  }

  /**
   * The outcome of {@code entry}, written by the sequencer node that answered {@code r}: the chain
   * write it made alone (a one-node layout), else how its drive of every copy ended; an undecided
   * drive is asked of the entry's decider, as after a failure of this writer's own write.
   */
  private CompletableFuture<ChainWriter.Outcome> driven(
      LogEntryMsg entry, SequencedWriteResponse r) {
    return switch (r.getDriven()) {
      case DRIVEN_COMMITTED -> CompletableFuture.completedFuture(ChainWriter.Outcome.COMMITTED);
      case DRIVEN_ABORTED -> CompletableFuture.completedFuture(ChainWriter.Outcome.ABORTED);
      case DRIVEN_UNDECIDED -> writer.decide(entry);
      default -> writer.afterWholeChain(entry, r.getWrite());
    };
  }

  /** An entry and the future of its drive through the chain. */
  private record Written(LogEntryMsg entry, CompletableFuture<ChainWriter.Outcome> outcome) {}

  private static LogEntryMsg entry(Token token, byte[] payload, long epoch, long nonce) {
    return ChainWriter.dataEntry(token, ByteString.copyFrom(payload), epoch, nonce);
  }
}
