package io.vcorfu.benchmarks.objects;

import io.vcorfu.runtime.annotations.Accessor;
import io.vcorfu.runtime.annotations.Mutator;

/**
 * An account balance for the transaction benchmarks. It lives in the benchmarks module so that a
 * node started from the distribution jar can host remote views of it.
 */
public class BenchAccount {
  private long balance;

  @Mutator
  public void deposit(long amount) {
    balance += amount;
  }

  @Accessor
  public long balance() {
    return balance;
  }
}
