/**
 * Optimistic transactions (paper §4.2): {@link io.vcorfu.runtime.tx.Transactions} begins, ends and
 * retries the calling thread's transaction; {@link io.vcorfu.runtime.tx.TxContext} holds its
 * snapshot, read and write sets and buffered updates, and commits through conditional issuance.
 * Used by the runtime's own packages only.
 */
package io.vcorfu.runtime.tx;
