package io.vcorfu.client.read;

import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.protocol.DataLossException;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.UnknownStreamException;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The slots of one stream, read from and repaired through the stream's chain, for {@link
 * RepairingReader}.
 *
 * <p>A stream slot found empty (or holding an uncommitted hole) at its chain's last replica is not
 * simply filled: its token may have written copies elsewhere first (the log, other streams' chains)
 * and died before reaching this chain, and a hole decided here would then stand beside an entry
 * those copies still hold; were the whole chain lost, the log would decide that entry committed. So
 * the log decides first: the slot is read from the log ({@link DegradedReader}, from the stream's
 * last global address back along backpointers), which decides every log address that could hold the
 * slot's token; a committed entry found there is driven to its chains, and only a hole there lets
 * the slot be filled with a hole here, head first. A slot above the stream's tail has no token and
 * is filled at once. When the walk down the log meets the log's trim mark first, the slot is filled
 * here too: the log trims only addresses it has decided and keeps the holes it passes ({@code
 * LogPrefixTrim}), so below the mark the slot's token either holds a hole the walk would have read,
 * or an entry decided committed, whose copies all hold it (and this slot would not be empty), or
 * was never the slot's. Without that the stream could not be read past a token taken and never
 * written once the log was trimmed past it. Invariant: a committed stream hole has no copy of an
 * entry anywhere but as a hole.
 */
final class StreamSlots implements Slots {
  private final ReplicaClient ops;
  private final SlotDecider decider;
  private final DegradedReader fromLog;
  private final StreamId stream;

  StreamSlots(ReplicaClient ops, SlotDecider decider, DegradedReader fromLog, StreamId stream) {
    this.ops = ops;
    this.decider = decider;
    this.fromLog = fromLog;
    this.stream = stream;
  }

  @Override
  public CompletableFuture<List<ReadResult>> read(long from, long to) {
    List<Endpoint> chain = ops.rpc().layout().current().streamChain(stream);
    if (chain.isEmpty()) {
      return CompletableFuture.failedFuture(RepairingReader.noReplica(stream));
    }
    return OtherCopies.read(
            chain, chain.get(chain.size() - 1), r -> ops.streamRead(r, stream, from, to))
        .exceptionallyCompose(
            e -> {
              if (EpochRpc.unwrap(e) instanceof UnknownStreamException) {
                return CompletableFuture.completedFuture(empties(from, to));
              }
              return CompletableFuture.failedFuture(EpochRpc.unwrap(e));
            });
  }

  @Override
  public CompletableFuture<ReadResult> repair(long address) {
    // The log decides first (see the class comment): the slot's token may have written copies
    // outside this chain, which must not outlive a hole decided here.
    return ops.tail(List.of(stream))
        .thenCompose(
            t ->
                address > t.getStreamTails(0)
                    ? CompletableFuture.completedFuture(List.<ReadResult>of())
                    : laterEntry(address, t.getStreamTails(0))
                        .thenCompose(
                            later ->
                                fromLog.readStream(
                                    stream,
                                    address,
                                    address,
                                    later >= 0 ? later : t.getStreamLastGlobal(0))))
        .exceptionallyCompose(
            e -> {
              // The slot's token may be at an address its log chain lost (rebuilt from the
              // stream replicas, which held nothing for it): no copy of it reached this
              // stream's chain, so it was never acknowledged and the chain may decide a hole.
              // Or the walk down the log met the log's trim mark (see the class comment).
              // Without a chain the loss is the stream's too.
              Throwable cause = EpochRpc.unwrap(e);
              boolean logTrimmed = cause instanceof TrimmedException t && t.stream() == null;
              return (cause instanceof DataLossException || logTrimmed)
                      && !ops.rpc().layout().current().streamChain(stream).isEmpty()
                  ? CompletableFuture.completedFuture(List.<ReadResult>of())
                  : CompletableFuture.failedFuture(cause);
            })
        .thenCompose(
            logView -> {
              if (!logView.isEmpty() && logView.get(0).getEntry().getKind() == EntryKind.DATA) {
                LogEntryMsg e = logView.get(0).getEntry();
                return decider.driveAndSettle(this, address, e);
              }
              List<Endpoint> chain = ops.rpc().layout().current().streamChain(stream);
              if (chain.isEmpty()) {
                // Decided by the log alone: the slot is a hole.
                return SlotDecider.done(RepairingReader.streamHole(address));
              }
              return decider.fillChain(
                  chain,
                  0,
                  r -> ops.streamFill(r, stream, address, false, 0),
                  (entry, outcome) -> decider.settle(this, address, entry, outcome));
            });
  }

  /**
   * The global address of the first committed entry of the stream after {@code address} (up to a
   * page on, and to {@code tail}) that the chain's last replica holds, or -1: where a walk back to
   * {@code address} along the backpointers can start instead of the stream's tail, so that deciding
   * an old slot costs the gap to the next entry, not the stream's length since.
   */
  private CompletableFuture<Long> laterEntry(long address, long tail) {
    List<Endpoint> chain = ops.rpc().layout().current().streamChain(stream);
    if (chain.isEmpty() || address >= tail) {
      return CompletableFuture.completedFuture(-1L);
    }
    return ops.streamRead(
            chain.get(chain.size() - 1),
            stream,
            address + 1,
            Math.min(tail, address + RepairingReader.PAGE))
        .handle(
            (results, error) -> {
              if (error != null) {
                return -1L;
              }
              for (ReadResult r : results) {
                if (r.getStatus() == ReadResult.Status.COMMITTED
                    && r.getEntry().getKind() == EntryKind.DATA) {
                  return r.getEntry().getGlobalAddress();
                }
              }
              return -1L;
            });
  }

  @Override
  public CompletableFuture<ReadResult> abort(long address, long nonce) {
    List<Endpoint> chain = ops.rpc().layout().current().streamChain(stream);
    if (chain.isEmpty()) {
      return SlotDecider.done(RepairingReader.streamHole(address));
    }
    return ops.streamFill(chain.get(chain.size() - 1), stream, address, true, nonce);
  }

  private static List<ReadResult> empties(long from, long to) {
    List<ReadResult> out = new ArrayList<>();
    for (long a = from; a <= to; a++) {
      out.add(ReadResult.newBuilder().setStatus(ReadResult.Status.EMPTY).setAddress(a).build());
    }
    return out;
  }
}
