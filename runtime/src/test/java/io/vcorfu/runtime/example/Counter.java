package io.vcorfu.runtime.example;

import io.vcorfu.runtime.annotations.Accessor;
import io.vcorfu.runtime.annotations.Mutator;
import io.vcorfu.runtime.annotations.MutatorAccessor;

/** A counter; {@code upcalls} counts how many updates this state instance applied. */
public class Counter {
  long value;
  long upcalls;

  @Mutator
  public void add(long delta) {
    value += delta;
    upcalls++;
  }

  @MutatorAccessor
  public long addAndGet(long delta) {
    value += delta;
    upcalls++;
    return value;
  }

  @Accessor
  public long get() {
    return value;
  }

  @Accessor
  public long upcalls() {
    return upcalls;
  }
}
