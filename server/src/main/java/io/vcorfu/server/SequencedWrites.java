package io.vcorfu.server;

import io.vcorfu.client.chain.ChainWriter;
import io.vcorfu.layout.ChainPlan;
import io.vcorfu.layout.EpochFence;
import io.vcorfu.layout.Layout;
import io.vcorfu.logunit.ReplicaStore;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.SealedException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.SequencedWriteRequest;
import io.vcorfu.protocol.proto.SequencedWriteResponse;
import io.vcorfu.protocol.proto.Token;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.protocol.proto.TokenResponse;
import io.vcorfu.sequencer.SequencerService;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Appends in one round trip to the sequencer node, token and data in one request. Two layouts take
 * them:
 *
 * <ul>
 *   <li>the node is the sequencer and the only replica of every chain (a one-node layout): it
 *       issues the token, then writes the entry to its log replica and stream replica exactly as a
 *       client's chain write would (same plan, same steps, the last visit committed and the earlier
 *       ones committed with it), through the replica store's Java API, and answers once that is
 *       durable;
 *   <li>the node serves in every log chain and other nodes hold copies ({@link
 *       Layout#sequencerDrivesAppends}): it issues the token and drives the entry to every copy
 *       with the writer of {@link AppendDrivers}, exactly as a client's writer would, and answers
 *       with how the drive ended. The appends of every client then share one writer per node pair:
 *       the copies of concurrent appends go out on the same connections and their commits ride on
 *       the next writes, instead of each client sending a token request and a write per node.
 * </ul>
 *
 * <p>Epoch fence: the write of the entry is admitted through the node's {@link EpochFence} at the
 * token's epoch, like every other write, so a write that waited for the sequencer while a newer
 * epoch was sealed stores nothing (it fails with {@code Sealed}, which its writer retries).
 *
 * <p>At most once: a numbered request (its client id and {@code writer_seq}) is claimed in the
 * sequencer role's {@link WriterTable} before its token is issued. A request for an append already
 * taken is answered with that attempt's outcome (waiting for it if it is still being written); a
 * retry the table does not know is searched for in the log below {@link WriterTable#searchBelow}
 * (from the writer's {@code not_below} on), and answered with the stored entry when found; the
 * found attempt keeps its address in the table, so a retry saying that attempt aborted ({@code
 * aborted_address}) is never answered with it again and takes a fresh token. Only then is a token
 * issued. So an append retried after an unknown outcome (a timeout, a lost connection, a restart of
 * this node) is stored at most once, and every retry learns the original address.
 *
 * <p>The search is complete because of where the node sits. One node: every copy is its own.
 * Several: an entry commits only once every copy holds it, this node's log copy among them, and
 * after a seal a copy is never added to an entry of a sealed epoch (see {@link ChainWriter}); so
 * once this node serves at the current epoch, its log replica holds every entry of an earlier epoch
 * that can still commit, and an address it holds empty can never commit (the write-path model,
 * {@code client.model.WritePathModelTest}, checks the first half, its property P4, in every state
 * it explores). The search is made only over addresses whose log chain this node served in ({@link
 * Layout#sequencerHoldsLog}); otherwise the retry is refused with BadRequest (its outcome is
 * unknown) and nothing is issued or stored.
 *
 * <p>Failure handling stays with the client: the answer carries the token and the chain-write
 * result (one node) or how the drive ended (several), and a failed step (a reader filled the slot
 * first, a trimmed address, an oversize entry) or an undecided drive is handled by the client's
 * {@link ChainWriter} as if it had sent the write itself. If the node dies between issuing the
 * token and writing, the address is a hole that readers fill after their bounded wait, as for any
 * writer that dies after its token; if it dies part-way through a drive, the entry is decided by
 * whoever reads it or by the writer's retry.
 */
final class SequencedWrites {
  /** At most this many log addresses are read per step of a search for a retried append. */
  private static final int SEARCH_PAGE = 1024;

  private SequencedWrites() {}

  static CompletableFuture<SequencedWriteResponse> write(
      Layout layout,
      SequencerService sequencer,
      ReplicaStore store,
      EpochFence fence,
      AppendDrivers drivers,
      WriterTable writers,
      StreamId client,
      SequencedWriteRequest request) {
    if (!layout.sequencerHostsEveryChain()
        && (drivers == null || !layout.sequencerDrivesAppends())) {
      throw new BadRequestException(
          "This node's layout (epoch "
              + layout.epoch()
              + ") places chains on other nodes, and this node does not serve in every log chain"
              + " or does not drive copies to other nodes, so it cannot take an append whole: ask"
              + " the sequencer for a token and write the chain instead.");
    }
    TokenRequest token = request.getToken();
    if (token.getCount() > 1) {
      throw new BadRequestException(
          "A sequenced write appends one entry, but its token request asks for "
              + token.getCount()
              + " tokens.");
    }
    if (client == null || request.getWriterSeq() == 0 || writers == null) {
      return issueAndWrite(layout, sequencer, store, fence, drivers, null, null, request, client);
    }
    if (request.getSettledBelow() > 0) {
      writers.settle(client, request.getSettledBelow());
    }
    WriterTable.Key key = new WriterTable.Key(client, request.getWriterSeq());
    long aborted = request.getHasAborted() ? request.getAbortedAddress() : -1;
    WriterTable.Attempt taken = writers.claim(key, aborted);
    if (taken != null) {
      return taken.answer();
    }
    WriterTable.Attempt mine = writers.claimed(key);
    long searchBelow = writers.searchBelow();
    CompletableFuture<SequencedWriteResponse> found =
        request.getRetry() && request.getNotBelow() < searchBelow
            ? search(layout, store, key, request.getNotBelow(), searchBelow, aborted)
            : CompletableFuture.completedFuture(null);
    found
        .thenCompose(
            stored -> {
              if (stored == null) {
                return issueAndWrite(
                    layout, sequencer, store, fence, drivers, writers, mine, request, client);
              }
              // The attempt is the one found: a retry saying it aborted (its writer asked the
              // decider) must find it at its address, so that it gets a fresh token instead of
              // this answer again.
              mine.issued(stored.getStored().getGlobalAddress());
              return CompletableFuture.completedFuture(stored);
            })
        .whenComplete(
            (answer, error) -> {
              if (error == null) {
                mine.answer().complete(answer);
                return;
              }
              if (mine.address() < 0 || unwrap(error) instanceof SealedException) {
                // Nothing of it was written: a retry may take a fresh token.
                writers.release(key, mine);
              }
              mine.answer().completeExceptionally(error);
            });
    return mine.answer();
  }

  private static CompletableFuture<SequencedWriteResponse> issueAndWrite(
      Layout layout,
      SequencerService sequencer,
      ReplicaStore store,
      EpochFence fence,
      AppendDrivers drivers,
      WriterTable writers,
      WriterTable.Attempt attempt,
      SequencedWriteRequest request,
      StreamId client) {
    List<StreamId> streams = new ArrayList<>(request.getToken().getStreamsCount());
    request.getToken().getStreamsList().forEach(s -> streams.add(StreamId.fromMsg(s)));
    // Watchers of the streams hear of the entry once it is written, not as its token is issued.
    CompletableFuture<Object> written = new CompletableFuture<>();
    CompletableFuture<SequencedWriteResponse> answer =
        sequencer
            .token(request.getToken().toBuilder().setCount(1).build(), written, client)
            .thenCompose(
                issued -> {
                  Token t = issued.getTokens(0);
                  if (writers != null) {
                    writers.issued(attempt, t.getGlobalAddress());
                  }
                  LogEntryMsg entry =
                      ChainWriter.dataEntry(
                          t,
                          request.getPayload(),
                          issued.getEpoch(),
                          request.getNonce(),
                          writers == null ? null : client,
                          writers == null ? 0 : request.getWriterSeq());
                  if (!layout.sequencerHostsEveryChain()) {
                    return drive(drivers.writerFor(layout), entry, issued, request.getNonce());
                  }
                  ChainPlan plan = layout.chainPlan(t.getGlobalAddress(), streams);
                  for (ChainPlan.Visit v : plan.visits()) {
                    if (!v.endpoint().equals(layout.sequencer())) {
                      throw new IllegalStateException(
                          "global address "
                              + t.getGlobalAddress()
                              + " is placed on "
                              + v.endpoint()
                              + ", not on this node");
                    }
                  }
                  List<ReplicaStore.Step> steps = new ArrayList<>(plan.visits().size());
                  for (int k = 0; k < plan.visits().size(); k++) {
                    steps.add(
                        ReplicaStore.Step.of(
                            entry, plan.visits().get(k), k == plan.visits().size() - 1));
                  }
                  return fence
                      .admit(entry.getEpoch(), () -> store.chainWrite(entry, steps, true))
                      .thenApply(
                          w ->
                              SequencedWriteResponse.newBuilder()
                                  .setToken(issued)
                                  .setWrite(w.toResponse())
                                  .setNonce(request.getNonce())
                                  .build());
                });
    answer.whenComplete((r, e) -> written.complete(null));
    return answer;
  }

  /**
   * Drives {@code entry} to every copy with {@code writer} and answers how that ended; an error of
   * the drive (before any decision) is answered UNDECIDED with the token, so the writer asks the
   * entry's decider as after a failure of its own write.
   */
  private static CompletableFuture<SequencedWriteResponse> drive(
      ChainWriter writer, LogEntryMsg entry, TokenResponse issued, long nonce) {
    return writer
        .drive(entry)
        .handle(
            (outcome, error) ->
                SequencedWriteResponse.newBuilder()
                    .setToken(issued)
                    .setNonce(nonce)
                    .setDriven(
                        error != null
                            ? SequencedWriteResponse.Driven.DRIVEN_UNDECIDED
                            : outcome == ChainWriter.Outcome.COMMITTED
                                ? SequencedWriteResponse.Driven.DRIVEN_COMMITTED
                                : SequencedWriteResponse.Driven.DRIVEN_ABORTED)
                    .build());
  }

  private static Throwable unwrap(Throwable error) {
    Throwable e = error;
    while (e instanceof java.util.concurrent.CompletionException && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  /**
   * The answer to a retry of {@code key} whose attempt this node's log holds at an address in
   * {@code [from, below)} other than {@code aborted}: the stored entry, committed or not; null when
   * it holds none.
   */
  private static CompletableFuture<SequencedWriteResponse> search(
      Layout layout, ReplicaStore store, WriterTable.Key key, long from, long below, long aborted) {
    long tail = store.maxGlobal();
    long end = Math.min(below - 1, tail);
    if (!layout.sequencerHostsEveryChain() && !layout.sequencerHoldsLog(from, end)) {
      return CompletableFuture.failedFuture(
          new BadRequestException(
              "A retry of append "
                  + key.seq()
                  + " may follow an attempt stored at an address in ["
                  + from
                  + ", "
                  + end
                  + "] whose log chain this node did not serve in, so it cannot tell whether that"
                  + " attempt was stored; the outcome of the append is unknown: read the log to"
                  + " find it before appending it again."));
    }
    return searchFrom(store, key, Math.max(0, from), end, aborted);
  }

  private static CompletableFuture<SequencedWriteResponse> searchFrom(
      ReplicaStore store, WriterTable.Key key, long from, long to, long aborted) {
    if (from > to) {
      return CompletableFuture.completedFuture(null);
    }
    long last = Math.min(to, from + SEARCH_PAGE - 1);
    return store
        .logReplica()
        .read(from, last)
        .thenCompose(
            results -> {
              for (ReadResult r : results) {
                LogEntryMsg e = r.getEntry();
                if ((r.getStatus() == ReadResult.Status.COMMITTED
                        || r.getStatus() == ReadResult.Status.UNCOMMITTED)
                    && e.getKind() == EntryKind.DATA
                    && e.getWriterSeq() == key.seq()
                    && e.hasWriter()
                    && StreamId.fromMsg(e.getWriter()).equals(key.writer())
                    && e.getGlobalAddress() != aborted) {
                  return CompletableFuture.completedFuture(
                      SequencedWriteResponse.newBuilder()
                          .setStored(e)
                          .setStoredCommitted(r.getStatus() == ReadResult.Status.COMMITTED)
                          .setNonce(e.getNonce())
                          .build());
                }
              }
              return searchFrom(store, key, last + 1, to, aborted);
            });
  }
}
