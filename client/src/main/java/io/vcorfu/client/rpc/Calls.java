package io.vcorfu.client.rpc;

import java.util.concurrent.CompletionException;

/**
 * What every call this client makes to a server shares, whether it is stamped with an epoch ({@link
 * EpochRpc}) or not (the layout reads of {@link io.vcorfu.client.layout.LayoutCache}, made before
 * there is an epoch to stamp): the protocol version its request header carries, and how the error
 * of a failed call is reached. It names no other class of the client, so the layout cache, which
 * {@link EpochRpc} stands on, uses it without naming {@link EpochRpc}.
 */
public final class Calls {
  /** Protocol version this client speaks. */
  public static final int PROTOCOL_VERSION = 1;

  private Calls() {}

  /** The cause of a future's failure, unwrapped from completion wrappers. */
  public static Throwable unwrap(Throwable t) {
    while (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
