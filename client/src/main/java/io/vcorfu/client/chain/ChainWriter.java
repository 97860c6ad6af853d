package io.vcorfu.client.chain;

import com.google.protobuf.ByteString;
import io.vcorfu.client.read.RepairingReader;
import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.layout.ChainPlan;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Errors;
import io.vcorfu.protocol.OverwrittenException;
import io.vcorfu.protocol.SealedException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TransportException;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.proto.ChainStep;
import io.vcorfu.protocol.proto.ChainWriteResponse;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.protocol.proto.Token;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * Drives one entry through its chain to a decision. Used by writers (the normal write path) and by
 * readers repairing an incomplete write: both run the same idempotent steps, so any number of
 * parties may drive one entry concurrently.
 *
 * <p>The rule: <em>the last replica of the chain decides.</em> Writes go to each replica of the
 * chain in order (log replicas, then stream replicas); the last write is also its commit. If any
 * write finds its slot taken by something else, the driver asks the deciding replica: an abort-fill
 * there either finds the entry (it committed: someone else finished it) or leaves a hole (it
 * aborted everywhere, and the earlier replicas' copies are replaced by holes).
 *
 * <p>A drive completes as soon as the outcome is decided: COMMITTED once the last replica holds the
 * entry. Commit messages to the earlier replicas are sent without waiting for them; until one
 * arrives, a reader of such a replica sees the entry uncommitted, waits briefly and, if needed,
 * confirms the decision with the last replica (see {@link RepairingReader}).
 *
 * <p><b>Trimmed deciders.</b> The deciding slot can be trimmed away (its stream trimmed past it)
 * while earlier copies of the entry, on other streams or in the log, are still uncommitted. Safety
 * then rests on one rule, kept by every stream trim ({@link RepairingReader#settleBelow}):
 * <em>before any replica of a stream trims below an address, every entry that stream's replica
 * decides below it is decided, and every committed one is committed at every copy.</em> Hence, when
 * the decider answers TRIMMED, the remaining copies tell the outcome: a copy that holds the entry
 * committed means COMMITTED; any other untrimmed copy (empty, uncommitted, a hole) means the entry
 * never committed, and it is aborted. If every copy is trimmed the outcome cannot be learned and
 * the decision fails with {@link TrimmedException}: nobody can read the entry any more, but a
 * writer must not be told it aborted. A trimmed decider therefore never turns data into a hole.
 *
 * <p><b>Layout changes.</b> A decision asks the decider of the layout held <em>now</em>, with a
 * fill that never aborts what the slot holds. Normally the decider's copy is committed (its write
 * is the commit), but once a layout change has taken a chain's last replica away, the new last
 * replica may hold an uncommitted copy while the removed one had committed it and readers had read
 * it. The new decider holds a copy whenever the old one held one (a chain is written in order), so
 * a copy found there is committed, never aborted; an empty slot there means the old decider held
 * nothing either, and the entry is aborted. An entry stamped with an epoch the replicas have sealed
 * is never written anywhere new ({@link SealedException}): it is decided by the copies that landed.
 *
 * <p><b>A decision belongs to one layout.</b> Every request of a decision is stamped with the epoch
 * of the layout its plan came from and never sent again at another ({@link
 * ReplicaClient#pinnedTo}); refused for a wrong epoch, the decision starts again at the decider of
 * the refreshed layout. Going on with the old plan at the nodes that remain would let an abort
 * begun before a removal replace the copy that a decision taken after it found at the new decider
 * and committed: with a chain of three, two removals suffice.
 *
 * <p><b>Aborts that no failure undoes.</b> Invariant: for every entry, taking its visits in plan
 * order ({@link ChainPlan}: the log chain, the other stream chains, the deciding chain last, each
 * head first), the visits that hold the entry form a prefix and the visits an abort replaced by
 * holes form a suffix; a visit part way through its replacement has its first slot (the one that
 * decides, should its replica become the last) replaced already. Writers keep it (a visit's slots
 * are written at once, head first, stopping at the first slot taken); an abort keeps it by
 * replacing copies <em>last first</em>: it leaves an <em>uncommitted</em> hole at the decider's
 * first slot (which no reader takes for a decision), replaces the slots of every earlier visit by
 * uncommitted holes in reverse visit order (within a visit, its first slot first), commits the
 * decider's hole, and only then commits those holes and replaces the decider's other slots (an
 * entry of several streams placed on one chain has several). No copy shows a committed hole before
 * the abort is decided: a reader that meets an uncommitted hole finishes the abort through the
 * decider instead of taking the hole for the outcome, so a removal that hands the decision to a
 * copy the abort has not reached yet (an emptied stream chain leaves the log to decide alone)
 * cannot turn a hole a reader returned into data. So whichever replicas a layout change takes away,
 * the new last replica of the deciding chain holds the entry in its first slot only if it holds it
 * in every slot and every visit before it does (the entry commits there, consistently in every
 * stream and the log), and holds a hole there only if every visit after it is a hole; and no slot
 * of the entry shows a committed hole before the decision is committed. (Replacing the decider's
 * other slots first, or a visit's last slot first, would let a removal commit the entry in one
 * stream while another stream's slot had been read as a committed hole.) Replacing head first
 * instead would allow a chain of three holding hole, entry, uncommitted hole: losing the decider
 * commits the entry at the middle replica, and losing that one too turns the committed entry back
 * into a hole. A reader that meets an uncommitted hole finishes the abort (see {@link
 * io.vcorfu.client.read.RepairingReader}); a copy that cannot be replaced (its replica is
 * unreachable) leaves the abort unfinished until a layout without that replica lets a later reader
 * finish it.
 *
 * <p><b>Retries.</b> A request that fails to reach its node ({@link TransportException}) is sent
 * again a few times, 20 ms apart. One that gets no answer in time is not: the node may be paused or
 * gone, and the caller's failover (refresh the layout, then decide) copes with that without waiting
 * out another request timeout per step.
 */
public final class ChainWriter {
  /** How a drive ended. */
  public enum Outcome {
    COMMITTED,
    ABORTED
  }

  /** How many times a request that could not reach its node is sent again. */
  static final int TRANSIENT_RETRIES = 5;

  private final ReplicaClient ops;
  private final Executor delayed = CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS);
  private final Decision decision;

  public ChainWriter(ReplicaClient ops) {
    this.ops = ops;
    this.decision = new Decision(ops);
  }

  public ChainPlan plan(LogEntryMsg entry) {
    return plan(entry, ops.rpc().layout().current());
  }

  static ChainPlan plan(LogEntryMsg entry, Layout layout) {
    List<StreamId> streams = new ArrayList<>(entry.getSlotsCount());
    for (StreamSlot slot : entry.getSlotsList()) {
      streams.add(StreamId.fromMsg(slot.getStream()));
    }
    return ChainPlan.of(layout, entry.getGlobalAddress(), streams, entry.getEpoch());
  }

  /** Writes {@code entry} through its chain, or finishes a write someone else started. */
  public CompletableFuture<Outcome> drive(LogEntryMsg entry) {
    ChainPlan plan = plan(entry);
    return writeFrom(entry, plan, 0, 0);
  }

  /**
   * Decides {@code entry} without writing it anywhere new: commit if the decider holds it, else
   * abort (see {@link Decision}).
   */
  public CompletableFuture<Outcome> decide(LogEntryMsg entry) {
    return decision.decide(entry);
  }

  private CompletableFuture<Outcome> writeFrom(
      LogEntryMsg entry, ChainPlan plan, int i, int attempt) {
    List<ChainPlan.Visit> visits = plan.visits();
    if (i == visits.size()) {
      // The last replica holds the entry: it is committed. The commit messages to the earlier
      // replicas only let them serve it without asking; they go out without holding up the writer.
      decision.commitEarlier(entry, plan, visits.size() - 1, ops);
      return CompletableFuture.completedFuture(Outcome.COMMITTED);
    }
    int end = runEnd(visits, i);
    if (end - i > 1) {
      return writeRun(entry, plan, i, end, attempt);
    }
    boolean last = i == visits.size() - 1;
    return write(entry, visits.get(i), last)
        .handle(
            (ok, error) ->
                error == null
                    ? writeFrom(entry, plan, i + 1, 0)
                    : afterFailure(entry, plan, i, attempt, error))
        .thenCompose(f -> f);
  }

  /** The end (exclusive) of the run of consecutive visits from {@code i} on one endpoint. */
  private static int runEnd(List<ChainPlan.Visit> visits, int i) {
    int end = i + 1;
    while (end < visits.size() && visits.get(end).endpoint().equals(visits.get(i).endpoint())) {
      end++;
    }
    return end;
  }

  /**
   * Writes visits {@code i..end-1}, all on one node, in one message: the node runs them in chain
   * order and stops at the first failure, which is then handled as if that visit had been written
   * alone. When the run ends the chain, the node also commits the run's earlier visits.
   */
  private CompletableFuture<Outcome> writeRun(
      LogEntryMsg entry, ChainPlan plan, int i, int end, int attempt) {
    List<ChainPlan.Visit> visits = plan.visits();
    boolean endsChain = end == visits.size();
    return ops.chainWrite(visits.get(i).endpoint(), entry, steps(entry, plan, i, end), endsChain)
        .handle(
            (response, error) -> {
              if (error != null) {
                return afterFailure(entry, plan, i, attempt, error);
              }
              int failed = i + response.getDone();
              if (!response.hasError()) {
                if (endsChain) {
                  decision.commitEarlier(entry, plan, i, ops);
                  return CompletableFuture.completedFuture(Outcome.COMMITTED);
                }
                return writeFrom(entry, plan, end, 0);
              }
              return afterFailure(
                  entry,
                  plan,
                  failed,
                  failed == i ? attempt : 0,
                  Errors.toException(response.getError()));
            })
        .thenCompose(f -> f);
  }

  /** The DATA entry a writer stamps on the address and slots of {@code token}. */
  public static LogEntryMsg dataEntry(Token token, ByteString payload, long epoch, long nonce) {
    return dataEntry(token, payload, epoch, nonce, null, 0);
  }

  /**
   * {@link #dataEntry(Token, ByteString, long, long)} naming its writer and the writer's number for
   * the append ({@code writer} null, {@code seq} 0: not numbered).
   */
  public static LogEntryMsg dataEntry(
      Token token, ByteString payload, long epoch, long nonce, StreamId writer, long seq) {
    LogEntryMsg.Builder b =
        LogEntryMsg.newBuilder()
            .setGlobalAddress(token.getGlobalAddress())
            .setKind(EntryKind.DATA)
            .addAllSlots(token.getSlotsList())
            .setPayload(payload)
            .setEpoch(epoch)
            .setNonce(nonce);
    if (writer != null && seq > 0) {
      b.setWriter(writer.toMsg()).setWriterSeq(seq);
    }
    return b.build();
  }

  /**
   * The chain-write steps for visits {@code from..to-1} of {@code plan}, in chain order; the
   * chain's last visit is written committed.
   */
  public static List<ChainStep> steps(LogEntryMsg entry, ChainPlan plan, int from, int to) {
    List<ChainPlan.Visit> visits = plan.visits();
    List<ChainStep> steps = new ArrayList<>(to - from);
    for (int k = from; k < to; k++) {
      ChainPlan.Visit v = visits.get(k);
      ChainStep.Builder step = ChainStep.newBuilder().setCommit(k == visits.size() - 1);
      if (v.role() == ChainPlan.Role.LOG) {
        step.setLog(true);
      } else {
        step.addAllSlots(slotsFor(entry, v));
      }
      steps.add(step.build());
    }
    return steps;
  }

  /**
   * Finishes an entry whose whole chain was written in one message by the node that issued its
   * token (see {@link ReplicaClient#sequencedWrite}): committed if every step succeeded, else the
   * failed step is handled exactly as if this driver had sent it.
   */
  public CompletableFuture<Outcome> afterWholeChain(
      LogEntryMsg entry, ChainWriteResponse response) {
    ChainPlan plan = plan(entry);
    if (!response.hasError()) {
      if (response.getDone() != plan.visits().size()) {
        return CompletableFuture.failedFuture(
            new IllegalStateException(
                "the node wrote "
                    + response.getDone()
                    + " of the "
                    + plan.visits().size()
                    + " visits of the entry at "
                    + entry.getGlobalAddress()
                    + " and reported no error"));
      }
      return CompletableFuture.completedFuture(Outcome.COMMITTED);
    }
    return afterFailure(
        entry, plan, response.getDone(), 0, Errors.toException(response.getError()));
  }

  /** What to do when writing from visit {@code i} failed with {@code error}. */
  private CompletableFuture<Outcome> afterFailure(
      LogEntryMsg entry, ChainPlan plan, int i, int attempt, Throwable error) {
    Throwable cause = EpochRpc.unwrap(error);
    // Sealed: the entry's token was issued before a sequencer restart; its missing copies can never
    // be written, so it is decided by the copies written before the fence.
    if (cause instanceof OverwrittenException
        || cause instanceof TrimmedException
        || cause instanceof SealedException) {
      // Asked of the decider of the layout held now: after a sealed epoch, the chain may have lost
      // the planned decider.
      return decide(entry);
    }
    if (isTransient(cause) && attempt < TRANSIENT_RETRIES) {
      return CompletableFuture.supplyAsync(() -> null, delayed)
          .thenCompose(v -> writeFrom(entry, plan, i, attempt + 1));
    }
    return CompletableFuture.<Outcome>failedFuture(cause);
  }

  /**
   * True for a failure worth sending the same request to the same node again at once: the node
   * could not be reached or its connection dropped. Not a timeout: see the class comment.
   */
  public static boolean isTransient(Throwable t) {
    return t instanceof TransportException;
  }

  private CompletableFuture<Void> write(LogEntryMsg entry, ChainPlan.Visit visit, boolean last) {
    if (visit.role() == ChainPlan.Role.LOG) {
      return ops.logWrite(visit.endpoint(), entry, last);
    }
    return ops.streamWrite(visit.endpoint(), entry, slotsFor(entry, visit), last);
  }

  public static List<StreamSlot> slotsFor(LogEntryMsg entry, ChainPlan.Visit visit) {
    Set<StreamId> hosted = new HashSet<>(visit.streams());
    List<StreamSlot> slots = new ArrayList<>();
    for (StreamSlot slot : entry.getSlotsList()) {
      if (hosted.contains(StreamId.fromMsg(slot.getStream()))) {
        slots.add(slot);
      }
    }
    return slots;
  }

  /** True if {@code result} holds exactly this entry (same global address and writer nonce). */
  public static boolean holds(ReadResult result, LogEntryMsg entry) {
    return result.getStatus() != ReadResult.Status.EMPTY
        && result.getStatus() != ReadResult.Status.TRIMMED
        && result.getEntry().getKind() == EntryKind.DATA
        && result.getEntry().getGlobalAddress() == entry.getGlobalAddress()
        && result.getEntry().getNonce() == entry.getNonce();
  }

  /**
   * Commits a committed entry at every copy before its decider and completes only when each has
   * acknowledged (retrying transient failures): after this, a trim of the decider's slot leaves the
   * outcome readable from any other copy (see the class comment).
   */
  public CompletableFuture<Void> commitEveryCopy(LogEntryMsg entry) {
    ChainPlan plan = plan(entry);
    List<ChainPlan.Visit> visits = plan.visits();
    List<CompletableFuture<Void>> commits = new ArrayList<>();
    for (int i = 0; i < visits.size() - 1; i++) {
      commits.add(decision.commitAt(entry, visits.get(i), 0, ops));
    }
    return CompletableFuture.allOf(commits.toArray(CompletableFuture[]::new));
  }

  /** True if {@code stream}'s slot of {@code entry} is on the entry's deciding replica. */
  public boolean decidedBy(LogEntryMsg entry, StreamId stream) {
    return plan(entry).last().streams().contains(stream);
  }
}
