package io.vcorfu.client.read;

import io.vcorfu.protocol.proto.ReadResult;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A source of slots for {@link RepairingReader}: a replica chain read by range, and a way to repair
 * one address.
 */
interface Slots {
  CompletableFuture<List<ReadResult>> read(long from, long to);

  CompletableFuture<ReadResult> repair(long address);

  /**
   * Abort-fills the slot as read (the chain's last replica) if it holds the entry {@code nonce}.
   */
  CompletableFuture<ReadResult> abort(long address, long nonce);
}
