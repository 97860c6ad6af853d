package io.vcorfu.collections;

import io.vcorfu.runtime.VCorfuRuntime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * A random history of committed writes to a map of long keys, with a model of the map after each
 * commit: what a snapshot view as of {@code addresses.get(i)} must equal is {@code models.get(i)}.
 */
record History(List<Long> addresses, List<TreeMap<Long, String>> models) {
  /**
   * Commits {@code transactions} transactions on {@code map} through {@code rt}, transaction i
   * putting {@code "v" + i} or (one time in three) removing a random key below {@code keys}.
   */
  static History write(
      VCorfuRuntime rt, Map<Long, String> map, Random random, int transactions, int keys) {
    TreeMap<Long, String> model = new TreeMap<>();
    List<Long> addresses = new ArrayList<>();
    List<TreeMap<Long, String>> models = new ArrayList<>();
    for (int i = 0; i < transactions; i++) {
      long k = random.nextInt(keys);
      rt.TXBegin();
      if (random.nextInt(3) == 0) {
        map.remove(k);
        model.remove(k);
      } else {
        map.put(k, "v" + i);
        model.put(k, "v" + i);
      }
      addresses.add(rt.TXEnd());
      models.add(new TreeMap<>(model));
    }
    return new History(addresses, models);
  }
}
