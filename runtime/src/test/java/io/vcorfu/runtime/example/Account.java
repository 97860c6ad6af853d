package io.vcorfu.runtime.example;

import io.vcorfu.runtime.annotations.Accessor;
import io.vcorfu.runtime.annotations.Mutator;
import io.vcorfu.runtime.annotations.MutatorAccessor;

/** A bank account. */
public class Account {
  private long balance;

  @Mutator
  public void deposit(long amount) {
    balance += amount;
  }

  @Mutator
  public void withdraw(long amount) {
    balance -= amount;
  }

  /** Withdraws only if the balance covers it; returns whether it did. */
  @MutatorAccessor
  public boolean tryWithdraw(long amount) {
    if (balance < amount) {
      return false;
    }
    balance -= amount;
    return true;
  }

  @Accessor
  public long balance() {
    return balance;
  }
}
