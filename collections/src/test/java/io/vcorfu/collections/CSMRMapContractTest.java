package io.vcorfu.collections;

import io.vcorfu.runtime.VCorfuRuntime;
import java.util.Map;

/** CSMRMap (7 buckets) against the java.util.Map contract. */
class CSMRMapContractTest extends MapContractTest {
  @Override
  protected Map<String, Integer> openMap(VCorfuRuntime rt, String name) {
    return CSMRMap.open(rt, name, 7);
  }
}
