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
import io.vcorfu.protocol.NotServingException;
import io.vcorfu.protocol.SealedException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TokenRefusedException;
import io.vcorfu.protocol.TooLargeException;
import io.vcorfu.protocol.TransportException;
import io.vcorfu.protocol.WrongEpochException;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.Token;
import io.vcorfu.protocol.proto.TxResolution;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
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
 *   <li>a sequenced write (token and chain in one request) only when the node did not take it: it
 *       refused it before doing anything (wrong epoch, not serving) or the request was never sent
 *       (no connection could be made); an answer lost on a dropped connection may follow a write;
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

  /**
   * Appends through {@code ops} and {@code writer}; refuses payloads over {@code maxEntryBytes},
   * gives a blind append up after {@code maxAttempts} attempts aborted by readers. {@code epoch} is
   * the log's current epoch; {@code committed} hears of every committed append (with its payload)
   * before its caller does; {@code failover} bounds the retries through layout changes.
   */
  public Appender(
      ReplicaClient ops,
      ChainWriter writer,
      int maxEntryBytes,
      int maxAttempts,
      LongSupplier epoch,
      BiConsumer<AppendResult, byte[]> committed,
      Failover failover) {
    this.ops = ops;
    this.writer = writer;
    this.maxEntryBytes = maxEntryBytes;
    this.maxAttempts = maxAttempts;
    this.epoch = epoch;
    this.committed = committed;
    this.failover = failover;
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
    Request request =
        new Request(streams, payload, condition, Messages.toMsg(condition), failover.begin());
    return attempt(request, 1);
  }

  /** One append: what to write, and its failover clock. */
  private record Request(
      List<StreamId> streams,
      byte[] payload,
      IssueCondition condition,
      TxResolution tx,
      Failover.Operation failover) {
    boolean hasReads() {
      return condition != null && !condition.readSet().isEmpty();
    }
  }

  private CompletableFuture<AppendResult> attempt(Request req, int attempt) {
    long nonce = ThreadLocalRandom.current().nextLong() | 1L;
    boolean sequenced = ops.rpc().layout().current().sequencerHostsEveryChain();
    CompletableFuture<Written> written =
        sequenced
            // One node hosts everything: it issues the token and writes the whole chain at once.
            ? ops.sequencedWrite(req.streams(), req.tx(), req.payload(), nonce)
                .thenApply(
                    r -> {
                      LogEntryMsg entry =
                          entry(
                              r.getToken().getTokens(0),
                              req.payload(),
                              r.getToken().getEpoch(),
                              nonce);
                      return new Written(entry, writer.afterWholeChain(entry, r.getWrite()));
                    })
            : ops.token(req.streams(), req.tx(), 1)
                .thenApply(
                    r -> {
                      LogEntryMsg entry = entry(r.getTokens(0), req.payload(), r.getEpoch(), nonce);
                      return new Written(entry, writer.drive(entry));
                    });
    return written
        .handle(
            (w, error) -> {
              if (error == null) {
                return outcome(req, attempt, w);
              }
              // Nothing was written yet (no token, or a node that refused before writing).
              Throwable cause = EpochRpc.unwrap(error);
              boolean again =
                  sequenced
                      ? cause instanceof WrongEpochException
                          || cause instanceof NotServingException
                          || cause instanceof SealedException
                          || (cause instanceof TransportException t && t.wasNeverSent())
                      : Failover.retryable(cause, true);
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
      AppendResult r = Messages.appendResult(entry);
      committed.accept(r, req.payload());
      return CompletableFuture.completedFuture(r);
    }
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

  /** An entry and the future of its drive through the chain. */
  private record Written(LogEntryMsg entry, CompletableFuture<ChainWriter.Outcome> outcome) {}

  private static LogEntryMsg entry(Token token, byte[] payload, long epoch, long nonce) {
    return ChainWriter.dataEntry(token, ByteString.copyFrom(payload), epoch, nonce);
  }
}
