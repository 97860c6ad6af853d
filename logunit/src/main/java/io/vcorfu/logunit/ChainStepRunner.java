package io.vcorfu.logunit;

import io.vcorfu.logunit.internal.EntryRecords;
import io.vcorfu.logunit.internal.IndexedRecord;
import io.vcorfu.logunit.internal.StorageEngine;
import io.vcorfu.protocol.proto.LogEntryMsg;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Runs the steps of one chain write on the node's replicas, for {@link ReplicaStore#chainWrite}:
 * under the engine's monitor (the store calls it inside {@link StorageEngine#group}), step by step
 * through each replica's Java API, or a log visit and a stream visit as one record.
 *
 * <p>It keeps the store's invariant that an entry's payload is stored once on a node that holds
 * both its log copy and its stream copies: both visits in one call store one record indexed under
 * the log address and every stream slot.
 */
final class ChainStepRunner {
  private final StorageEngine engine;
  private final LogReplica log;
  private final StreamReplica streams;

  ChainStepRunner(StorageEngine engine, LogReplica log, StreamReplica streams) {
    this.engine = engine;
    this.log = log;
    this.streams = streams;
  }

  /** What running a chain write's steps did: the futures of what was written, and the failure. */
  record Steps(List<CompletableFuture<?>> written, int attempted, Throwable failure) {}

  /**
   * Runs the steps in order, stopping at the first that fails; with {@code commitEarlier}, once
   * every step succeeded, commits the steps before the last.
   */
  Steps run(LogEntryMsg entry, List<ReplicaStore.Step> steps, boolean commitEarlier) {
    Steps both = bothInOneRecord(entry, steps, commitEarlier);
    if (both != null) {
      return both;
    }
    List<CompletableFuture<?>> written = new ArrayList<>();
    Throwable failure = null;
    for (ReplicaStore.Step step : steps) {
      CompletableFuture<?> f =
          step.log()
              ? log.write(entry, step.commit())
              : streams.write(entry, step.slots(), step.commit());
      if (f.isCompletedExceptionally()) {
        failure = causeOf(f);
        break;
      }
      written.add(f);
    }
    int attempted = written.size();
    if (failure == null && commitEarlier) {
      for (ReplicaStore.Step step : steps.subList(0, attempted - 1)) {
        written.add(
            step.log()
                ? log.commit(List.of(entry.getGlobalAddress()))
                : streams.commit(step.slots()));
      }
    }
    return new Steps(written, attempted, failure);
  }

  /**
   * Under the engine's monitor: a log visit then a stream visit that end with the same commit state
   * stored as one record under every key, when both would succeed; null (nothing done) when the
   * steps are of another shape or one of them fails, for the step by step path to run and answer.
   */
  private Steps bothInOneRecord(
      LogEntryMsg entry, List<ReplicaStore.Step> steps, boolean commitEarlier) {
    if (steps.size() != 2 || !steps.get(0).log() || steps.get(1).log()) {
      return null;
    }
    boolean committed = steps.get(1).commit();
    if ((steps.get(0).commit() || commitEarlier) != committed) {
      return null;
    }
    IndexedRecord logHeld;
    StreamReplica.Claims claims;
    byte[] bytes;
    int hash;
    EntryRecords.Prepared prepared;
    try {
      LogReplica.checkWrite(entry);
      List<StreamReplica.Slot> slots = streams.writable(entry, steps.get(1).slots());
      if (log.skips(entry) || slots.isEmpty()) {
        return null;
      }
      prepared = EntryRecords.prepare(engine, entry);
      bytes = prepared.bytes();
      hash = prepared.hash();
      logHeld = log.claim(entry.getGlobalAddress(), hash);
      claims = streams.claim(slots, entry.getGlobalAddress(), hash);
    } catch (RuntimeException e) {
      return null;
    }
    long global = entry.getGlobalAddress();
    List<long[]> keys = new ArrayList<>(claims.fresh().size() + 1);
    List<long[]> commits = new ArrayList<>(claims.heldUncommitted());
    if (logHeld == null) {
      keys.add(EntryRecords.key(LogReplica.LOG, global));
    } else if (!logHeld.committed()) {
      commits.add(EntryRecords.key(LogReplica.LOG, global));
    }
    keys.addAll(claims.fresh());
    if (!keys.isEmpty()) {
      engine.put(
          EntryRecords.flatten(keys),
          global,
          hash,
          committed ? StorageEngine.COMMITTED : 0,
          bytes,
          prepared.digest(),
          prepared.crc());
      if (logHeld == null) {
        log.stored(entry, bytes);
      }
    }
    if (committed && !commits.isEmpty()) {
      engine.commit(EntryRecords.flatten(commits));
    }
    return new Steps(List.of(engine.barrier()), 2, null);
  }

  private static Throwable causeOf(CompletableFuture<?> failed) {
    try {
      failed.join();
      throw new IllegalStateException("the future did not fail");
    } catch (CompletionException e) {
      return e.getCause() == null ? e : e.getCause();
    }
  }
}
