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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The order of a {@link ChainPlan}'s visits on random layouts of {@link LayoutChanges#initial},
 * also after random removals: the log visits are the log chain, head first; the decider is the last
 * stream visit (the last log visit for an entry of no stream); and every visit of the deciding
 * stream chain comes after every other visit, so that whichever of its replicas a removal leaves as
 * the decider, every other copy was written before it. The run prints its base seed and names each
 * case by its own seed; {@code -Dplan.seed=<seed>} runs that seed first.
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
  void theDecidingChainIsWrittenAfterEveryOtherCopy(long seed) {
    Random random = new Random(seed);
    int n = 1 + random.nextInt(6);
    int r = 1 + random.nextInt(n);
    List<Endpoint> nodes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      nodes.add(new Endpoint("10.0.0." + (i + 1), 9000));
    }
    Layout layout = LayoutChanges.initial("c", nodes, r);
    for (int removals = random.nextInt(n); removals > 0; removals--) {
      Endpoint dead = nodes.get(random.nextInt(nodes.size()));
      try {
        layout = LayoutChanges.withoutNode(layout, dead, 0);
        nodes.remove(dead);
      } catch (ChainLostException e) {
        break;
      }
    }
    for (int k = 0; k < 20; k++) {
      long address = random.nextInt(1000);
      List<StreamId> streams = new ArrayList<>();
      for (int s = random.nextInt(4); s > 0; s--) {
        StreamId id = StreamId.of("s" + random.nextInt(50));
        if (!streams.contains(id)) {
          streams.add(id);
        }
      }
      ChainPlan plan = layout.chainPlan(address, streams);
      List<Visit> visits = plan.visits();
      assertThat(visits)
          .as("seed %d: the one-stream plan is the general one", seed)
          .isEqualTo(ChainPlan.ofAny(layout, address, streams, Long.MAX_VALUE).visits());
      long epoch = random.nextInt((int) layout.epoch() + 2);
      assertThat(ChainPlan.of(layout, address, streams, epoch).visits())
          .as("seed %d: the plan of an entry of epoch %d", seed, epoch)
          .isEqualTo(ChainPlan.ofAny(layout, address, streams, epoch).visits());
      assertThat(visits.stream().filter(v -> v.role() == Role.LOG).map(Visit::endpoint))
          .as("seed %d: the log chain, head first", seed)
          .containsExactlyElementsOf(layout.logChain(address));
      if (streams.isEmpty()) {
        assertThat(visits).as("seed %d", seed).allMatch(v -> v.role() == Role.LOG);
        continue;
      }
      assertThat(plan.last().role())
          .as("seed %d: a stream replica decides", seed)
          .isEqualTo(Role.STREAM);
      StreamId decided = plan.last().streams().get(0);
      List<Endpoint> decidingChain = layout.streamChain(decided);
      int firstOfDecidingChain = -1;
      int lastOutside = -1;
      for (int i = 0; i < visits.size(); i++) {
        Visit v = visits.get(i);
        boolean inDecidingChain =
            v.role() == Role.STREAM
                && decidingChain.contains(v.endpoint())
                && v.streams().contains(decided);
        if (inDecidingChain && firstOfDecidingChain < 0) {
          firstOfDecidingChain = i;
        }
        if (!inDecidingChain) {
          lastOutside = i;
        }
      }
      assertThat(lastOutside)
          .as("seed %d: every copy outside the deciding chain before any of it: %s", seed, visits)
          .isLessThan(firstOfDecidingChain);
    }
  }
}
