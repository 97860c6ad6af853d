package io.vcorfu.runtime.serialization;

import java.util.Arrays;

/**
 * The order a map's entries are encoded in: by their keys' encodings, compared as unsigned bytes,
 * so that equal maps encode to equal bytes whatever their iteration order.
 */
final class KeyOrder {
  private KeyOrder() {}

  /**
   * The entries {@code 0..n-1} sorted by their keys' bytes ({@code buf} from {@code bounds[3i]} to
   * {@code bounds[3i+1]}), stably: insertion sort for a few, a merge sort (boxed) for more.
   */
  static int[] of(byte[] buf, int[] bounds, int n) {
    if (n > 32) {
      Integer[] boxed = new Integer[n];
      for (int i = 0; i < n; i++) {
        boxed[i] = i;
      }
      Arrays.sort(boxed, (x, y) -> compareKeys(buf, bounds, x, y));
      int[] order = new int[n];
      for (int i = 0; i < n; i++) {
        order[i] = boxed[i];
      }
      return order;
    }
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      int j = i;
      while (j > 0 && compareKeys(buf, bounds, order[j - 1], i) > 0) {
        order[j] = order[j - 1];
        j--;
      }
      order[j] = i;
    }
    return order;
  }

  private static int compareKeys(byte[] buf, int[] bounds, int x, int y) {
    return Arrays.compareUnsigned(
        buf, bounds[3 * x], bounds[3 * x + 1], buf, bounds[3 * y], bounds[3 * y + 1]);
  }
}
