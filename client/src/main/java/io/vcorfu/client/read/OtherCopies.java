package io.vcorfu.client.read;

import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.protocol.DamagedEntryException;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.ReadResult;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Reads served by another replica of a chain when the one asked first refused because its copy of
 * an entry no longer matches its stored digest ({@link DamagedEntryException}): the chain's other
 * members are asked in turn, from the last back, and the first answer wins; when every one fails,
 * the read fails with the damage.
 *
 * <p>Invariant: an answer from another member decides nothing the last replica would not. A copy it
 * holds committed is a decision (a copy is committed only once every copy holds the entry); one it
 * holds uncommitted, or not at all, comes back as such and the reader repairs it as any undecided
 * slot, through the chain's decider.
 */
final class OtherCopies {
  private OtherCopies() {}

  /**
   * {@code read} of {@code first}, the last replica of {@code chain}; on damage there, {@code read}
   * of the chain's other members in turn.
   */
  static CompletableFuture<List<ReadResult>> read(
      List<Endpoint> chain,
      Endpoint first,
      Function<Endpoint, CompletableFuture<List<ReadResult>>> read) {
    return read.apply(first)
        .exceptionallyCompose(
            e -> {
              Throwable t = EpochRpc.unwrap(e);
              if (!(t instanceof DamagedEntryException)) {
                return CompletableFuture.failedFuture(t);
              }
              List<Endpoint> others = new ArrayList<>(chain);
              others.remove(first);
              Collections.reverse(others);
              return next(others, 0, t, read);
            });
  }

  private static CompletableFuture<List<ReadResult>> next(
      List<Endpoint> others,
      int i,
      Throwable damaged,
      Function<Endpoint, CompletableFuture<List<ReadResult>>> read) {
    if (i >= others.size()) {
      return CompletableFuture.failedFuture(damaged);
    }
    return read.apply(others.get(i)).exceptionallyCompose(e -> next(others, i + 1, damaged, read));
  }
}
