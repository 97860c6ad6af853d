package io.vcorfu.collections;

import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.testing.TestRuntimes;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The runtimes of one collections test ({@link TestRuntimes}), whose {@link #runtime()} retries
 * transactions patiently, and the helpers the collection tests share.
 */
final class Harness extends TestRuntimes {
  /** A new runtime (a new client of the log) that retries transactions patiently. */
  @Override
  public VCorfuRuntime runtime() {
    return runtime(
        RuntimeOptions.defaults()
            .withMaxTransactionAttempts(1_000)
            .withBackoff(Duration.ZERO, Duration.ofMillis(5)));
  }

  /** A new runtime with default options; closed with this harness. */
  VCorfuRuntime defaultRuntime() {
    return super.runtime();
  }

  @SuppressWarnings("unchecked")
  static <E> SMRList<E> list(VCorfuRuntime rt, String name) {
    return rt.objects().open(name, SMRList.class);
  }

  /** What a call produced: its value, or the class of what it threw. */
  record Outcome(Object value, Class<?> thrown) {
    static Outcome of(Supplier<?> call) {
      try {
        return new Outcome(call.get(), null);
      } catch (RuntimeException e) {
        return new Outcome(null, e.getClass());
      }
    }
  }
}
