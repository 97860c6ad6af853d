package io.vcorfu.server.cluster;

import io.vcorfu.client.chain.ChainWriter;
import io.vcorfu.client.read.RepairingReader;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.ReadResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Decides the global addresses the log's prefix trim found undecided ({@link LogPrefixTrim}): an
 * address still empty or uncommitted seconds after its token was issued belongs to a write that
 * will not finish by itself (its writer died, or a commit was lost in a crash), so it is decided as
 * any reader decides it, through its log chain with repair ({@link RepairingReader#fillGlobal}),
 * and the decision is then made what every copy of the chain holds: the decided entry written
 * committed, or the decided hole filled committed (an uncommitted copy of an entry the decision
 * aborted is replaced by it).
 *
 * <p>Invariant: a copy is only ever made to hold what its chain decided, so every reader reads the
 * same value there before and after; the trim then passes the address (and keeps the hole).
 */
public final class LogDecisions {
  private final ReplicaClient ops;
  private final RepairingReader reader;

  /** Decides through {@code ops}, driving the entries found uncommitted with {@code writer}. */
  public LogDecisions(ReplicaClient ops, ChainWriter writer) {
    this.ops = ops;
    this.reader = new RepairingReader(ops, writer, Duration.ZERO);
  }

  /** Decides {@code address}; completes once every copy of its chain holds the decision. */
  public CompletableFuture<Void> decide(long address) {
    return reader
        .fillGlobal(address)
        .thenCompose(
            r -> {
              if (r.getStatus() != ReadResult.Status.COMMITTED) {
                return CompletableFuture.completedFuture(null); // trimmed meanwhile
              }
              List<CompletableFuture<?>> copies = new ArrayList<>();
              for (Endpoint e : ops.rpc().layout().current().logChain(address)) {
                copies.add(
                    r.getEntry().getKind() == EntryKind.DATA
                        ? ops.logWrite(e, r.getEntry(), true)
                        : ops.logFill(e, address, true, 0));
              }
              return CompletableFuture.allOf(copies.toArray(CompletableFuture[]::new));
            });
  }
}
