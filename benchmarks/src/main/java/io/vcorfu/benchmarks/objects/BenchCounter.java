package io.vcorfu.benchmarks.objects;

import io.vcorfu.runtime.annotations.Accessor;
import io.vcorfu.runtime.annotations.Mutator;

/**
 * A counter for the object benchmarks. It lives in the benchmarks module so that a node started
 * from the distribution jar can host remote views of it.
 */
public class BenchCounter {
  private long value;

  @Mutator
  public void add(long delta) {
    value += delta;
  }

  @Accessor
  public long get() {
    return value;
  }
}
