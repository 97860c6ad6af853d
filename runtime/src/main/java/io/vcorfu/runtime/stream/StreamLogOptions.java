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
 */
public record StreamLogOptions(
    Duration repairAfter, int maxEntryBytes, int maxAppendAttempts, ClientOptions rpc) {

  public static final Duration DEFAULT_REPAIR_AFTER = Duration.ofMillis(250);
  public static final int DEFAULT_MAX_ENTRY_BYTES = 4 * 1024 * 1024;

  public static StreamLogOptions defaults() {
    return new StreamLogOptions(DEFAULT_REPAIR_AFTER, DEFAULT_MAX_ENTRY_BYTES, 16, ClientOptions.defaults());
  }

  public StreamLogOptions withRepairAfter(Duration d) {
    return new StreamLogOptions(d, maxEntryBytes, maxAppendAttempts, rpc);
  }

  public StreamLogOptions withRpc(ClientOptions options) {
    return new StreamLogOptions(repairAfter, maxEntryBytes, maxAppendAttempts, options);
  }
}
