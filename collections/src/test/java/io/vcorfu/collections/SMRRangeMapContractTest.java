package io.vcorfu.collections;

import io.vcorfu.runtime.VCorfuRuntime;
import java.util.NavigableMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link SMRRangeMap} against the java.util contract, on the test cluster. */
class SMRRangeMapContractTest extends NavigableMapContract {
  private static final AtomicInteger NEXT = new AtomicInteger();
  @RegisterExtension final Harness harness = new Harness();
  private final VCorfuRuntime rt = harness.defaultRuntime();

  @Override
  @SuppressWarnings("unchecked")
  protected NavigableMap<Long, String> newMap() {
    return rt.objects().open("range-contract-" + NEXT.incrementAndGet(), SMRRangeMap.class);
  }
}
