package io.vcorfu.runtime.example;

import io.vcorfu.runtime.annotations.Accessor;
import io.vcorfu.runtime.annotations.ConflictParameter;
import io.vcorfu.runtime.annotations.Mutator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Stock per item; transactions conflict per item. */
public class Inventory {
  private final Map<String, Integer> stock = new HashMap<>();

  @Mutator
  public void put(@ConflictParameter String item, int count) {
    stock.put(item, count);
  }

  @Accessor
  public int get(@ConflictParameter String item) {
    return stock.getOrDefault(item, 0);
  }

  @Accessor
  public int total() {
    return stock.values().stream().mapToInt(Integer::intValue).sum();
  }

  @Mutator
  public void putAll(List<Item> items) {
    for (Item i : items) {
      stock.put(i.name(), i.count());
    }
  }

  /** A record argument: admitted because a method declares it. */
  public record Item(String name, int count) {}
}
