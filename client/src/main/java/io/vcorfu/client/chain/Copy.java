package io.vcorfu.client.chain;

import static io.vcorfu.client.chain.ChainWriter.TRANSIENT_RETRIES;
import static io.vcorfu.client.chain.ChainWriter.isTransient;
import static io.vcorfu.client.chain.ChainWriter.slotsFor;

import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.layout.ChainPlan;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.UnknownStreamException;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.StreamSlot;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * One copy of an entry: a log replica's (slot null) or one stream slot on a stream replica; which
 * copies a {@link Decision} visits in which order, and the fill and read of one copy, with their
 * retries of transport failures.
 */
record Copy(ChainPlan.Visit visit, StreamSlot slot) {
  private static final Executor DELAYED =
      CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS);

  /** The deciding copy: the decider's first slot of the entry (its log slot for a log replica). */
  static Copy deciding(LogEntryMsg entry, ChainPlan.Visit decider) {
    return new Copy(
        decider, decider.role() == ChainPlan.Role.LOG ? null : slotsFor(entry, decider).get(0));
  }

  /**
   * A fill of one copy's slot; returns what the slot holds afterwards (TRIMMED when trimmed). An
   * abort-fill of the entry ({@code abort}) replaces its uncommitted copy by a hole; the hole it
   * writes (there or in an empty slot) is committed iff {@code commit}; with {@code commit}, an
   * uncommitted hole is committed. Transport failures are retried a few times.
   */
  static CompletableFuture<ReadResult> fill(
      LogEntryMsg entry, Copy copy, boolean abort, boolean commit, int attempt, ReplicaClient at) {
    long nonce = abort ? entry.getNonce() : 0;
    CompletableFuture<ReadResult> fill =
        copy.slot() == null
            ? at.logFill(copy.visit().endpoint(), entry.getGlobalAddress(), abort, nonce, commit)
            : at.streamFill(
                copy.visit().endpoint(),
                StreamId.fromMsg(copy.slot().getStream()),
                copy.slot().getStreamAddress(),
                abort,
                nonce,
                commit);
    return fill.handle(
            (r, error) -> {
              if (error == null) {
                return CompletableFuture.completedFuture(r);
              }
              Throwable cause = EpochRpc.unwrap(error);
              if (cause instanceof TrimmedException) {
                return CompletableFuture.completedFuture(
                    ReadResult.newBuilder().setStatus(ReadResult.Status.TRIMMED).build());
              }
              if (isTransient(cause) && attempt < TRANSIENT_RETRIES) {
                return CompletableFuture.supplyAsync(() -> null, DELAYED)
                    .thenCompose(v -> fill(entry, copy, abort, commit, attempt + 1, at));
              }
              return CompletableFuture.<ReadResult>failedFuture(cause);
            })
        .thenCompose(f -> f);
  }

  /**
   * The copies an abort replaces before it commits the decider's hole: every slot of every visit
   * before the decider's, the last visit first and, within a visit, its first slot first (the slot
   * that decides should that visit's replica become the chain's last). The decider's own other
   * slots are not among them: they become holes only once the decision is committed.
   */
  static List<Copy> abortOrder(LogEntryMsg entry, ChainPlan plan) {
    List<Copy> out = new ArrayList<>();
    List<ChainPlan.Visit> visits = plan.visits();
    for (int i = visits.size() - 2; i >= 0; i--) {
      ChainPlan.Visit v = visits.get(i);
      if (v.role() == ChainPlan.Role.LOG) {
        out.add(new Copy(v, null));
      } else {
        for (StreamSlot slot : slotsFor(entry, v)) {
          out.add(new Copy(v, slot));
        }
      }
    }
    return out;
  }

  /** Every copy of the entry except the deciding slot itself, in chain order. */
  static List<Copy> all(LogEntryMsg entry, ChainPlan plan) {
    List<Copy> copies = new ArrayList<>();
    List<ChainPlan.Visit> visits = plan.visits();
    for (int i = 0; i < visits.size(); i++) {
      ChainPlan.Visit v = visits.get(i);
      if (v.role() == ChainPlan.Role.LOG) {
        if (i < visits.size() - 1) {
          copies.add(new Copy(v, null));
        }
        continue;
      }
      List<StreamSlot> slots = slotsFor(entry, v);
      // The decider's first slot is the one abort-filled; its other slots were written with it.
      for (int k = i == visits.size() - 1 ? 1 : 0; k < slots.size(); k++) {
        copies.add(new Copy(v, slots.get(k)));
      }
    }
    return copies;
  }

  /** What one copy's slot holds; a replica that never held the stream holds nothing there. */
  static CompletableFuture<ReadResult> read(
      Copy copy, LogEntryMsg entry, int attempt, ReplicaClient at) {
    CompletableFuture<List<ReadResult>> read =
        copy.slot() == null
            ? at.logRead(
                copy.visit().endpoint(), entry.getGlobalAddress(), entry.getGlobalAddress())
            : at.streamRead(
                copy.visit().endpoint(),
                StreamId.fromMsg(copy.slot().getStream()),
                copy.slot().getStreamAddress(),
                copy.slot().getStreamAddress());
    return read.handle(
            (l, error) -> {
              if (error == null) {
                return CompletableFuture.completedFuture(l.get(0));
              }
              Throwable cause = EpochRpc.unwrap(error);
              if (cause instanceof UnknownStreamException) {
                return CompletableFuture.completedFuture(
                    ReadResult.newBuilder().setStatus(ReadResult.Status.EMPTY).build());
              }
              if (isTransient(cause) && attempt < TRANSIENT_RETRIES) {
                return CompletableFuture.supplyAsync(() -> null, DELAYED)
                    .thenCompose(v -> read(copy, entry, attempt + 1, at));
              }
              return CompletableFuture.<ReadResult>failedFuture(cause);
            })
        .thenCompose(f -> f);
  }
}
