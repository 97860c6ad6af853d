package io.vcorfu.runtime.smr;

import io.vcorfu.runtime.proxy.MethodModel;
import java.lang.reflect.InvocationTargetException;
import java.util.concurrent.Callable;

/**
 * Runs method bodies directly on a state instance ("upcalls"). While an upcall runs on a proxy
 * instance, annotated calls the body makes on that same instance run directly too, as part of the
 * upcall, instead of being sent to the log again.
 */
public final class UpcallRunner {
  private static final ThreadLocal<Object> CURRENT = new ThreadLocal<>();

  private UpcallRunner() {}

  /** True when {@code self} is the instance the current thread is running an upcall on. */
  public static boolean inUpcall(Object self) {
    return CURRENT.get() == self;
  }

  /** Runs {@code body} as an upcall on {@code self}. */
  public static Object run(Object self, Callable<Object> body) throws Exception {
    Object previous = CURRENT.get();
    CURRENT.set(self);
    try {
      return body.call();
    } finally {
      CURRENT.set(previous);
    }
  }

  /** Applies {@code method} with {@code args} to {@code state} (a proxy or a plain instance). */
  public static Object apply(Object state, MethodModel method, Object[] args) throws Exception {
    return run(
        state,
        () -> {
          try {
            return method.method().invoke(state, args);
          } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception ex) {
              throw ex;
            }
            throw (Error) cause;
          }
        });
  }

  /** Rethrows any throwable without wrapping (checked exceptions declared by user methods). */
  @SuppressWarnings("unchecked")
  public static <E extends Throwable> RuntimeException sneakyThrow(Throwable t) throws E {
    throw (E) t;
  }
}
