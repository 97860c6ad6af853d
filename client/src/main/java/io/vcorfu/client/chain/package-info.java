/**
 * The write path: the {@link io.vcorfu.client.chain.ChainWriter} drives an entry through its log
 * chain and stream chains and commits it, or learns from the deciding replica what became of it;
 * the {@link io.vcorfu.client.chain.Appender} takes tokens and retries aborted blind appends.
 */
package io.vcorfu.client.chain;
