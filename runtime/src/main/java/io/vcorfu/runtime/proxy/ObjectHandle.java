package io.vcorfu.runtime.proxy;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.smr.RuntimeCore;
import io.vcorfu.runtime.smr.UpcallRunner;
import java.util.concurrent.Callable;

/** What a proxy delegates annotated calls to: one per opened view. */
public interface ObjectHandle {
  /**
   * Runs an annotated call made on {@code self}. {@code body} runs the original method on {@code
   * self} (the view's own state) and may only be called as an upcall (see {@link UpcallRunner}).
   */
  Object invoke(Object self, MethodModel method, Object[] args, Callable<Object> body)
      throws Exception;

  /** The stream the view plays. */
  StreamId stream();

  /** The runtime that opened the view. */
  RuntimeCore core();
}
