package io.vcorfu.logunit.internal;

import static io.vcorfu.logunit.internal.EntryRecords.key;
import static io.vcorfu.logunit.internal.EntryRecords.nonceHash;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.ReadResult;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Hole fill, the replicas' half of repair: a reader that finds a slot empty (or held by an
 * uncommitted entry of a writer that stopped) junks it with a hole, so every reader decides the
 * same way. Shared by the log replica (slots are global addresses) and the stream replica (stream
 * addresses).
 */
public final class HoleFill {
  private HoleFill() {}

  /**
   * Repairs one slot of {@code ns}: an empty slot gets {@code hole}; an uncommitted entry is
   * replaced by {@code hole} when {@code abort} is set and {@code abortNonce} names it (or is 0);
   * the hole either writes is committed iff {@code commit} (an abort leaves the copies it replaces
   * uncommitted until its decider's hole is committed); a hole is committed when {@code commit} is
   * set; anything else is left as it is. Completes with what the slot holds afterwards, once that
   * is durable. With {@code uncommittedOnly} (a rebuilding replica) no hole it writes or finds is
   * committed.
   */
  public static CompletableFuture<ReadResult> fill(
      StorageEngine engine,
      StreamId ns,
      long address,
      long holeGlobal,
      byte[] hole,
      boolean abort,
      long abortNonce,
      boolean commit,
      boolean uncommittedOnly) {
    PlannedRead plan;
    CompletableFuture<Void> barrier;
    synchronized (engine) {
      if (address >= engine.trimMark(ns)) {
        IndexedRecord held = engine.lookup(ns, address);
        if (held == null
            || (!held.hole() && !held.committed() && abort && abortMatches(held, abortNonce))) {
          boolean committed = !uncommittedOnly && commit;
          engine.put(
              key(ns, address),
              holeGlobal,
              0,
              (byte) (StorageEngine.HOLE | (committed ? StorageEngine.COMMITTED : 0)),
              hole,
              null);
        } else if (held.hole() && !held.committed() && commit && !uncommittedOnly) {
          engine.commit(key(ns, address));
        }
      }
      plan = ReadPlanning.plan(engine, ns, address);
      barrier = engine.barrier();
    }
    return ReadPlanning.answer(engine, barrier, List.of(plan)).thenApply(r -> r.get(0));
  }

  /** True if an abort-fill naming {@code abortNonce} (0 = any entry) may abort {@code held}. */
  public static boolean abortMatches(IndexedRecord held, long abortNonce) {
    return abortNonce == 0 || held.hash() == nonceHash(abortNonce);
  }
}
