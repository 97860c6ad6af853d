package io.vcorfu.server;

import io.vcorfu.protocol.DiskFullException;
import java.nio.file.Path;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The disk-space alarm of a node with a data directory: raised when the free space of the
 * directory's file system falls below a threshold, cleared on its own once it is back above the
 * threshold plus a margin (so it does not flap). While it is raised the node refuses writes of
 * entries ({@link DiskFullException}: nothing of the write is stored) and keeps serving reads,
 * commits, fills and trims, which is how space comes back: writes are refused well before the disk
 * is full, so nothing acknowledged is ever lost to a full disk.
 *
 * <p>The free space is looked at no more than every {@value #CHECK_MILLIS} ms, on the calling
 * thread. Thread-safe.
 */
public final class DiskAlarm {
  private static final Logger LOG = LoggerFactory.getLogger(DiskAlarm.class);

  /** The default threshold: 256 MiB, or 2% of the file system when that is more. */
  public static final long DEFAULT_MIN_FREE_BYTES = 256L << 20;

  static final long CHECK_MILLIS = 250;

  private final String node;
  private final LongSupplier clockMillis;
  private final LongSupplier free;
  private final LongSupplier total;
  private volatile long threshold;
  private volatile boolean raised;
  private volatile long lastFree = -1;
  private volatile long checkedAtMillis;

  /** The alarm of {@code node}'s data directory {@code dir}; {@code minFree} 0 for the default. */
  public DiskAlarm(String node, Path dir, long minFree) {
    this(
        node,
        System::currentTimeMillis,
        () -> dir.toFile().getUsableSpace(),
        () -> dir.toFile().getTotalSpace(),
        minFree);
  }

  DiskAlarm(
      String node, LongSupplier clockMillis, LongSupplier free, LongSupplier total, long minFree) {
    this.node = node;
    this.clockMillis = clockMillis;
    this.free = free;
    this.total = total;
    threshold(minFree);
  }

  /** Sets the threshold in bytes; 0 for the default (see {@link #DEFAULT_MIN_FREE_BYTES}). */
  public void threshold(long minFree) {
    if (minFree < 0) {
      throw new IllegalArgumentException("the free-space threshold cannot be negative");
    }
    this.threshold =
        minFree > 0 ? minFree : Math.max(DEFAULT_MIN_FREE_BYTES, total.getAsLong() / 50);
    checkedAtMillis = Long.MIN_VALUE / 2;
  }

  public long threshold() {
    return threshold;
  }

  /** The free bytes last seen (looked at again when stale). */
  public long freeBytes() {
    check();
    return lastFree;
  }

  /** True while the alarm is raised. */
  public boolean raised() {
    check();
    return raised;
  }

  /** The requests that store entries: refused while the alarm is raised. */
  private static final java.util.Set<io.vcorfu.protocol.proto.Request.PayloadCase> ENTRY_WRITES =
      java.util.EnumSet.of(
          io.vcorfu.protocol.proto.Request.PayloadCase.SEQUENCED_WRITE,
          io.vcorfu.protocol.proto.Request.PayloadCase.LOG_WRITE,
          io.vcorfu.protocol.proto.Request.PayloadCase.CHAIN_WRITE,
          io.vcorfu.protocol.proto.Request.PayloadCase.STREAM_WRITE);

  /**
   * {@code table} with its entry writes answered {@link DiskFullException} while the alarm is
   * raised (nothing of them stored); every other request as before.
   */
  java.util.Map<io.vcorfu.protocol.proto.Request.PayloadCase, io.vcorfu.protocol.RpcHandler> guard(
      java.util.Map<io.vcorfu.protocol.proto.Request.PayloadCase, io.vcorfu.protocol.RpcHandler>
          table) {
    java.util.Map<io.vcorfu.protocol.proto.Request.PayloadCase, io.vcorfu.protocol.RpcHandler> out =
        new java.util.EnumMap<>(io.vcorfu.protocol.proto.Request.PayloadCase.class);
    table.forEach(
        (k, h) ->
            out.put(
                k,
                !ENTRY_WRITES.contains(k)
                    ? h
                    : r -> {
                      try {
                        refuseWriteIfRaised();
                      } catch (DiskFullException full) {
                        return java.util.concurrent.CompletableFuture.completedFuture(
                            io.vcorfu.protocol.proto.Response.newBuilder()
                                .setError(io.vcorfu.protocol.Errors.toMsg(full))
                                .build());
                      }
                      return h.handle(r);
                    }));
    return out;
  }

  /** Throws {@link DiskFullException} while the alarm is raised. */
  public void refuseWriteIfRaised() {
    check();
    if (raised) {
      throw new DiskFullException(node, lastFree, threshold);
    }
  }

  private void check() {
    long now = clockMillis.getAsLong();
    if (now - checkedAtMillis < CHECK_MILLIS) {
      return;
    }
    synchronized (this) {
      if (now - checkedAtMillis < CHECK_MILLIS) {
        return;
      }
      long f = free.getAsLong();
      lastFree = f;
      checkedAtMillis = now;
      long t = threshold;
      if (!raised && f < t) {
        raised = true;
        LOG.warn(
            "node {}: disk-space alarm raised: {} bytes free, below {}; refusing writes until"
                + " space is freed (trim streams, add disk)",
            node,
            f,
            t);
      } else if (raised && f >= t + t / 10) {
        raised = false;
        LOG.info("node {}: disk-space alarm cleared: {} bytes free; accepting writes", node, f);
      }
    }
  }
}
