package io.vcorfu.collections;

import io.vcorfu.runtime.VCorfuRuntime;
import java.util.Map;

/** SMRMap against the java.util.Map contract. */
class SMRMapContractTest extends MapContractTest {
  @Override
  protected Map<String, Integer> openMap(VCorfuRuntime rt, String name) {
    return SMRMap.open(rt, name);
  }
}
