package io.vcorfu.layout;

import java.util.Comparator;

/**
 * The order in which an entry's plan visits the stream chains of a segment ({@link
 * Layout#streamChainOrder()}; the last one decides), given how many times the stream chains were
 * split as the cluster grew ({@link LayoutChanges#withGrowth}).
 *
 * <p>Chains descend from {@code P / 2^splits} root chains by splits: a split gives chain {@code i}
 * of {@code P} a child {@code i + P}. Chains are ordered by root ({@code i mod roots}), then, for
 * each split from the first on, parent before child. So a child sorts right after its parent and
 * before every chain its parent sorted before: a split never changes the relative order of two
 * streams' chains (it only parts two streams that shared one), and an entry written before a split
 * keeps its deciding chain. With no split this is the chain index order.
 */
final class StreamChainOrder {
  private StreamChainOrder() {}

  /** The order of {@code streamChains} stream chains that descend by {@code splits} splits. */
  static Comparator<Integer> of(int streamChains, int splits) {
    int roots = streamChains >> splits;
    return (a, b) -> {
      int byRoot = Integer.compare(a % roots, b % roots);
      if (byRoot != 0 || splits == 0) {
        return byRoot;
      }
      int qa = a / roots;
      int qb = b / roots;
      for (int j = 0; j < splits; j++) {
        int bit = Integer.compare((qa >> j) & 1, (qb >> j) & 1);
        if (bit != 0) {
          return bit;
        }
      }
      return 0;
    };
  }
}
