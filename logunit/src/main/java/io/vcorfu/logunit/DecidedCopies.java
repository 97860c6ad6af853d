package io.vcorfu.logunit;

import io.vcorfu.logunit.internal.EntryRecords;
import io.vcorfu.logunit.internal.IndexedRecord;
import io.vcorfu.logunit.internal.StorageEngine;
import io.vcorfu.protocol.ChainDigests;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stores decided slots a rebuild copied from another replica (see {@link
 * ReplicaStore#install(StreamId, List, List)}).
 *
 * <p>Invariant: an entry copied with its source's digest is stored only when the digest of the
 * bytes received equals it, so a replica never takes in a copy the source's own record of it
 * contradicts; the digest stored is the one computed here from the bytes received.
 */
final class DecidedCopies {
  private static final Logger LOG = LoggerFactory.getLogger(DecidedCopies.class);

  /** Marks a copied result refused by its digest. */
  private static final EntryRecords.Prepared REFUSED =
      new EntryRecords.Prepared(null, new byte[0], 0, null, 0);

  private DecidedCopies() {}

  static CompletableFuture<Long> install(
      StorageEngine engine,
      LogReplica log,
      StreamId stream,
      List<ReadResult> decided,
      List<Long> refused) {
    StreamId ns = stream == null ? LogReplica.LOG : stream;
    List<EntryRecords.Prepared> prepared = new ArrayList<>(decided.size());
    for (ReadResult r : decided) {
      LogEntryMsg entry = r.getEntry();
      EntryRecords.Prepared p =
          r.getStatus() == ReadResult.Status.COMMITTED && entry.getKind() == EntryKind.DATA
              ? EntryRecords.prepare(engine, entry)
              : null;
      if (p != null
          && !r.getDigest().isEmpty()
          && !ChainDigests.same(p.digest(), r.getDigest().toByteArray())) {
        LOG.warn(
            "Refused a copy of {} address {}: its bytes do not match the digest its replica"
                + " stored for it (that replica's copy was altered or damaged)",
            stream == null ? "the log" : "stream " + stream,
            r.getAddress());
        if (refused != null) {
          refused.add(r.getAddress());
        }
        p = REFUSED;
      }
      prepared.add(p);
    }
    long bytes = 0;
    CompletableFuture<Void> barrier;
    synchronized (engine) {
      for (int i = 0; i < decided.size(); i++) {
        ReadResult r = decided.get(i);
        long a = r.getAddress();
        EntryRecords.Prepared p = prepared.get(i);
        if (p == REFUSED
            || r.getStatus() != ReadResult.Status.COMMITTED
            || a < engine.trimMark(ns)) {
          continue;
        }
        IndexedRecord held = engine.lookup(ns, a);
        if (held != null && held.committed()) {
          continue;
        }
        LogEntryMsg entry = r.getEntry();
        byte[] payload = p != null ? p.bytes() : entry.toByteArray();
        if (p != null) {
          engine.put(
              EntryRecords.key(ns, a),
              entry.getGlobalAddress(),
              p.hash(),
              StorageEngine.COMMITTED,
              payload,
              p.digest(),
              p.crc());
          if (stream == null) {
            log.noted(entry);
          }
        } else {
          engine.put(
              EntryRecords.key(ns, a),
              stream == null ? a : -1,
              0,
              (byte) (StorageEngine.HOLE | StorageEngine.COMMITTED),
              payload,
              null);
          if (stream == null && entry.getKind() == EntryKind.LOST) {
            log.noted(entry);
          }
        }
        bytes += payload.length;
      }
      barrier = engine.barrier();
    }
    long written = bytes;
    return barrier.thenApply(v -> written);
  }
}
