package io.vcorfu.client.chain;

import static io.vcorfu.client.chain.ChainWriter.TRANSIENT_RETRIES;
import static io.vcorfu.client.chain.ChainWriter.holds;
import static io.vcorfu.client.chain.ChainWriter.isTransient;
import static io.vcorfu.client.chain.ChainWriter.slotsFor;

import io.vcorfu.client.chain.ChainWriter.Outcome;
import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.layout.ChainPlan;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.UnknownStreamException;
import io.vcorfu.protocol.WrongEpochException;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.StreamSlot;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The decision of one entry whose write may be incomplete, by the rules of {@link ChainWriter}'s
 * class comment: ask the decider of the layout held now (commit what it holds, or abort last first,
 * or decide from the copies when it is trimmed), with every request pinned to that layout and the
 * whole decision begun again at a newer one when a node refuses the epoch. Also the commits a
 * writer sends once its entry is decided. Thread-safe; nothing here blocks.
 */
final class Decision {
  /** How many times one decision starts again at a newer layout before it gives up. */
  private static final int MAX_REPLANS = 16;

  private final ReplicaClient ops;
  private final Executor delayed = CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS);

  Decision(ReplicaClient ops) {
    this.ops = ops;
  }

  /**
   * Decides {@code entry} without writing it anywhere new: commit if the decider holds it, else
   * abort.
   */
  CompletableFuture<Outcome> decide(LogEntryMsg entry) {
    return decide(entry, 0);
  }

  /**
   * Decides {@code entry} at the layout held now, every request pinned to that layout; refused for
   * a wrong epoch (a node of the plan was sealed at a later one), it starts again at the refreshed
   * layout's decider, at most {@link #MAX_REPLANS} times (see the class comment).
   */
  private CompletableFuture<Outcome> decide(LogEntryMsg entry, int replans) {
    Layout layout = ops.rpc().layout().current();
    return decide(entry, ChainWriter.plan(entry, layout), ops.pinnedTo(layout))
        .handle(
            (outcome, error) -> {
              if (error == null) {
                return CompletableFuture.completedFuture(outcome);
              }
              Throwable cause = EpochRpc.unwrap(error);
              if (!(cause instanceof WrongEpochException) || replans >= MAX_REPLANS) {
                return CompletableFuture.<Outcome>failedFuture(cause);
              }
              return ops.rpc()
                  .layout()
                  .refresh()
                  .handle(
                      (refreshed, e) ->
                          e == null && refreshed.epoch() > layout.epoch()
                              ? decide(entry, replans + 1)
                              // No newer layout yet: the caller's failover waits for one.
                              : CompletableFuture.<Outcome>failedFuture(cause))
                  .thenCompose(f -> f);
            })
        .thenCompose(f -> f);
  }

  private CompletableFuture<Outcome> decide(LogEntryMsg entry, ChainPlan plan, ReplicaClient at) {
    ChainPlan.Visit decider = plan.last();
    return askDecider(entry, decider, at)
        .thenCompose(
            result -> {
              if (holds(result, entry)) {
                // Uncommitted only where a layout change made this replica the decider (see the
                // class comment): committed there first, so the decider's slot tells from now on.
                CompletableFuture<Void> atDecider =
                    result.getStatus() == ReadResult.Status.COMMITTED
                        ? CompletableFuture.completedFuture(null)
                        : commitAt(entry, decider, 0, at);
                return atDecider
                    .thenCompose(v -> commitEarlier(entry, plan, plan.visits().size() - 1, at))
                    .thenApply(v -> Outcome.COMMITTED);
              }
              if (result.getStatus() == ReadResult.Status.TRIMMED) {
                return decideFromCopies(entry, plan, copies(entry, plan), 0, at);
              }
              if (result.getStatus() == ReadResult.Status.COMMITTED) {
                // Decided already: by an abort that finished, or by a fill of a stream slot found
                // empty at every replica of its chain (the log's copy, if any, is replaced now).
                return abortEarlier(entry, plan, at).thenApply(v -> Outcome.ABORTED);
              }
              // The decider holds an uncommitted hole: an abort in progress (this one's, or
              // another party's that this one finishes). The copies of every earlier visit are
              // replaced by uncommitted holes, last visit first, then the decider's hole is
              // committed, and only then every other hole (see the class comment).
              return replaceCopies(entry, abortOrder(entry, plan), 0, at)
                  .thenCompose(v -> commitHole(entry, decider, at))
                  .thenCompose(v -> abortEarlier(entry, plan, at))
                  .thenApply(v -> Outcome.ABORTED);
            });
  }

  /**
   * Replaces copies {@code i..} of an aborted entry by uncommitted holes, one after another in list
   * order; fails if a copy cannot be replaced (the abort then stays uncommitted at the decider, and
   * a later decision, against a layout without the unreachable replica, finishes it).
   */
  private CompletableFuture<Void> replaceCopies(
      LogEntryMsg entry, List<Copy> copies, int i, ReplicaClient at) {
    if (i == copies.size()) {
      return CompletableFuture.completedFuture(null);
    }
    Copy c = copies.get(i);
    return fillCopy(entry, c, true, false, 0, at)
        .thenCompose(r -> replaceCopies(entry, copies, i + 1, at));
  }

  /** Commits the hole an abort left uncommitted at the decider's first slot of the entry. */
  private CompletableFuture<Void> commitHole(
      LogEntryMsg entry, ChainPlan.Visit decider, ReplicaClient at) {
    return fillCopy(entry, deciding(entry, decider), false, true, 0, at).thenApply(r -> null);
  }

  /** The deciding copy: the decider's first slot of the entry (its log slot for a log replica). */
  private static Copy deciding(LogEntryMsg entry, ChainPlan.Visit decider) {
    return new Copy(
        decider, decider.role() == ChainPlan.Role.LOG ? null : slotsFor(entry, decider).get(0));
  }

  /**
   * A fill of one copy's slot; returns what the slot holds afterwards (TRIMMED when trimmed). An
   * abort-fill of the entry ({@code abort}) replaces its uncommitted copy by a hole; the hole it
   * writes (there or in an empty slot) is committed iff {@code commit}; with {@code commit}, an
   * uncommitted hole is committed. Transport failures are retried a few times.
   */
  private CompletableFuture<ReadResult> fillCopy(
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
                return CompletableFuture.supplyAsync(() -> null, delayed)
                    .thenCompose(v -> fillCopy(entry, copy, abort, commit, attempt + 1, at));
              }
              return CompletableFuture.<ReadResult>failedFuture(cause);
            })
        .thenCompose(f -> f);
  }

  /** One copy of an entry: a log replica's (slot null) or one stream slot on a stream replica. */
  private record Copy(ChainPlan.Visit visit, StreamSlot slot) {}

  /**
   * The copies an abort replaces before it commits the decider's hole: every slot of every visit
   * before the decider's, the last visit first and, within a visit, its first slot first (the slot
   * that decides should that visit's replica become the chain's last). The decider's own other
   * slots are not among them: they become holes only once the decision is committed.
   */
  private static List<Copy> abortOrder(LogEntryMsg entry, ChainPlan plan) {
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
  private static List<Copy> copies(LogEntryMsg entry, ChainPlan plan) {
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

  /**
   * The outcome of an entry whose deciding slot is trimmed, from its first untrimmed copy (see the
   * class comment for why that copy is enough).
   */
  private CompletableFuture<Outcome> decideFromCopies(
      LogEntryMsg entry, ChainPlan plan, List<Copy> copies, int i, ReplicaClient at) {
    if (i == copies.size()) {
      if (plan.last().role() == ChainPlan.Role.LOG) {
        return CompletableFuture.failedFuture(
            new TrimmedException(entry.getGlobalAddress() + 1, null));
      }
      StreamSlot decided = slotsFor(entry, plan.last()).get(0);
      return CompletableFuture.failedFuture(
          new TrimmedException(
              decided.getStreamAddress() + 1, StreamId.fromMsg(decided.getStream())));
    }
    return readCopy(copies.get(i), entry, 0, at)
        .thenCompose(
            r -> {
              if (r.getStatus() == ReadResult.Status.TRIMMED) {
                return decideFromCopies(entry, plan, copies, i + 1, at);
              }
              if (r.getStatus() == ReadResult.Status.COMMITTED && holds(r, entry)) {
                return commitEarlier(entry, plan, plan.visits().size() - 1, at)
                    .thenApply(v -> Outcome.COMMITTED);
              }
              return abortEarlier(entry, plan, at).thenApply(v -> Outcome.ABORTED);
            });
  }

  /** What one copy's slot holds; a replica that never held the stream holds nothing there. */
  private CompletableFuture<ReadResult> readCopy(
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
                return CompletableFuture.supplyAsync(() -> null, delayed)
                    .thenCompose(v -> readCopy(copy, entry, attempt + 1, at));
              }
              return CompletableFuture.<ReadResult>failedFuture(cause);
            })
        .thenCompose(f -> f);
  }

  CompletableFuture<Void> commitAt(
      LogEntryMsg entry, ChainPlan.Visit v, int attempt, ReplicaClient at) {
    CompletableFuture<Void> c =
        v.role() == ChainPlan.Role.LOG
            ? at.logCommit(v.endpoint(), entry.getGlobalAddress())
            : at.streamCommit(v.endpoint(), slotsFor(entry, v));
    return c.handle(
            (ok, error) -> {
              if (error == null) {
                return CompletableFuture.<Void>completedFuture(null);
              }
              Throwable cause = EpochRpc.unwrap(error);
              if (isTransient(cause) && attempt < TRANSIENT_RETRIES) {
                return CompletableFuture.supplyAsync(() -> null, delayed)
                    .thenCompose(x -> commitAt(entry, v, attempt + 1, at));
              }
              return CompletableFuture.<Void>failedFuture(cause);
            })
        .thenCompose(f -> f);
  }

  /**
   * A fill of the decider's first slot of the entry that keeps whatever the slot holds; an empty
   * slot gets an <em>uncommitted</em> hole, which no reader takes for a decision until every copy
   * of the entry has been replaced by a hole and the decider's hole committed (see {@link
   * #decide}). Returns what the slot holds afterwards.
   */
  private CompletableFuture<ReadResult> askDecider(
      LogEntryMsg entry, ChainPlan.Visit decider, ReplicaClient at) {
    return fillCopy(entry, deciding(entry, decider), false, false, 0, at);
  }

  /**
   * Sends commits to the visits before {@code upTo}, a visit index no greater than the last one's
   * (visits from {@code upTo} on were committed by the node that wrote them in one message).
   */
  CompletableFuture<Void> commitEarlier(
      LogEntryMsg entry, ChainPlan plan, int upTo, ReplicaClient at) {
    List<ChainPlan.Visit> visits = plan.visits();
    List<CompletableFuture<?>> commits = new ArrayList<>();
    for (int i = 0; i < upTo; i++) {
      ChainPlan.Visit v = visits.get(i);
      CompletableFuture<Void> c =
          v.role() == ChainPlan.Role.LOG
              ? at.logCommit(v.endpoint(), entry.getGlobalAddress())
              : at.streamCommit(v.endpoint(), slotsFor(entry, v));
      // A lost commit is harmless: the decider holds the entry, and readers finish the commit.
      commits.add(c.exceptionally(e -> null));
    }
    return CompletableFuture.allOf(commits.toArray(CompletableFuture[]::new));
  }

  /**
   * Once an abort is decided (the decider's hole is committed), abort-fills every copy of the entry
   * with committed holes: replacing what still holds the entry and committing the holes the abort
   * left uncommitted. A lost fill is harmless: a reader of that copy finishes the abort.
   */
  private CompletableFuture<Void> abortEarlier(
      LogEntryMsg entry, ChainPlan plan, ReplicaClient at) {
    List<ChainPlan.Visit> visits = plan.visits();
    List<CompletableFuture<?>> fills = new ArrayList<>();
    for (int i = 0; i < visits.size(); i++) {
      ChainPlan.Visit v = visits.get(i);
      if (v.role() == ChainPlan.Role.LOG) {
        fills.add(
            at.logFill(v.endpoint(), entry.getGlobalAddress(), true, entry.getNonce())
                .exceptionally(e -> null));
      } else {
        for (StreamSlot slot : slotsFor(entry, v)) {
          fills.add(
              at.streamFill(
                      v.endpoint(),
                      StreamId.fromMsg(slot.getStream()),
                      slot.getStreamAddress(),
                      true,
                      entry.getNonce())
                  .exceptionally(e -> null));
        }
      }
    }
    // A lost abort-fill is harmless: the decider holds a hole, and readers finish the abort.
    return CompletableFuture.allOf(fills.toArray(CompletableFuture[]::new));
  }
}
