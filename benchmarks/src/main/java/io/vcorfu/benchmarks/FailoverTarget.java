package io.vcorfu.benchmarks;

import java.util.List;

/**
 * A replicated store whose failover {@code bench failover} times: one sequential writer, and a way
 * to tell which of its servers plays a role (the node to kill).
 *
 * <p>{@link #write} is called by one thread only, one call after another; {@link #victim} by
 * another thread while writes run. Implementations are safe for that use.
 */
interface FailoverTarget extends AutoCloseable {
  /**
   * Writes one value of the run's size under a name derived from {@code seq} and returns once it is
   * acknowledged (durable and replicated as the store acknowledges writes).
   *
   * @throws Exception when the store refused it or did not acknowledge it in time; the caller
   *     counts an error and writes the next one
   */
  void write(long seq) throws Exception;

  /**
   * The index, in {@link #endpoints()}, of the server that now plays {@code role}.
   *
   * @throws IllegalArgumentException if this store has no such role
   * @throws Exception if the store could not be asked
   */
  int victim(String role) throws Exception;

  /** The servers, in the order the command line gave them. */
  List<String> endpoints();

  /** The roles {@link #victim} knows, for messages. */
  List<String> roles();

  @Override
  void close();
}
