package io.vcorfu.protocol;

import java.time.Duration;

/**
 * Client settings: request timeout, connect timeout, maximum frame size in bytes, and connections
 * per node.
 *
 * <p>{@code connectionsPerNode} (1 to {@link #MAX_CONNECTIONS_PER_NODE}, default 1): a client opens
 * up to that many connections to each node it calls. A call goes on the one its calling thread's id
 * picks, so one thread's calls keep their order, except a numbered append (a sequenced write with
 * its number among the client's appends): every attempt of one append goes on the one its number
 * picks, so that a retry never overtakes an earlier attempt of the same append (the node tells them
 * apart by their order), and appends a thread sends without waiting may reach the sequencer in
 * another order. More than one lets a client whose many threads wait on their calls use more than
 * one I/O thread on each side (each connection is served by one I/O thread of the node and one of
 * the client), at the cost of the connections themselves.
 */
public record ClientOptions(
    Duration requestTimeout, Duration connectTimeout, int maxFrameBytes, int connectionsPerNode) {

  /** Default maximum frame: 16 MiB. */
  public static final int DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;

  /** The most connections a client opens to one node. */
  public static final int MAX_CONNECTIONS_PER_NODE = 64;

  public ClientOptions {
    if (connectionsPerNode < 1 || connectionsPerNode > MAX_CONNECTIONS_PER_NODE) {
      throw new IllegalArgumentException(
          "connections per node must be 1 to "
              + MAX_CONNECTIONS_PER_NODE
              + ", not "
              + connectionsPerNode);
    }
  }

  /** One connection per node. */
  public ClientOptions(Duration requestTimeout, Duration connectTimeout, int maxFrameBytes) {
    this(requestTimeout, connectTimeout, maxFrameBytes, 1);
  }

  public static ClientOptions defaults() {
    return new ClientOptions(Duration.ofSeconds(5), Duration.ofSeconds(2), DEFAULT_MAX_FRAME_BYTES);
  }

  public ClientOptions withRequestTimeout(Duration timeout) {
    return new ClientOptions(timeout, connectTimeout, maxFrameBytes, connectionsPerNode);
  }

  /**
   * These options with {@code n} connections per node; IllegalArgumentException unless 1 to {@link
   * #MAX_CONNECTIONS_PER_NODE}.
   */
  public ClientOptions withConnectionsPerNode(int n) {
    return new ClientOptions(requestTimeout, connectTimeout, maxFrameBytes, n);
  }
}
