package io.vcorfu.client.read;

import io.vcorfu.client.chain.ChainWriter;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Decides one slot that a {@link RepairingReader} repairs: drives an uncommitted entry found there
 * to its decision ({@link ChainWriter}), or fills the slot through its chain head first.
 *
 * <p>A repaired entry's value is the decision of its drive, never a re-read of a copy the drive may
 * not have reached: a committed entry is returned as the entry driven; an aborted one only once the
 * slot read holds its hole (the reader abort-fills it itself, and a failure of that fill fails the
 * read).
 */
final class SlotDecider {
  private final ChainWriter driver;

  SlotDecider(ChainWriter driver) {
    this.driver = driver;
  }

  static CompletableFuture<ReadResult> done(ReadResult r) {
    return CompletableFuture.completedFuture(r);
  }

  /** Drives {@code entry}, found at {@code address} of {@code slots}, and settles the outcome. */
  CompletableFuture<ReadResult> driveAndSettle(Slots slots, long address, LogEntryMsg entry) {
    return driver.drive(entry).thenCompose(o -> settle(slots, address, entry, o));
  }

  /**
   * Fills an address through {@code chain} in order. Returns a committed hole when every replica
   * holds a hole, the decided result when a replica holds a committed entry, or, for an uncommitted
   * entry found on the way, what {@code settle} makes of the outcome of driving it.
   */
  CompletableFuture<ReadResult> fillChain(
      List<Endpoint> chain,
      int i,
      Function<Endpoint, CompletableFuture<ReadResult>> fill,
      BiFunction<LogEntryMsg, ChainWriter.Outcome, CompletableFuture<ReadResult>> settle) {
    return fill.apply(chain.get(i))
        .thenCompose(
            r -> {
              if (r.getStatus() == ReadResult.Status.TRIMMED) {
                return done(r);
              }
              if (r.getEntry().getKind() == EntryKind.DATA) {
                if (r.getStatus() == ReadResult.Status.COMMITTED) {
                  return done(r);
                }
                return driver.drive(r.getEntry()).thenCompose(o -> settle.apply(r.getEntry(), o));
              }
              if (i + 1 < chain.size()) {
                return fillChain(chain, i + 1, fill, settle);
              }
              return done(r);
            });
  }

  /**
   * The slot at {@code address}, which held {@code entry}, once the entry's drive decided {@code
   * outcome}: the entry itself if it committed; if it aborted, the hole that replaces it in the
   * slot as read, written here if the drive's own abort-fill did not reach it.
   */
  CompletableFuture<ReadResult> settle(
      Slots slots, long address, LogEntryMsg entry, ChainWriter.Outcome outcome) {
    if (outcome == ChainWriter.Outcome.COMMITTED) {
      return done(
          ReadResult.newBuilder()
              .setStatus(ReadResult.Status.COMMITTED)
              .setAddress(address)
              .setEntry(entry)
              .build());
    }
    return slots
        .abort(address, entry.getNonce())
        .thenApply(r -> r.getAddress() == address ? r : r.toBuilder().setAddress(address).build());
  }
}
