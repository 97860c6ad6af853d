package io.vcorfu.server.cluster;

import io.vcorfu.runtime.annotations.Accessor;
import io.vcorfu.runtime.annotations.Mutator;
import java.util.HashSet;
import java.util.Set;

/**
 * The ids of the transfers one thread of {@link BankTransferFailoverTest} committed: each transfer
 * records its id here in the same transaction that moves the money, so the log itself says which
 * transfers took effect, including those whose caller never learnt the outcome.
 */
public class TransferJournal {
  Set<Long> ids = new HashSet<>();

  @Accessor
  public Set<Long> ids() {
    return new HashSet<>(ids);
  }

  @Mutator
  public void record(long id) {
    ids.add(id);
  }
}
