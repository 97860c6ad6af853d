package io.vcorfu.client.chain;

import com.google.protobuf.ByteString;
import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.layout.ChainPlan;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * Drives one entry to a decision across its copies. Used by writers (the normal write path) and by
 * readers repairing an incomplete write: both run the same idempotent steps, so any number of
 * parties may drive one entry concurrently.
 *
 * <p><b>The rule.</b> <em>A copy is committed only once every copy holds the entry, and the last
 * replica of the plan ({@link ChainPlan#last()}, the decider) decides.</em> A writer sends every
 * copy at once, uncommitted: one message per node carrying all of that node's copies (the log's and
 * each stream's), so an append waits for one fsync on each node in parallel, not one per replica in
 * series. Once every copy holds the entry the write is decided COMMITTED, whoever decides it later
 * finds nothing missing; the writer returns at once, and the commits ride on its next message to
 * each node ({@link RidingCommits}). Until a copy's commit arrives, a reader of it sees the entry
 * uncommitted, waits briefly and, if needed, has it decided (see {@link
 * io.vcorfu.client.read.RepairingReader}).
 *
 * <p><b>Decisions</b> ({@link Decision}). A decision asks the decider with a fill that keeps what
 * the slot holds. The entry committed there: COMMITTED. Held uncommitted: the decision writes every
 * copy again (idempotent where held) and, once all hold it, commits the decider and then the
 * others; if a copy cannot hold it (its slot is a hole) the entry is aborted. Empty: the fill
 * leaves an uncommitted hole there and the entry is aborted. A copy is written only while the
 * entry's token epoch is not sealed ({@code EpochFence}, for writers and decisions alike): a
 * sequencer bootstrapped after a seal read the stream tails without the copies such a write would
 * add, so a late copy could land in a stream slot it had issued again, or behind a conditional
 * token it had granted. After a seal a decision therefore only looks: a copy missing then stays
 * missing, so the entry is aborted; that is safe because nobody was told it committed (a writer
 * returns, and a decision commits, only once every copy holds it).
 *
 * <p>Why the outcome is one: the decider's slot is filled (a hole, uncommitted) before an abort
 * touches any other copy, and a writer's or finisher's write of a slot that holds a hole fails. So
 * once any party saw every copy holding the entry no abort can start at that decider, and an abort
 * that started means some copy never held it, so nobody was told COMMITTED. The write-path model
 * ({@code client.model.WritePathModelTest}) explores every interleaving of writes, decisions,
 * aborts, seals, crashes and removals in small configurations under this rule ({@code PARALLEL}
 * with fixes A and B below) and finds no violation of the three safety properties.
 *
 * <p><b>Trimmed deciders.</b> The deciding slot can be trimmed away (its stream trimmed past it)
 * while earlier copies of the entry, on other streams or in the log, are still uncommitted. Safety
 * then rests on one rule, kept by every stream trim ({@link
 * io.vcorfu.client.read.RepairingReader#settleBelow}): <em>before any replica of a stream trims
 * below an address, every entry that stream's replica decides below it is decided, and every
 * committed one is committed at every copy.</em> Hence, when the decider answers TRIMMED, the
 * remaining copies tell the outcome: a copy that holds the entry committed means COMMITTED; any
 * other untrimmed copy (empty, uncommitted, a hole) means the entry never committed, and it is
 * aborted. If every copy is trimmed the outcome cannot be learned and the decision fails with
 * {@link TrimmedException}: nobody can read the entry any more, but a writer must not be told it
 * aborted. A trimmed decider therefore never turns data into a hole.
 *
 * <p><b>Layout changes.</b> A decision asks the decider of the layout held <em>now</em>. Once a
 * layout change has taken the plan's last replica away, the new last replica may hold an
 * uncommitted copy while the removed one had committed it; it is committed only after every copy of
 * the new plan is found holding the entry. If the entry was committed, every copy held it before,
 * so the new plan's copies hold it too and it commits again; an empty slot at the new decider means
 * some copy never held the entry, so nobody was told it committed, and it is aborted. A rebuilding
 * replica that joined after the entry's token was issued is not looked at: writes skip it and its
 * rebuild copies the entry from the others.
 *
 * <p><b>A decision belongs to one layout.</b> Every request of a decision is stamped with the epoch
 * of the layout its plan came from and never sent again at another ({@link
 * ReplicaClient#pinnedTo}); refused for a wrong epoch, the decision starts again at the decider of
 * the refreshed layout. Going on with the old plan at the nodes that remain would let an abort
 * begun before a removal replace the copy that a decision taken after it found at the new decider
 * and committed: with a chain of three, two removals suffice.
 *
 * <p><b>Aborts that no failure undoes.</b> An abort replaces copies <em>last first</em> in plan
 * order ({@link ChainPlan}: the log chain, the other stream chains, the deciding chain last, each
 * head first): it leaves an <em>uncommitted</em> hole at the decider's first slot (which no reader
 * takes for a decision), replaces the slots of every earlier visit by uncommitted holes in reverse
 * visit order (within a visit, its first slot first), commits the decider's hole, and only then
 * commits those holes and replaces the decider's other slots (an entry of several streams placed on
 * one chain has several). No copy shows a committed hole before the abort is decided: a reader that
 * meets an uncommitted hole finishes the abort through the decider instead of taking the hole for
 * the outcome, so a removal that hands the decision to a copy the abort has not reached yet (an
 * emptied stream chain leaves the log to decide alone) cannot turn a hole a reader returned into
 * data, and a new decider the abort has reached holds a hole, which makes the entry unfinishable
 * everywhere. (Committing each replaced copy at once, or replacing the decider's other slots first,
 * would let a removal commit the entry in one stream while another stream's slot had been read as a
 * committed hole.) A reader that meets an uncommitted hole finishes the abort (see {@link
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
  private final RidingCommits riding;

  public ChainWriter(ReplicaClient ops) {
    this(ops, RidingCommits.FLUSH_DELAY_MICROS);
  }

  /** A writer whose commits wait {@code flushDelayMicros} for a write to ride on (for tests). */
  ChainWriter(ReplicaClient ops, long flushDelayMicros) {
    this.ops = ops;
    this.decision = new Decision(ops);
    this.riding = new RidingCommits(ops, flushDelayMicros);
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

  /**
   * Writes every copy of {@code entry} at once, or finishes a write someone else started: one
   * message per node carrying all of that node's copies, uncommitted. Once every copy holds the
   * entry it is committed (whoever decides it finds it at the decider with nothing missing), and
   * the commits go out without holding up the caller; a copy found taken, trimmed or sealed hands
   * the entry to a decision.
   */
  public CompletableFuture<Outcome> drive(LogEntryMsg entry) {
    ChainPlan plan = plan(entry);
    List<CompletableFuture<Void>> writes = new ArrayList<>();
    for (Map.Entry<Endpoint, List<Integer>> node : byNode(plan).entrySet()) {
      writes.add(writeNode(entry, plan, node.getKey(), node.getValue(), 0));
    }
    return CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new))
        .handle(
            (v, error) -> {
              if (error == null) {
                riding.committed(entry, plan);
                return CompletableFuture.completedFuture(Outcome.COMMITTED);
              }
              return afterFailure(entry, error);
            })
        .thenCompose(f -> f);
  }

  /**
   * Decides {@code entry} without writing it anywhere new unless its decider holds it: commit once
   * every copy holds it, else abort (see {@link Decision}).
   */
  public CompletableFuture<Outcome> decide(LogEntryMsg entry) {
    return decision.decide(entry);
  }

  /**
   * The visits of {@code plan} grouped by node, each node's in plan order, the nodes in the order
   * of their first visit.
   */
  static Map<Endpoint, List<Integer>> byNode(ChainPlan plan) {
    Map<Endpoint, List<Integer>> out = new LinkedHashMap<>();
    List<ChainPlan.Visit> visits = plan.visits();
    for (int i = 0; i < visits.size(); i++) {
      out.computeIfAbsent(visits.get(i).endpoint(), e -> new ArrayList<>()).add(i);
    }
    return out;
  }

  /**
   * Writes visits {@code indices} of {@code plan}, all on {@code node}, uncommitted, in one
   * message; fails with the typed error of the first visit that could not be written.
   */
  private CompletableFuture<Void> writeNode(
      LogEntryMsg entry, ChainPlan plan, Endpoint node, List<Integer> indices, int attempt) {
    RidingCommits.Marks marks = riding.take(node);
    return ops.chainWrite(
            node, entry, steps(entry, plan, indices, false), false, marks.log(), marks.slots())
        .handle(
            (response, error) -> {
              if (error == null && !response.hasError()) {
                return CompletableFuture.<Void>completedFuture(null);
              }
              Throwable cause =
                  error != null ? EpochRpc.unwrap(error) : Errors.toException(response.getError());
              if (isTransient(cause) && attempt < TRANSIENT_RETRIES) {
                return CompletableFuture.supplyAsync(() -> null, delayed)
                    .thenCompose(x -> writeNode(entry, plan, node, indices, attempt + 1));
              }
              return CompletableFuture.<Void>failedFuture(cause);
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
   * chain's last visit is written committed (a node that writes the whole plan in one message).
   */
  public static List<ChainStep> steps(LogEntryMsg entry, ChainPlan plan, int from, int to) {
    List<Integer> indices = new ArrayList<>(to - from);
    for (int k = from; k < to; k++) {
      indices.add(k);
    }
    return steps(entry, plan, indices, true);
  }

  /**
   * The chain-write steps for visits {@code indices} of {@code plan}; with {@code commitLast}, the
   * plan's last visit is written committed, else every step is written uncommitted.
   */
  static List<ChainStep> steps(
      LogEntryMsg entry, ChainPlan plan, List<Integer> indices, boolean commitLast) {
    List<ChainPlan.Visit> visits = plan.visits();
    List<ChainStep> steps = new ArrayList<>(indices.size());
    for (int k : indices) {
      ChainPlan.Visit v = visits.get(k);
      ChainStep.Builder step =
          ChainStep.newBuilder().setCommit(commitLast && k == visits.size() - 1);
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
    return afterFailure(entry, Errors.toException(response.getError()));
  }

  /** What to do when writing a copy failed with {@code error}. */
  private CompletableFuture<Outcome> afterFailure(LogEntryMsg entry, Throwable error) {
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
    return CompletableFuture.<Outcome>failedFuture(cause);
  }

  /**
   * True for a failure worth sending the same request to the same node again at once: the node
   * could not be reached or its connection dropped. Not a timeout: see the class comment.
   */
  public static boolean isTransient(Throwable t) {
    return t instanceof TransportException;
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
   * Commits committed entries at every copy before their deciders and completes only when each has
   * acknowledged (retrying transient failures): after this, a trim of a decider's slot leaves the
   * outcome readable from any other copy (see the class comment). One request per node and role
   * carries every address (log copies) or slot (stream copies) that node holds of the entries, so a
   * trim settles a page of entries in a few messages, not one per entry.
   */
  public CompletableFuture<Void> commitEveryCopy(List<LogEntryMsg> entries) {
    Map<Endpoint, List<Long>> logCopies = new LinkedHashMap<>();
    Map<Endpoint, List<StreamSlot>> streamCopies = new LinkedHashMap<>();
    for (LogEntryMsg entry : entries) {
      List<ChainPlan.Visit> visits = plan(entry).visits();
      for (int i = 0; i < visits.size() - 1; i++) {
        ChainPlan.Visit v = visits.get(i);
        if (v.role() == ChainPlan.Role.LOG) {
          logCopies
              .computeIfAbsent(v.endpoint(), e -> new ArrayList<>())
              .add(entry.getGlobalAddress());
        } else {
          streamCopies
              .computeIfAbsent(v.endpoint(), e -> new ArrayList<>())
              .addAll(slotsFor(entry, v));
        }
      }
    }
    List<CompletableFuture<Void>> commits = new ArrayList<>();
    logCopies.forEach((node, addresses) -> commits.add(decision.commitLog(node, addresses, 0)));
    streamCopies.forEach((node, slots) -> commits.add(decision.commitStream(node, slots, 0)));
    return CompletableFuture.allOf(commits.toArray(CompletableFuture[]::new));
  }

  /** True if {@code stream}'s slot of {@code entry} is on the entry's deciding replica. */
  public boolean decidedBy(LogEntryMsg entry, StreamId stream) {
    return plan(entry).last().streams().contains(stream);
  }
}
