/**
 * Runtime internals: proxy generation ({@link io.vcorfu.runtime.internal.ProxyFactory}), the SMR
 * engine and its views ({@link io.vcorfu.runtime.internal.StreamView}), the log record format
 * ({@link io.vcorfu.runtime.internal.SmrRecord}) and transactions ({@link
 * io.vcorfu.runtime.internal.Transactions}). Not an API: public only where generated proxy classes
 * or sibling runtime packages must reach it.
 */
package io.vcorfu.runtime.internal;
