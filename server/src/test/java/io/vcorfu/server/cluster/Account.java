package io.vcorfu.server.cluster;

import io.vcorfu.runtime.annotations.Accessor;
import io.vcorfu.runtime.annotations.Mutator;

/**
 * A bank account of {@link BankTransferFailoverTest}: a balance, set to an absolute value (so a
 * transaction that lost an update would show in the total).
 */
public class Account {
  long balance;

  @Accessor
  public long balance() {
    return balance;
  }

  @Mutator
  public void set(long value) {
    balance = value;
  }
}
