package io.vcorfu.runtime.stream;

import io.vcorfu.protocol.ClientOptions;
import java.time.Duration;

/**
 * Client settings of the stream layer.
 *
 * @param repairAfter how long a reader waits for an in-flight write before repairing it (finishing
 *     or filling it); bounds how long a dead writer can stall readers
 * @param maxEntryBytes largest payload accepted, checked before a token is taken
 * @param maxAppendAttempts how many fresh tokens an append tries before failing
 * @param rpc transport settings (timeouts, frame size)
 * @param writeCacheBytes how many bytes of this client's own committed appends it keeps to serve
 *     reads of them without a request (oldest evicted first; 0 disables). A local view of an object
 *     this client updates then syncs past its own updates from memory.
 */
public record StreamLogOptions(
    Duration repairAfter, int maxEntryBytes, int maxAppendAttempts, ClientOptions rpc, long writeCacheBytes) {

  public static final Duration DEFAULT_REPAIR_AFTER = Duration.ofMillis(250);
  public static final int DEFAULT_MAX_ENTRY_BYTES = 4 * 1024 * 1024;
  public static final long DEFAULT_WRITE_CACHE_BYTES = 32L * 1024 * 1024;

  public StreamLogOptions {
    if (writeCacheBytes < 0) {
      throw new IllegalArgumentException("writeCacheBytes must be >= 0, got " + writeCacheBytes);
    }
  }

  public static StreamLogOptions defaults() {
    return new StreamLogOptions(
        DEFAULT_REPAIR_AFTER, DEFAULT_MAX_ENTRY_BYTES, 16, ClientOptions.defaults(), DEFAULT_WRITE_CACHE_BYTES);
  }

  public StreamLogOptions withRepairAfter(Duration d) {
    return new StreamLogOptions(d, maxEntryBytes, maxAppendAttempts, rpc, writeCacheBytes);
  }

  public StreamLogOptions withRpc(ClientOptions options) {
    return new StreamLogOptions(repairAfter, maxEntryBytes, maxAppendAttempts, options, writeCacheBytes);
  }

  public StreamLogOptions withMaxEntryBytes(int bytes) {
    return new StreamLogOptions(repairAfter, bytes, maxAppendAttempts, rpc, writeCacheBytes);
  }

  public StreamLogOptions withMaxAppendAttempts(int attempts) {
    return new StreamLogOptions(repairAfter, maxEntryBytes, attempts, rpc, writeCacheBytes);
  }

  /** The same options with a write cache of {@code bytes} (0: reads always go to the replicas). */
  public StreamLogOptions withWriteCacheBytes(long bytes) {
    return new StreamLogOptions(repairAfter, maxEntryBytes, maxAppendAttempts, rpc, bytes);
  }
}
