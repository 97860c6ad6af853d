package io.vcorfu.collections;

import io.vcorfu.runtime.VCorfuRuntime;
import java.util.Map;

/**
 * A fork against the java.util.Map contract: taken of a 3-bucket map after some of its keys were
 * written, then cleared, so every call goes through the fork's own updates over a parent whose keys
 * it hides, and the parent's keys written after the base never show.
 */
class ForkContractTest extends MapContractTest {
  @Override
  protected Map<String, Integer> openMap(VCorfuRuntime rt, String name) {
    try {
      return CSMRMap.open(rt, name); // opened again: by its name, like any map
    } catch (io.vcorfu.runtime.ObjectOpenException notCreatedYet) {
      // created below
    }
    CSMRMap<String, Integer> parent = CSMRMap.open(rt, name + "-parent", 3);
    parent.put("a", 1);
    parent.put("hidden", 2);
    CSMRMap<String, Integer> fork = parent.fork(name);
    fork.clear();
    parent.put("later", 3);
    return fork;
  }
}
