package io.vcorfu.runtime.example;

import io.vcorfu.runtime.annotations.Accessor;
import io.vcorfu.runtime.annotations.TransactionalMethod;

/**
 * A facade over account objects whose transfer runs as a transaction (the {@code
 * TransactionalMethod} path). Holds only references to other objects.
 */
public class Bank {
  public Account[] accounts;

  @TransactionalMethod
  public boolean transfer(int from, int to, long amount) {
    if (accounts[from].balance() < amount) {
      return false;
    }
    accounts[from].withdraw(amount);
    accounts[to].deposit(amount);
    return true;
  }

  @TransactionalMethod(readOnly = true)
  public long total() {
    long sum = 0;
    for (Account a : accounts) {
      sum += a.balance();
    }
    return sum;
  }

  @TransactionalMethod(readOnly = true)
  public void illegalWrite() {
    accounts[0].deposit(1);
  }

  /** Writes, then fails with a checked exception: the transaction must abort. */
  @TransactionalMethod
  public void depositThenFail(long amount) throws java.io.IOException {
    accounts[0].deposit(amount);
    throw new java.io.IOException("the statement printer is offline");
  }

  @Accessor
  public int marker() {
    return 0;
  }
}
