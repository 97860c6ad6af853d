package io.vcorfu.client;

import io.vcorfu.protocol.NotServingException;
import io.vcorfu.protocol.StreamId;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The client's view of the stream store: the write path (token, log chain, stream chains, commits)
 * and the readers, with bounded waiting and repair of incomplete writes.
 *
 * <p>Every method is asynchronous and thread-safe. A future completes only with committed outcomes:
 * an append's future completes once the entry is committed on its whole chain (durable by each
 * replica's policy); a read returns only committed entries and fills.
 *
 * <p>A log over a cluster ({@link ClusterStreamLog}) rides through layout changes: an operation
 * that fails because a node cannot be reached, does not answer, refuses its epoch or waits for its
 * new layout is retried against the refreshed layout until {@link
 * StreamLogOptions#failoverTimeout()} has passed since it began, and then fails with its last
 * error, saying so.
 */
public interface StreamLog extends AutoCloseable {

  /**
   * Appends {@code payload} atomically to every stream in {@code streams} under one global address.
   * Retries with a fresh token when a slot was taken (write-once) or junked by a reader, so the
   * addresses in the result may be later than the first token's.
   *
   * <p>When a write of the entry fails part-way (a replica does not answer), the append asks the
   * entry's deciding replica for its outcome and reports that: the entry's addresses if it
   * committed, a fresh attempt if it aborted. If the outcome cannot be learned it fails with {@link
   * AppendOutcomeUnknownException} (the entry may or may not be in the log): retrying then may
   * append it twice. A log over a cluster asks the decider of each newer layout until the failover
   * timeout before it says so, so a decider that died is replaced by the one its chain has without
   * it.
   */
  CompletableFuture<AppendResult> append(Collection<StreamId> streams, byte[] payload);

  /**
   * Like {@link #append}, but the sequencer issues the token only if nothing in {@code condition}'s
   * read set was written after its snapshot (conditional issuance); otherwise the future fails with
   * {@link io.vcorfu.protocol.TokenRefusedException} and nothing reaches the log. The keys of its
   * write set are recorded as written at the entry's address (a stream written without a key in the
   * write set counts as written whole). With an empty read set nothing is checked: that is a keyed
   * blind write, retried with fresh tokens like {@link #append}; with reads, an entry the chain
   * aborted fails with {@link AppendAbortedException} and is not retried.
   */
  CompletableFuture<AppendResult> appendConditional(
      Collection<StreamId> streams, byte[] payload, IssueCondition condition);

  /**
   * Committed entries of {@code stream} with stream addresses in [{@code from}, {@code to}]
   * inclusive, in stream order. Fills (holes) are returned with {@link StreamEntry#isHole()} true
   * so callers see every address decided. Waits up to the repair bound for in-flight writes, then
   * repairs them.
   */
  CompletableFuture<List<StreamEntry>> readStream(StreamId stream, long from, long to);

  /** The committed entry at a global address (a hole if it was filled). */
  CompletableFuture<GlobalEntry> readGlobal(long address);

  /** Committed entries at global addresses [{@code from}, {@code to}] inclusive. */
  CompletableFuture<List<GlobalEntry>> readGlobalRange(long from, long to);

  /**
   * Decides global address {@code address} now, without the readers' bounded wait ({@code
   * fillhole}): an address nothing was written to is filled with a hole on its whole log chain (a
   * writer still holding its token then finds the address taken and retries with a fresh one); an
   * incomplete write found there is finished; a committed entry stays. Returns what the address
   * holds once decided. Fails with {@link IllegalArgumentException} for an address beyond the log's
   * tail, which no token has named yet.
   */
  CompletableFuture<GlobalEntry> fill(long address);

  /**
   * The sequencer's tails ({@code check}): the global tail and, per requested stream, the last
   * issued stream address and the global address of that stream's last entry.
   */
  CompletableFuture<Tails> tails(Collection<StreamId> streams);

  /**
   * The tails of {@code streams} once some stream's tail is past its mark ({@code marks}, one per
   * stream, in order), or after about {@code wait} with the tails then (maybe unchanged); at once
   * when one is past already. A log over a cluster has the sequencer hold the request, so the
   * answer comes as the token that passes a mark is issued (what {@link StreamWatch} waits on).
   * This default asks {@link #tails} every 10 ms.
   */
  default CompletableFuture<Tails> tailsPast(List<StreamId> streams, long[] marks, Duration wait) {
    if (marks.length != streams.size()) {
      throw new IllegalArgumentException(
          "one mark per stream: " + streams.size() + " streams, " + marks.length + " marks");
    }
    long deadline = System.nanoTime() + wait.toNanos();
    return Waits.tailsPast(this, streams, marks, deadline);
  }

  /**
   * The epoch of the sequencer this log talks to, as far as the log knows now (0 for a log without
   * epochs). A transaction records it with its snapshot ({@link IssueCondition#snapshotEpoch()}); a
   * sequencer at a later epoch restarted since, and refuses the transaction.
   */
  default long epoch() {
    return 0;
  }

  /** Releases every entry of {@code stream} below stream address {@code before}. */
  CompletableFuture<Long> trimStream(StreamId stream, long before);

  /**
   * Pins {@code stream} where it is trimmed now, under pin {@code name}: until {@link #unpinStream}
   * of that name, no trim of the stream passes the position the future completes with, on any of
   * its replicas (a replica rebuilt later takes the pins of its chain), so every entry readable now
   * stays readable. Durable on every replica of the stream's chain before it completes; pinning
   * again under the same name moves the pin to where the stream is trimmed then. The default, for a
   * log without replicas, fails with {@link UnsupportedOperationException}.
   */
  default CompletableFuture<Long> pinStream(StreamId stream, StreamId name) {
    return CompletableFuture.failedFuture(
        new UnsupportedOperationException("this stream log keeps no pins"));
  }

  /** Drops pin {@code name} of {@code stream} on every replica (see {@link #pinStream}). */
  default CompletableFuture<Void> unpinStream(StreamId stream, StreamId name) {
    return CompletableFuture.failedFuture(
        new UnsupportedOperationException("this stream log keeps no pins"));
  }

  /**
   * Registers, for {@code leaseMs}, the oldest snapshot (a global address) this client has in use,
   * or none with -1, and answers the oldest any client holds: trims of streams never pass it. The
   * default, for a log without a sequencer, registers nothing and answers {@link
   * SnapshotFloor#NONE}.
   */
  default CompletableFuture<SnapshotFloor> registerSnapshots(long oldest, int leaseMs) {
    return CompletableFuture.completedFuture(SnapshotFloor.NONE);
  }

  /**
   * Runs one method of a remotely hosted object on the server holding the last replica of {@code
   * call}'s stream (see {@code ObjectBuilder.remote()}). The host only reads, so a call may be sent
   * again: a log over a cluster retries it through layout changes like a read. The default fails
   * with {@link NotServingException}: a log without servers hosts no remote views.
   */
  default CompletableFuture<ViewCallResult> viewCall(ViewCall call) {
    return CompletableFuture.failedFuture(new NotServingException("remote-view host"));
  }

  @Override
  void close();
}
