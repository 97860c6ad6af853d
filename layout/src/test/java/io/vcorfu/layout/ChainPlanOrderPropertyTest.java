package io.vcorfu.layout;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.layout.ChainPlan.Role;
import io.vcorfu.layout.ChainPlan.Visit;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The order of a {@link ChainPlan}'s visits on random layouts of {@link LayoutChanges#initial}: the
 * log visits keep the log chain's order, the stream visits keep theirs (for an entry of one stream
 * chain: that chain's, head first), the decider is the last stream visit (the last log visit for an
 * entry of no stream), nothing is added or lost, and the plan never takes more runs of one endpoint
 * than log-then-streams did. The run prints its base seed and names each case by its own seed;
 * {@code -Dplan.seed=<seed>} runs that seed first.
 */
class ChainPlanOrderPropertyTest {
  private static final int CASES = 300;

  static LongStream seeds() {
    long base = Long.getLong("plan.seed", System.nanoTime());
    System.out.println("ChainPlanOrderPropertyTest base seed " + base);
    Random r = new Random(base);
    return LongStream.concat(
        LongStream.of(base), LongStream.generate(r::nextLong).limit(CASES - 1));
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void interleavingKeepsEveryChainsOrderAndTheDeciderLast(long seed) {
    Random random = new Random(seed);
    int n = 1 + random.nextInt(6);
    int r = 1 + random.nextInt(n);
    List<Endpoint> nodes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      nodes.add(new Endpoint("10.0.0." + (i + 1), 9000));
    }
    Layout layout = LayoutChanges.initial("c", nodes, r);
    for (int k = 0; k < 20; k++) {
      long address = random.nextInt(1000);
      List<StreamId> streams = new ArrayList<>();
      int count = random.nextInt(4);
      for (int s = 0; s < count; s++) {
        StreamId id = StreamId.of("s" + random.nextInt(50));
        if (!streams.contains(id)) {
          streams.add(id);
        }
      }
      ChainPlan plan = layout.chainPlan(address, streams);
      List<Visit> logVisits = plan.visits().stream().filter(v -> v.role() == Role.LOG).toList();
      List<Visit> streamVisits =
          plan.visits().stream().filter(v -> v.role() == Role.STREAM).toList();
      List<Visit> inOldOrder = new ArrayList<>(logVisits);
      inOldOrder.addAll(streamVisits);

      assertThat(logVisits)
          .as("seed %d: the log chain, head first", seed)
          .extracting(Visit::endpoint)
          .containsExactlyElementsOf(layout.logChain(address));
      if (streams.isEmpty()) {
        assertThat(plan.last()).as("seed %d", seed).isEqualTo(logVisits.get(logVisits.size() - 1));
      } else {
        assertThat(plan.last().role())
            .as("seed %d: a stream replica decides", seed)
            .isEqualTo(Role.STREAM);
        // The stream visits in their own order: each touched chain by increasing index, head
        // first, a replica of several at its first place.
        List<Endpoint> expected = new ArrayList<>();
        streams.stream()
            .map(layout::streamChainIndex)
            .distinct()
            .sorted()
            .forEach(
                i ->
                    layout.currentSegment().stream().get(i).stream()
                        .filter(e -> !expected.contains(e))
                        .forEach(expected::add));
        assertThat(streamVisits)
            .as("seed %d: the stream visits' order", seed)
            .extracting(Visit::endpoint)
            .containsExactlyElementsOf(expected);
      }
      assertThat(runs(plan.visits()))
          .as("seed %d: no more round trips than log then streams", seed)
          .isLessThanOrEqualTo(runs(inOldOrder));
      assertThat(layout.chainPlan(address, streams))
          .as("seed %d: every client computes the same plan", seed)
          .isEqualTo(plan);
    }
  }

  @Test
  void onThreeNodesWithThreeReplicasAChainSharingTheLogChainsOrderTakesThreeRoundTrips() {
    Endpoint a = new Endpoint("a", 1);
    Endpoint b = new Endpoint("b", 1);
    Endpoint c = new Endpoint("c", 1);
    Layout layout =
        new Layout(
            "c",
            1,
            a,
            List.of(
                new Segment(
                    0,
                    -1,
                    List.of(List.of(a, b, c), List.of(b, c, a), List.of(c, a, b)),
                    List.of(List.of(a, b, c), List.of(b, c, a), List.of(c, a, b)))));
    StreamId onFirst = PlacementTest.streamWithHash(0, 3, "x");
    StreamId onSecond = PlacementTest.streamWithHash(1, 3, "y");

    ChainPlan same = layout.chainPlan(0, List.of(onFirst));
    assertThat(same.visits())
        .containsExactly(
            new Visit(Role.LOG, a, List.of(onFirst)),
            new Visit(Role.STREAM, a, List.of(onFirst)),
            new Visit(Role.LOG, b, List.of(onFirst)),
            new Visit(Role.STREAM, b, List.of(onFirst)),
            new Visit(Role.LOG, c, List.of(onFirst)),
            new Visit(Role.STREAM, c, List.of(onFirst)));
    assertThat(runs(same.visits())).isEqualTo(3);
    // Log chain a, b, c; stream chain b, c, a: a | b b | c c | a.
    assertThat(runs(layout.chainPlan(0, List.of(onSecond)).visits())).isEqualTo(4);
  }

  /** How many messages a writer sends: consecutive visits to one endpoint go in one. */
  static int runs(List<Visit> visits) {
    int runs = 0;
    Endpoint previous = null;
    for (Visit v : visits) {
      if (!v.endpoint().equals(previous)) {
        runs++;
      }
      previous = v.endpoint();
    }
    return runs;
  }
}
