package io.vcorfu.collections;

import io.vcorfu.runtime.VCorfuRuntime;
import java.util.NavigableMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link CSMRBTree} against the java.util contract, with a small fanout so trees grow several
 * levels.
 */
class CSMRBTreeContractTest extends NavigableMapContract {
  private static final AtomicInteger NEXT = new AtomicInteger();
  @RegisterExtension final Harness harness = new Harness();
  private final VCorfuRuntime rt = harness.defaultRuntime();

  @Override
  protected NavigableMap<Long, String> newMap() {
    return CSMRBTree.open(rt, "btree-contract-" + NEXT.incrementAndGet(), 4);
  }
}
