package io.vcorfu.server;

import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;

/** Sees every request a node answers (see {@link Node#observeRequests}); must not block. */
@FunctionalInterface
public interface RequestObserver {
  /**
   * {@code request} was answered with {@code response}, or failed with {@code error}, {@code nanos}
   * after it arrived.
   */
  void answered(Request request, Response response, Throwable error, long nanos);
}
