package io.vcorfu.logunit.internal;

import com.google.protobuf.InvalidProtocolBufferException;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.ServerErrorException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TooLargeException;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.zip.CRC32C;

/** What the log and stream replicas share: keys, size checks, planning and answering reads. */
public final class ReplicaSupport {
  /** Largest range one read may ask for; clients page through longer ones. */
  public static final int MAX_READ_RANGE = 4096;

  private ReplicaSupport() {}

  public static long[] key(StreamId ns, long address) {
    return new long[] {ns.msb(), ns.lsb(), address};
  }

  /**
   * Identity of an entry's content, ignoring the writer's epoch: a repairer re-driving the same
   * entry matches it, a different entry with the same address does not.
   */
  public static int contentHash(LogEntryMsg entry) {
    if (entry.getNonce() != 0) {
      return nonceHash(entry.getNonce());
    }
    CRC32C crc = new CRC32C();
    crc.update(entry.toBuilder().clearEpoch().build().toByteArray());
    return (int) crc.getValue();
  }

  /**
   * The identity of an entry written with a writer nonce: a writer never reuses a nonce, so equal
   * global address and nonce mean the same write attempt (a re-drive), and an abort-fill naming the
   * nonce can only abort that attempt, never another entry given the same address later.
   */
  public static int nonceHash(long nonce) {
    long h = nonce * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32));
  }

  /**
   * Repairs one slot of {@code ns}: an empty slot gets {@code hole} (committed iff {@code commit});
   * an uncommitted entry is replaced by a committed hole when {@code abort} is set and {@code
   * abortNonce} names it (or is 0); a hole is committed when {@code commit} is set; anything else
   * is left as it is. Completes with what the slot holds afterwards, once that is durable.
   */
  public static CompletableFuture<ReadResult> fill(
      StorageEngine engine,
      StreamId ns,
      long address,
      long holeGlobal,
      byte[] hole,
      boolean abort,
      long abortNonce,
      boolean commit) {
    Planned plan;
    CompletableFuture<Void> barrier;
    synchronized (engine) {
      if (address >= engine.trimMark(ns)) {
        Stored held = engine.lookup(ns, address);
        if (held == null
            || (!held.hole() && !held.committed() && abort && abortMatches(held, abortNonce))) {
          boolean committed = held != null || commit;
          engine.put(
              key(ns, address),
              holeGlobal,
              0,
              (byte) (StorageEngine.HOLE | (committed ? StorageEngine.COMMITTED : 0)),
              hole);
        } else if (held.hole() && !held.committed() && commit) {
          engine.commit(key(ns, address));
        }
      }
      plan = plan(engine, ns, address);
      barrier = engine.barrier();
    }
    return answer(engine, barrier, List.of(plan)).thenApply(r -> r.get(0));
  }

  /** True if an abort-fill naming {@code abortNonce} (0 = any entry) may abort {@code held}. */
  public static boolean abortMatches(Stored held, long abortNonce) {
    return abortNonce == 0 || held.hash() == nonceHash(abortNonce);
  }

  /** The serialized entry, or TooLargeException when it exceeds the engine's limit. */
  public static byte[] serialize(StorageEngine engine, LogEntryMsg entry) {
    byte[] bytes = entry.toByteArray();
    int limit = engine.options().maxEntrySize();
    if (bytes.length > limit) {
      throw new TooLargeException(bytes.length, limit);
    }
    return bytes;
  }

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

  /** Decides what {@code address} of {@code ns} answers; call under the engine's monitor. */
  public static Planned plan(StorageEngine engine, StreamId ns, long address) {
    assert Thread.holdsLock(engine) : "reads are planned under the engine's monitor";
    if (address < engine.trimMark(ns)) {
      return new Planned(address, ReadResult.Status.TRIMMED, null);
    }
    Stored s = engine.lookup(ns, address);
    if (s == null) {
      return new Planned(address, ReadResult.Status.EMPTY, null);
    }
    return new Planned(
        address, s.committed() ? ReadResult.Status.COMMITTED : ReadResult.Status.UNCOMMITTED, s);
  }

  /** Answers planned reads once {@code barrier} completes, loading bytes off the writer thread. */
  public static CompletableFuture<List<ReadResult>> answer(
      StorageEngine engine, CompletableFuture<Void> barrier, List<Planned> plans) {
    if (barrier.isDone() && !barrier.isCompletedExceptionally()) {
      try {
        return CompletableFuture.completedFuture(results(engine, plans));
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
    return barrier.thenApplyAsync(v -> results(engine, plans), ForkJoinPool.commonPool());
  }

  private static List<ReadResult> results(StorageEngine engine, List<Planned> plans) {
    List<ReadResult> out = new ArrayList<>(plans.size());
    for (Planned p : plans) {
      out.add(result(engine, p));
    }
    return out;
  }

  private static ReadResult result(StorageEngine engine, Planned p) {
    ReadResult.Builder r = ReadResult.newBuilder().setAddress(p.address()).setStatus(p.status());
    if (p.stored() == null) {
      return r.build();
    }
    byte[] bytes = engine.load(p.stored());
    if (bytes == null) {
      return r.setStatus(ReadResult.Status.TRIMMED).build();
    }
    try {
      return r.setEntry(LogEntryMsg.parseFrom(bytes)).build();
    } catch (InvalidProtocolBufferException e) {
      throw new ServerErrorException(
          "A stored entry at address " + p.address() + " cannot be decoded: " + e.getMessage(), e);
    }
  }
}
