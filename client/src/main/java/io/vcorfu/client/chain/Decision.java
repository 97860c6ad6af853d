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
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.Errors;
import io.vcorfu.protocol.OverwrittenException;
import io.vcorfu.protocol.SealedException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.WrongEpochException;
import io.vcorfu.protocol.proto.ChainStep;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.StreamSlot;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

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
              if (holds(result, entry) && result.getStatus() == ReadResult.Status.COMMITTED) {
                return commitEarlier(entry, plan, plan.visits().size() - 1, at)
                    .thenApply(v -> Outcome.COMMITTED);
              }
              if (holds(result, entry)) {
                // Held uncommitted: committed once every copy holds it. The missing copies are
                // written (or, for a token older than a seal, looked for); then the decider is
                // committed first, so its slot tells from now on.
                return finish(entry, plan, at)
                    .thenCompose(
                        finished ->
                            finished
                                ? commitAt(entry, decider, 0, at)
                                    .thenCompose(
                                        v ->
                                            commitEarlier(
                                                entry, plan, plan.visits().size() - 1, at))
                                    .thenApply(v -> Outcome.COMMITTED)
                                : abortHeld(entry, plan, at));
              }
              if (result.getStatus() == ReadResult.Status.TRIMMED) {
                return decideFromCopies(entry, plan, Copy.all(entry, plan), 0, at);
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
              return replaceCopies(entry, Copy.abortOrder(entry, plan), 0, at)
                  .thenCompose(v -> commitHole(entry, decider, at))
                  .thenCompose(v -> abortEarlier(entry, plan, at))
                  .thenApply(v -> Outcome.ABORTED);
            });
  }

  /**
   * True once every copy of {@code entry} holds it: each node's copies (all but the deciding slot,
   * known to hold it) are written again, idempotent where held, one message per node, all at once.
   * False if a copy cannot hold it: its slot holds a hole, or the token predates a seal (the node
   * refuses the write) and a copy is missing, which then stays missing. A trimmed copy counts as
   * held: a slot is trimmed only once a reader of its stream decided the entry, and the decider
   * holding it means the decision was not an abort.
   */
  private CompletableFuture<Boolean> finish(LogEntryMsg entry, ChainPlan plan, ReplicaClient at) {
    Map<Endpoint, List<Copy>> byNode = new LinkedHashMap<>();
    for (Copy c : Copy.all(entry, plan)) {
      byNode.computeIfAbsent(c.visit().endpoint(), e -> new ArrayList<>()).add(c);
    }
    List<CompletableFuture<Boolean>> nodes = new ArrayList<>();
    for (Map.Entry<Endpoint, List<Copy>> node : byNode.entrySet()) {
      nodes.add(finishAt(entry, node.getKey(), node.getValue(), 0, at));
    }
    return CompletableFuture.allOf(nodes.toArray(CompletableFuture[]::new))
        .thenApply(v -> nodes.stream().allMatch(CompletableFuture::join));
  }

  /** Writes {@code copies}, all on {@code node}, uncommitted, one step each, in one message. */
  private CompletableFuture<Boolean> finishAt(
      LogEntryMsg entry, Endpoint node, List<Copy> copies, int attempt, ReplicaClient at) {
    List<ChainStep> steps = new ArrayList<>(copies.size());
    for (Copy c : copies) {
      steps.add(
          c.slot() == null
              ? ChainStep.newBuilder().setLog(true).build()
              : ChainStep.newBuilder().addSlots(c.slot()).build());
    }
    return at.chainWrite(node, entry, steps, false)
        .handle(
            (response, error) -> {
              if (error == null && !response.hasError()) {
                return CompletableFuture.completedFuture(true);
              }
              if (error == null) {
                Throwable failed = Errors.toException(response.getError());
                if (failed instanceof TrimmedException) {
                  List<Copy> rest = copies.subList(response.getDone() + 1, copies.size());
                  return rest.isEmpty()
                      ? CompletableFuture.completedFuture(true)
                      : finishAt(entry, node, rest, 0, at);
                }
                if (failed instanceof OverwrittenException) {
                  return CompletableFuture.completedFuture(false);
                }
                return CompletableFuture.<Boolean>failedFuture(failed);
              }
              Throwable cause = EpochRpc.unwrap(error);
              if (cause instanceof SealedException) {
                return heldAfterSeal(entry, copies, at);
              }
              if (isTransient(cause) && attempt < TRANSIENT_RETRIES) {
                return CompletableFuture.supplyAsync(() -> null, delayed)
                    .thenCompose(x -> finishAt(entry, node, copies, attempt + 1, at));
              }
              return CompletableFuture.<Boolean>failedFuture(cause);
            })
        .thenCompose(f -> f);
  }

  /**
   * True if every one of {@code copies} holds {@code entry}, whose token predates a seal: no write
   * of it lands anywhere any more ({@code EpochFence}), so what is missing now stays missing. A
   * rebuilding replica that joined after the token was issued is not asked: writes skip it and its
   * rebuild copies the entry's decision from the others.
   */
  private CompletableFuture<Boolean> heldAfterSeal(
      LogEntryMsg entry, List<Copy> copies, ReplicaClient at) {
    Layout layout = at.rpc().layout().current();
    List<CompletableFuture<Boolean>> reads = new ArrayList<>();
    for (Copy c : copies) {
      if (rebuildsCopy(layout, entry, c)) {
        continue;
      }
      // A fill that keeps what the slot holds, not a read: rebuilding replicas serve no reads.
      // An empty slot gets an uncommitted hole, as the abort that follows would leave there.
      reads.add(
          Copy.fill(entry, c, false, false, 0, at)
              .thenApply(r -> r.getStatus() == ReadResult.Status.TRIMMED || holds(r, entry)));
    }
    return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new))
        .thenApply(v -> reads.stream().allMatch(CompletableFuture::join));
  }

  /**
   * True if {@code c}'s replica rebuilds that copy's chain and joined it after {@code entry}'s
   * token was issued: exactly the copies the replica acknowledges without storing (see {@code
   * JoinState}), which its rebuild copies from the others. A node that rebuilds some chains while
   * it serves its others is judged on those others like any member.
   */
  private static boolean rebuildsCopy(Layout layout, LogEntryMsg entry, Copy c) {
    Endpoint node = c.visit().endpoint();
    Long since = layout.rebuilding().get(node);
    if (since == null || entry.getEpoch() >= since) {
      return false;
    }
    return c.slot() == null
        ? layout.rebuildsLog(node, entry.getGlobalAddress())
        : layout.rebuildsStream(
            node, layout.streamChainIndex(StreamId.fromMsg(c.slot().getStream())));
  }

  /**
   * Aborts an entry the decider holds uncommitted that cannot be finished: its deciding slot is
   * replaced by an uncommitted hole, then the abort goes on as any other (see {@link #decide}). A
   * decider that turns out to hold the entry committed (someone finished it after all) decides
   * COMMITTED.
   */
  private CompletableFuture<Outcome> abortHeld(
      LogEntryMsg entry, ChainPlan plan, ReplicaClient at) {
    ChainPlan.Visit decider = plan.last();
    return Copy.fill(entry, Copy.deciding(entry, decider), true, false, 0, at)
        .thenCompose(
            r -> {
              if (r.getStatus() == ReadResult.Status.TRIMMED) {
                return decideFromCopies(entry, plan, Copy.all(entry, plan), 0, at);
              }
              if (holds(r, entry)) {
                return commitEarlier(entry, plan, plan.visits().size() - 1, at)
                    .thenApply(v -> Outcome.COMMITTED);
              }
              if (r.getStatus() == ReadResult.Status.COMMITTED) {
                return abortEarlier(entry, plan, at).thenApply(v -> Outcome.ABORTED);
              }
              return replaceCopies(entry, Copy.abortOrder(entry, plan), 0, at)
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
    return Copy.fill(entry, c, true, false, 0, at)
        .thenCompose(r -> replaceCopies(entry, copies, i + 1, at));
  }

  /** Commits the hole an abort left uncommitted at the decider's first slot of the entry. */
  private CompletableFuture<Void> commitHole(
      LogEntryMsg entry, ChainPlan.Visit decider, ReplicaClient at) {
    return Copy.fill(entry, Copy.deciding(entry, decider), false, true, 0, at).thenApply(r -> null);
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
    return Copy.read(copies.get(i), entry, 0, at)
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

  CompletableFuture<Void> commitAt(
      LogEntryMsg entry, ChainPlan.Visit v, int attempt, ReplicaClient at) {
    return retried(
        () ->
            v.role() == ChainPlan.Role.LOG
                ? at.logCommit(v.endpoint(), List.of(entry.getGlobalAddress()))
                : at.streamCommit(v.endpoint(), slotsFor(entry, v)),
        attempt);
  }

  /** Commits the log copies at {@code addresses} on {@code node}, in one request. */
  CompletableFuture<Void> commitLog(Endpoint node, List<Long> addresses, int attempt) {
    return retried(() -> ops.logCommit(node, addresses), attempt);
  }

  /** Commits the stream copies {@code slots} on {@code node}, in one request. */
  CompletableFuture<Void> commitStream(Endpoint node, List<StreamSlot> slots, int attempt) {
    return retried(() -> ops.streamCommit(node, slots), attempt);
  }

  /** {@code commit}, sent again after a short delay while it fails transiently. */
  private CompletableFuture<Void> retried(Supplier<CompletableFuture<Void>> commit, int attempt) {
    return commit
        .get()
        .handle(
            (ok, error) -> {
              if (error == null) {
                return CompletableFuture.<Void>completedFuture(null);
              }
              Throwable cause = EpochRpc.unwrap(error);
              if (isTransient(cause) && attempt < TRANSIENT_RETRIES) {
                return CompletableFuture.supplyAsync(() -> null, delayed)
                    .thenCompose(x -> retried(commit, attempt + 1));
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
    return Copy.fill(entry, Copy.deciding(entry, decider), false, false, 0, at);
  }

  /**
   * Sends commits to the visits before {@code upTo} (at most the number of visits; visits from
   * {@code upTo} on were committed already).
   */
  CompletableFuture<Void> commitEarlier(
      LogEntryMsg entry, ChainPlan plan, int upTo, ReplicaClient at) {
    List<ChainPlan.Visit> visits = plan.visits();
    List<CompletableFuture<?>> commits = new ArrayList<>();
    for (int i = 0; i < upTo; i++) {
      ChainPlan.Visit v = visits.get(i);
      CompletableFuture<Void> c =
          v.role() == ChainPlan.Role.LOG
              ? at.logCommit(v.endpoint(), List.of(entry.getGlobalAddress()))
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
