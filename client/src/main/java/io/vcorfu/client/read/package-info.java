/**
 * The read path: the {@link io.vcorfu.client.read.RepairingReader} waits a bounded time for
 * in-flight writes and then repairs them, completing a committed entry or filling a hole, so a read
 * returns only decided slots; the {@link io.vcorfu.client.read.WriteCache} serves this client's own
 * recent appends.
 */
package io.vcorfu.client.read;
