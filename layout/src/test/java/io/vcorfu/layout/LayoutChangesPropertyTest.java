package io.vcorfu.layout;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.Endpoint;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random sequences of {@link LayoutChanges#withoutNode} on random first layouts keep the invariants
 * {@link LayoutChanges} states. The run prints its base seed and names each case by its own seed;
 * {@code -Dlayout.seed=<seed>} runs that seed first (and derives the others from it).
 */
class LayoutChangesPropertyTest {
  private static final int CASES = 200;

  static LongStream seeds() {
    long base = Long.getLong("layout.seed", System.nanoTime());
    System.out.println("LayoutChangesPropertyTest base seed " + base);
    Random r = new Random(base);
    return LongStream.concat(
        LongStream.of(base), LongStream.generate(r::nextLong).limit(CASES - 1));
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void removalsKeepChainCountsAndShrinkOnlyTheChainsTheyTouch(long seed) {
    Random random = new Random(seed);
    int n = 1 + random.nextInt(7);
    int r = 1 + random.nextInt(n);
    List<Endpoint> nodes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      nodes.add(new Endpoint("10.0.0." + (i + 1), 9000 + random.nextInt(3)));
    }
    Layout first = LayoutChanges.initial("c" + seed, nodes, r);
    Layout layout = first;
    Set<Endpoint> removed = new HashSet<>();
    List<Endpoint> alive = new ArrayList<>(nodes);
    while (!alive.isEmpty()) {
      Endpoint dead = alive.remove(random.nextInt(alive.size()));
      long start = layout.currentSegment().start();
      long newStart =
          random.nextBoolean() ? start + 1 + random.nextInt(1000) : random.nextLong(start + 1);
      Layout next;
      try {
        next = LayoutChanges.withoutNode(layout, dead, newStart);
      } catch (ChainLostException e) {
        assertThat(e.node()).isEqualTo(dead);
        Segment s =
            layout.segments().stream().filter(x -> x.start() == e.segmentStart()).findFirst().get();
        List<List<Endpoint>> chains =
            e.kind() == ChainLostException.ChainKind.LOG ? s.log() : s.stream();
        assertThat(chains.get(e.chainIndex())).as("seed %d", seed).containsExactly(dead);
        return;
      }
      removed.add(dead);
      check(seed, first, layout, next, dead, newStart, removed);
      layout = next;
    }
  }

  private static void check(
      long seed,
      Layout first,
      Layout before,
      Layout after,
      Endpoint dead,
      long newStart,
      Set<Endpoint> removed) {
    String as = "seed " + seed + " removing " + dead + " from " + before.toJson();
    assertThat(Layout.fromJson(after.toJson())).as(as).isEqualTo(after);
    assertThat(after.epoch()).as(as).isEqualTo(before.epoch() + 1);
    assertThat(after.replication()).as(as).isEqualTo(first.replication());
    assertThat(after.removed()).as(as).endsWith(dead).hasSameSizeAs(removed).containsAll(removed);
    assertThat(after.allServers()).as(as).doesNotContainAnyElementsOf(removed);
    assertThat(removed).as(as).doesNotContain(after.sequencer());
    boolean split = newStart > before.currentSegment().start();
    assertThat(after.segments()).as(as).hasSize(before.segments().size() + (split ? 1 : 0));
    if (split) {
      assertThat(after.currentSegment().start()).as(as).isEqualTo(newStart);
    }

    Segment initial = first.currentSegment();
    for (Segment s : after.segments()) {
      assertThat(s.log()).as(as).hasSameSizeAs(initial.log());
      assertThat(s.stream()).as(as).hasSameSizeAs(initial.stream());
      for (int c = 0; c < initial.log().size(); c++) {
        checkChain(as, initial.log().get(c), s.log().get(c), removed);
        checkChain(as, initial.stream().get(c), s.stream().get(c), removed);
      }
    }
  }

  /** {@code now} is {@code original} without the removed nodes, in the original order. */
  private static void checkChain(
      String as, List<Endpoint> original, List<Endpoint> now, Set<Endpoint> removed) {
    long lost = original.stream().filter(removed::contains).count();
    assertThat(now).as(as).hasSize((int) (original.size() - lost));
    assertThat(now).as(as).isEqualTo(original.stream().filter(e -> !removed.contains(e)).toList());
  }
}
