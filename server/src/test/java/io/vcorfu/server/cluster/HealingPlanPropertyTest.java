package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.layout.ChainLostException;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.layout.MemberChanges;
import io.vcorfu.layout.Segment;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.PingResponse;
import io.vcorfu.protocol.proto.RebuildProgress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The healing plan driven against random failures and drains, with the layout changes it asks for
 * applied as the manager would (failed nodes removed with {@link LayoutChanges#withoutNode}): after
 * every change the layout is valid, every chain of the current segment that has replicas keeps one
 * that serves, none serves more than R, and a node being drained stays in the layout until it holds
 * no place; once failures stop and every copy finishes, the plan brings every chain of the current
 * segment back to R and finishes every drain, when at least R nodes not leaving live (a drain is
 * begun only then; a node leaving takes no new place). Seeds are logged.
 */
class HealingPlanPropertyTest {
  private static final long SECOND = 1_000_000_000L;

  /** 60 seeds from the clock, or the one {@code -Dhealing.seed=S} names (to replay a failure). */
  static Stream<Long> seeds() {
    String replay = System.getProperty("healing.seed");
    if (replay != null) {
      return Stream.of(Long.parseLong(replay));
    }
    long base = System.nanoTime();
    return LongStream.range(0, 60).mapToObj(i -> base + i);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void randomFailuresAndDrainsEndAtFullStrength(long seed) {
    System.out.println("HealingPlanPropertyTest seed " + seed);
    Random random = new Random(seed);
    int n = 4 + random.nextInt(4);
    int r = 2 + random.nextInt(2);
    List<Endpoint> nodes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      nodes.add(new Endpoint("10.0.5." + (i + 1), 9000));
    }
    Set<Endpoint> alive = new HashSet<>(nodes);
    Map<Endpoint, PingResponse> answers = new HashMap<>();
    HealingPlan.Probes probes =
        new HealingPlan.Probes() {
          @Override
          public boolean answering(Endpoint node) {
            return alive.contains(node);
          }

          @Override
          public PingResponse lastAnswer(Endpoint node) {
            return answers.get(node);
          }
        };
    HealingPlan plan = new HealingPlan(Duration.ofSeconds(random.nextBoolean() ? 0 : 30));
    Layout layout = LayoutChanges.initial("c", nodes, r);
    long tail = 10;
    long now = 0;
    List<String> history = new ArrayList<>();
    for (int step = 0; step < 80; step++) {
      now += random.nextInt(20) * SECOND;
      for (Endpoint e : layout.rebuilding().keySet()) {
        if (random.nextInt(3) == 0) {
          answers.put(e, done(layout.epoch()));
        }
      }
      int dice = random.nextInt(20);
      Layout next = null;
      String what;
      if (dice == 0 && alive.size() > r) {
        Endpoint victim = pick(random, alive);
        try {
          next = LayoutChanges.withoutNode(layout, victim, tail += 10);
          alive.remove(victim);
          what = "failure of " + victim;
        } catch (ChainLostException | IllegalArgumentException e) {
          what = "failure of " + victim + " not removable: " + e.getMessage();
        }
      } else if (dice == 1 && layout.draining().isEmpty()) {
        Endpoint old = pick(random, alive);
        Layout l = layout;
        boolean someoneTakes =
            alive.stream().anyMatch(e -> !MemberChanges.drainTakes(l, e, old).isEmpty());
        long others =
            l.allServers().stream()
                .filter(e -> !e.equals(old) && alive.contains(e) && !l.draining().contains(e))
                .count();
        if (someoneTakes
            && others >= r
            && !layout.isRebuilding(old)
            && MemberChanges.holdsAPlace(layout.currentSegment(), old)) {
          next = MemberChanges.withDraining(layout, old);
          what = "remove-node " + old;
        } else {
          what = "no drain of " + old;
        }
      } else {
        HealingPlan.Step s = plan.next(layout, now, probes);
        what = s == null ? "nothing to do" : s.why();
        if (s != null) {
          next = s.change().apply(tail += 10);
        }
      }
      history.add(what);
      if (next != null) {
        check(next, layout, r, history);
        layout = next;
      }
    }
    // Failures stop; every copy finishes; the plan runs until it has nothing left to do.
    for (int round = 0; round < 10 * n; round++) {
      for (Endpoint e : layout.rebuilding().keySet()) {
        answers.put(e, done(layout.epoch()));
      }
      now += 31 * SECOND; // past any member-heal delay
      HealingPlan.Step s = plan.next(layout, now, probes);
      if (s == null) {
        continue; // a delay may just have started: the next round is past it
      }
      history.add(s.why());
      Layout next = s.change().apply(tail += 10);
      check(next, layout, r, history);
      layout = next;
    }
    assertThat(plan.next(layout, now + 31 * SECOND, probes)).as("quiescent").isNull();
    assertThat(layout.rebuilding()).isEmpty();
    Layout last = layout;
    long others =
        layout.allServers().stream()
            .filter(e -> alive.contains(e) && !last.draining().contains(e))
            .count();
    if (others >= r) {
      // Enough nodes to take every place of a node leaving on request.
      assertThat(layout.draining()).as("every drain finished: %s", history).isEmpty();
    }
    if (others >= r) {
      assertThat(LayoutChanges.underReplicated(layout))
          .as("seed %d, N = %d, R = %d: %s", seed, n, r, history)
          .isEmpty();
    }
  }

  /** The invariants of every layout the plan or a removal produces. */
  private static void check(Layout next, Layout before, int r, List<String> history) {
    assertThat(Layout.fromJson(next.toJson())).isEqualTo(next);
    Segment open = next.currentSegment();
    for (int k = 0; k < open.log().size() + open.stream().size(); k++) {
      boolean log = k < open.log().size();
      int c = log ? k : k - open.log().size();
      List<Endpoint> chain = (log ? open.log() : open.stream()).get(c);
      List<Endpoint> serving = next.serving(open, log, c);
      assertThat(serving.size()).as("%s", history).isLessThanOrEqualTo(r);
      if (!chain.isEmpty()) {
        assertThat(serving)
            .as("a chain with replicas keeps one that serves: %s", history)
            .isNotEmpty();
      }
    }
    for (Endpoint d : before.draining()) {
      if (!next.removed().contains(d)) {
        assertThat(next.draining()).contains(d);
      } else {
        assertThat(next.retired()).as("a node leaving on request is retired").contains(d);
      }
    }
  }

  private static Endpoint pick(Random random, Set<Endpoint> from) {
    List<Endpoint> list = new ArrayList<>(from);
    list.sort(java.util.Comparator.comparing(Endpoint::toString));
    return list.get(random.nextInt(list.size()));
  }

  private static PingResponse done(long epoch) {
    return PingResponse.newBuilder()
        .setRebuild(RebuildProgress.newBuilder().setSinceEpoch(1).setDone(true).setEpoch(epoch))
        .build();
  }
}
