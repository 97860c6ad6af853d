package io.vcorfu.logunit.internal;

import com.google.protobuf.InvalidProtocolBufferException;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.ChainDigests;
import io.vcorfu.protocol.DamagedEntryException;
import io.vcorfu.protocol.ServerErrorException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;

/**
 * How the replicas answer reads: what each address answers is decided under the engine's monitor
 * ({@link #plan}), and the bytes are loaded once the engine's barrier says they are durable, off
 * the writer's thread ({@link #answer}).
 */
public final class ReadPlanning {
  /** Largest range one read may ask for; clients page through longer ones. */
  public static final int MAX_READ_RANGE = 4096;

  private ReadPlanning() {}

  public static void checkRange(long from, long to) {
    if (from < 0) {
      throw new BadRequestException("A read cannot start at the negative address " + from + ".");
    }
    if (from > to) {
      throw new BadRequestException(
          "A read from address " + from + " to " + to + " is empty: the start is after the end.");
    }
    if (to - from + 1 > MAX_READ_RANGE) {
      throw new BadRequestException(
          "A read may cover at most "
              + MAX_READ_RANGE
              + " addresses; page through "
              + from
              + ".."
              + to
              + " instead.");
    }
  }

  /**
   * Decides what {@code address} of {@code ns} answers (below the log's trim mark, a hole it keeps
   * there: {@link KeptHoles}); call under the engine's monitor.
   */
  public static PlannedRead plan(StorageEngine engine, StreamId ns, long address) {
    assert Thread.holdsLock(engine) : "reads are planned under the engine's monitor";
    if (address < engine.trimMark(ns)) {
      IndexedRecord kept = KeptHoles.below(engine, ns, address);
      return kept == null
          ? new PlannedRead(ns, address, ReadResult.Status.TRIMMED, null)
          : new PlannedRead(KeptHoles.NAMESPACE, address, ReadResult.Status.COMMITTED, kept);
    }
    IndexedRecord s = engine.lookup(ns, address);
    if (s == null) {
      return new PlannedRead(ns, address, ReadResult.Status.EMPTY, null);
    }
    return new PlannedRead(
        ns,
        address,
        s.committed() ? ReadResult.Status.COMMITTED : ReadResult.Status.UNCOMMITTED,
        s);
  }

  /** Answers planned reads once {@code barrier} completes, loading bytes off the writer thread. */
  public static CompletableFuture<List<ReadResult>> answer(
      StorageEngine engine, CompletableFuture<Void> barrier, List<PlannedRead> plans) {
    if (barrier.isDone() && !barrier.isCompletedExceptionally()) {
      try {
        return CompletableFuture.completedFuture(results(engine, plans));
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
    return barrier.thenApplyAsync(v -> results(engine, plans), ForkJoinPool.commonPool());
  }

  private static List<ReadResult> results(StorageEngine engine, List<PlannedRead> plans) {
    List<ReadResult> out = new ArrayList<>(plans.size());
    Checked checked = new Checked(plans.size());
    for (PlannedRead p : plans) {
      out.add(result(engine, p, checked));
    }
    checked.remember(engine);
    return out;
  }

  /** The records of one read whose bytes were found to match their digest, CRC32C not known yet. */
  private static final class Checked {
    private final long[] addresses;
    private final long[] positions;
    private final int[] crcs;
    private StreamId ns;
    private int count;

    Checked(int size) {
      addresses = new long[size];
      positions = new long[size];
      crcs = new int[size];
    }

    void add(PlannedRead p, int crc) {
      if (ns != null && !ns.equals(p.ns())) {
        return; // one read is of one namespace; anything else is checked again next time
      }
      ns = p.ns();
      addresses[count] = p.address();
      positions[count] = p.record().pos();
      crcs[count++] = crc;
    }

    void remember(StorageEngine engine) {
      if (count > 0) {
        ChainIndex.rememberCrcs(engine, ns, addresses, positions, crcs, count);
      }
    }
  }

  private static ReadResult result(StorageEngine engine, PlannedRead p, Checked checked) {
    ReadResult.Builder r = ReadResult.newBuilder().setAddress(p.address()).setStatus(p.status());
    if (p.record() == null) {
      return r.build();
    }
    byte[] bytes = engine.load(p.ns(), p.record());
    if (bytes == null) {
      return r.setStatus(ReadResult.Status.TRIMMED).build();
    }
    byte[] digest = p.record().digest();
    if (digest != null && !p.record().hole()) {
      // Bytes are never served unless they are what was stored: their CRC32C as received (or as
      // found to match the digest since the node started) when known, else the SHA-256 digest.
      int crc = EntryRecords.crc32c(bytes);
      if (p.record().crc() == 0 || crc != p.record().crc()) {
        if (!ChainDigests.same(ChainDigests.ofEntry(bytes), digest)) {
          throw new DamagedEntryException(
              p.ns().msb() == 0 && p.ns().lsb() == 0 ? null : p.ns(), p.address());
        }
        checked.add(p, crc);
      }
      if (p.status() == ReadResult.Status.COMMITTED) {
        // The digest this replica stored, for a replica copying the entry to check it against.
        r.setDigest(com.google.protobuf.ByteString.copyFrom(digest));
      }
    }
    try {
      return r.setEntry(LogEntryMsg.parseFrom(bytes)).build();
    } catch (InvalidProtocolBufferException e) {
      throw new ServerErrorException(
          "A stored entry at address " + p.address() + " cannot be decoded: " + e.getMessage(), e);
    }
  }
}
