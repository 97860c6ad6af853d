package io.vcorfu.client.chain;

import com.google.protobuf.ByteString;
import io.vcorfu.client.AppendAbortedException;
import io.vcorfu.client.AppendOutcomeUnknownException;
import io.vcorfu.client.AppendResult;
import io.vcorfu.client.IssueCondition;
import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.client.rpc.Messages;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TokenRefusedException;
import io.vcorfu.protocol.TooLargeException;
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
 * Thread-safe.
 */
public final class Appender {
  private final ReplicaClient ops;
  private final ChainWriter writer;
  private final int maxEntryBytes;
  private final int maxAttempts;
  private final LongSupplier epoch;
  private final BiConsumer<AppendResult, byte[]> committed;

  /**
   * Appends through {@code ops} and {@code writer}; refuses payloads over {@code maxEntryBytes},
   * gives a blind append up after {@code maxAttempts} aborted attempts. {@code epoch} is the log's
   * current epoch; {@code committed} hears of every committed append (with its payload) before its
   * caller does.
   */
  public Appender(
      ReplicaClient ops,
      ChainWriter writer,
      int maxEntryBytes,
      int maxAttempts,
      LongSupplier epoch,
      BiConsumer<AppendResult, byte[]> committed) {
    this.ops = ops;
    this.writer = writer;
    this.maxEntryBytes = maxEntryBytes;
    this.maxAttempts = maxAttempts;
    this.epoch = epoch;
    this.committed = committed;
  }

  /**
   * Appends {@code payload} to {@code streams}, on {@code condition} unless it is null (see {@link
   * io.vcorfu.client.StreamLog#append} and {@link io.vcorfu.client.StreamLog#appendConditional}).
   */
  public CompletableFuture<AppendResult> append(
      List<StreamId> streams, byte[] payload, IssueCondition condition) {
    return attempt(streams, payload, condition, Messages.toMsg(condition), 1);
  }

  private CompletableFuture<AppendResult> attempt(
      List<StreamId> streams,
      byte[] payload,
      IssueCondition condition,
      TxResolution tx,
      int attempt) {
    if (payload.length > maxEntryBytes) {
      return CompletableFuture.failedFuture(new TooLargeException(payload.length, maxEntryBytes));
    }
    long nonce = ThreadLocalRandom.current().nextLong() | 1L;
    CompletableFuture<Written> written =
        ops.rpc().layout().current().sequencerHostsEveryChain()
            // One node hosts everything: it issues the token and writes the whole chain at once.
            ? ops.sequencedWrite(streams, tx, payload, nonce)
                .thenApply(
                    r -> {
                      LogEntryMsg entry =
                          entry(r.getToken().getTokens(0), payload, r.getToken().getEpoch(), nonce);
                      return new Written(entry, writer.afterWholeChain(entry, r.getWrite()));
                    })
            : ops.token(streams, tx, 1)
                .thenApply(
                    r -> {
                      LogEntryMsg entry = entry(r.getTokens(0), payload, r.getEpoch(), nonce);
                      return new Written(entry, writer.drive(entry));
                    });
    return written.thenCompose(
        w -> {
          LogEntryMsg entry = w.entry();
          return w.outcome()
              .handle(
                  (outcome, error) -> {
                    if (error == null) {
                      return settled(
                          streams, payload, condition, tx, attempt, entry, outcome, null);
                    }
                    // The write failed somewhere along the chain: ask the decider what became of
                    // the entry (this also leaves no slot of it undecided) and report that.
                    Throwable cause = EpochRpc.unwrap(error);
                    return writer
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
                              return settled(
                                  streams, payload, condition, tx, attempt, entry, decided, cause);
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
      IssueCondition condition,
      TxResolution tx,
      int attempt,
      LogEntryMsg entry,
      ChainWriter.Outcome outcome,
      Throwable failure) {
    if (outcome == ChainWriter.Outcome.COMMITTED) {
      AppendResult r = Messages.appendResult(entry);
      committed.accept(r, payload);
      return CompletableFuture.completedFuture(r);
    }
    if (failure != null && !ChainWriter.isTransient(failure)) {
      return CompletableFuture.failedFuture(failure);
    }
    String why =
        failure == null
            ? "a reader filled one of its slots first"
            : "its write failed (" + failure.getMessage() + ") and the chain then aborted it";
    boolean hasReads = condition != null && !condition.readSet().isEmpty();
    if (hasReads && entry.getEpoch() < epoch.getAsLong()) {
      // The token was fenced by a sequencer restart (see EpochFence): the snapshot it was judged
      // against predates the restart.
      return CompletableFuture.failedFuture(
          TokenRefusedException.sequencerRestarted(condition.readSet().get(0).stream()));
    }
    if (hasReads) {
      // A conditional write's token was judged against its snapshot; a fresh token would need a
      // fresh judgement, so the caller decides.
      return CompletableFuture.failedFuture(
          new AppendAbortedException(entry.getGlobalAddress(), why));
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
    return attempt(streams, payload, condition, tx, attempt + 1);
  }

  /** An entry and the future of its drive through the chain. */
  private record Written(LogEntryMsg entry, CompletableFuture<ChainWriter.Outcome> outcome) {}

  private static LogEntryMsg entry(Token token, byte[] payload, long epoch, long nonce) {
    return ChainWriter.dataEntry(token, ByteString.copyFrom(payload), epoch, nonce);
  }
}
