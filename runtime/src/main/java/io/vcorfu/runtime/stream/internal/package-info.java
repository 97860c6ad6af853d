/**
 * The client's write and read paths behind the stream log: the chain writer, the repairing reader
 * that fills holes, tail batching and read leases, the write cache and the client's view of the
 * layout. Not an API: the public face is the stream log interface.
 */
package io.vcorfu.runtime.stream.internal;
