package io.vcorfu.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.protocol.Endpoint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Growth: a new node takes a share of the stream chains as a rebuilding replica (the chains split
 * in two first when there would be more nodes than chains), and its promotion takes one other
 * member out of each such chain and stripes the log over every node.
 */
class LayoutGrowthTest {
  static final Endpoint A = new Endpoint("10.0.0.1", 9000);
  static final Endpoint B = new Endpoint("10.0.0.2", 9000);
  static final Endpoint C = new Endpoint("10.0.0.3", 9000);
  static final Endpoint D = new Endpoint("10.0.0.4", 9000);

  private static Endpoint node(int i) {
    return new Endpoint("10.0.1." + (i + 1), 9000);
  }

  @Test
  void threeNodesWithThreeReplicasGrowToFourBySplittingEveryStreamChain() {
    Layout three = LayoutChanges.initial("c", List.of(A, B, C), 3);

    Layout joined = LayoutChanges.withGrowth(three, D, 40);

    assertThat(joined.epoch()).isEqualTo(2);
    assertThat(joined.rebuilding()).isEqualTo(Map.of(D, 2L));
    assertThat(joined.segments()).hasSize(2);
    assertThat(joined.segments().get(0).end()).isEqualTo(40);
    Segment open = joined.currentSegment();
    assertThat(open.start()).isEqualTo(40);
    assertThat(open.log()).isEqualTo(three.currentSegment().log());
    // Four nodes, three stream chains: each splits in two (chain i + 3 is chain i's child).
    assertThat(joined.streamSplits()).isEqualTo(1);
    assertThat(open.stream()).hasSize(6);
    for (int c = 0; c < 6; c++) {
      List<Endpoint> parent = three.currentSegment().stream().get(c % 3);
      assertThat(joined.servingStream(c)).isEqualTo(parent);
    }
    // floor(6 chains * 3 replicas / 4 nodes) = 4 chains, D at the head of each.
    assertThat(open.stream()).filteredOn(c -> c.contains(D)).hasSize(4);
    assertThat(open.stream())
        .filteredOn(c -> c.contains(D))
        .allSatisfy(c -> assertThat(c).hasSize(4).first().isEqualTo(D));
    assertThat(LayoutChanges.underReplicated(joined)).isEmpty();
    assertThat(Layout.fromJson(joined.toJson())).isEqualTo(joined);
    assertThat(joined.toJson()).contains("\"streamSplits\"");

    Layout grown = LayoutChanges.promoted(joined, D, 90);

    assertThat(grown.epoch()).isEqualTo(3);
    assertThat(grown.rebuilding()).isEmpty();
    assertThat(grown.streamSplits()).isEqualTo(1);
    assertThat(grown.segments()).hasSize(3);
    assertThat(grown.segments().get(1).end()).isEqualTo(90);
    Segment last = grown.currentSegment();
    assertThat(last.start()).isEqualTo(90);
    assertThat(last.log())
        .containsExactly(List.of(A, B, C), List.of(B, C, D), List.of(C, D, A), List.of(D, A, B));
    assertThat(last.stream()).hasSize(6).allSatisfy(c -> assertThat(c).hasSize(3));
    Map<Endpoint, Integer> places = places(last.stream());
    assertThat(places.get(D)).isEqualTo(4);
    assertThat(places.values()).allSatisfy(n -> assertThat(n).isBetween(4, 5));
    assertThat(Layout.fromJson(grown.toJson())).isEqualTo(grown);
  }

  @Test
  void withOneReplicaASplitHandsTheNewNodeWholeChains() {
    Layout three = LayoutChanges.initial("c", List.of(A, B, C), 1);

    Layout joined = LayoutChanges.withGrowth(three, D, 7);

    // Six chains of one; floor(6 / 4) = 1 of them gets D at its head, then D alone.
    assertThat(joined.currentSegment().stream()).hasSize(6);
    assertThat(joined.currentSegment().stream()).filteredOn(c -> c.contains(D)).hasSize(1);
    Layout grown = LayoutChanges.promoted(joined, D, 9);
    assertThat(grown.currentSegment().stream()).contains(List.of(D));
    assertThat(grown.currentSegment().log())
        .containsExactly(List.of(A), List.of(B), List.of(C), List.of(D));
    assertThat(grown.segments().get(0).log()).isEqualTo(three.currentSegment().log());
  }

  @Test
  void enoughStreamChainsMeanNoSplit() {
    Layout three = LayoutChanges.initial("c", List.of(A, B, C), 3, 12);

    Layout joined = LayoutChanges.withGrowth(three, D, 7);

    assertThat(joined.streamSplits()).isZero();
    assertThat(joined.currentSegment().stream()).hasSize(12);
    assertThat(joined.toJson()).doesNotContain("streamSplits");
  }

  /** Every later change (a removal, a heal, a drain, another growth) keeps the splits made. */
  @Test
  void laterChangesKeepTheSplits() {
    Layout grown =
        LayoutChanges.promoted(
            LayoutChanges.withGrowth(LayoutChanges.initial("c", List.of(A, B, C), 3), D, 10),
            D,
            20);
    assertThat(grown.streamSplits()).isEqualTo(1);
    Endpoint e = new Endpoint("10.0.0.5", 9000);
    Endpoint f = new Endpoint("10.0.0.6", 9000);

    Layout shrunk = LayoutChanges.withoutNode(grown, B, 30);
    Layout healing = LayoutChanges.withRebuilding(shrunk, e, 40);
    Layout healed = LayoutChanges.promoted(healing, e);
    Layout draining = LayoutChanges.withReplacement(healed, A, f, 50);
    Layout drained = LayoutChanges.promoted(draining, f, 60);
    for (Layout l : List.of(shrunk, healing, healed, draining, drained)) {
      assertThat(l.streamSplits()).as("epoch %d", l.epoch()).isEqualTo(1);
      assertThat(l.currentSegment().stream()).hasSize(6);
      assertThat(Layout.fromJson(l.toJson())).isEqualTo(l);
    }
    // Six chains for five nodes: the next growth does not split again, the one after does.
    Endpoint g = new Endpoint("10.0.0.7", 9000);
    Layout five = LayoutChanges.promoted(LayoutChanges.withGrowth(drained, g, 70), g, 80);
    assertThat(five.streamSplits()).isEqualTo(1);
    Endpoint h = new Endpoint("10.0.0.8", 9000);
    Layout six = LayoutChanges.promoted(LayoutChanges.withGrowth(five, h, 90), h, 100);
    assertThat(six.streamSplits()).isEqualTo(1);
    Endpoint i = new Endpoint("10.0.0.9", 9000);
    Layout seven = LayoutChanges.withGrowth(six, i, 110);
    assertThat(seven.streamSplits()).isEqualTo(2);
    assertThat(seven.currentSegment().stream()).hasSize(12);
  }

  /**
   * A split never reorders two streams' chains in a plan: for every pair of chains after a split
   * whose parents differ, the order is their parents' order; a child comes right after its parent;
   * and with no split the order is the index order. Checked through two, three and four splits of
   * one to five root chains.
   */
  @ParameterizedTest(name = "{0} root chains")
  @ValueSource(ints = {1, 2, 3, 4, 5})
  void splitsKeepTheChainOrder(int roots) {
    List<Endpoint> nodes = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      nodes.add(node(i));
    }
    Layout layout = LayoutChanges.initial("c", nodes.subList(0, roots), 1, roots);
    java.util.Comparator<Integer> before = layout.streamChainOrder();
    for (int a = 0; a < roots; a++) {
      for (int b = 0; b < roots; b++) {
        assertThat(Integer.signum(before.compare(a, b))).isEqualTo(Integer.signum(a - b));
      }
    }
    int members = roots;
    for (int split = 1; split <= 4; split++) {
      int p = layout.currentSegment().stream().size();
      // Grow until the next split happens.
      Layout grown = layout;
      while (grown.streamSplits() < split) {
        Endpoint fresh = nodes.get(members++);
        Layout joined = LayoutChanges.withGrowth(grown, fresh, 0);
        grown = LayoutChanges.promoted(joined, fresh, 0);
      }
      assertThat(grown.currentSegment().stream()).hasSize(2 * p);
      java.util.Comparator<Integer> after = grown.streamChainOrder();
      for (int a = 0; a < 2 * p; a++) {
        for (int b = 0; b < 2 * p; b++) {
          if (a % p != b % p) {
            assertThat(Integer.signum(after.compare(a, b)))
                .as("chains %d and %d of %d after split %d", a, b, 2 * p, split)
                .isEqualTo(Integer.signum(before.compare(a % p, b % p)));
          }
        }
        if (a < p) {
          assertThat(after.compare(a, a + p)).as("parent %d before child", a).isNegative();
        }
      }
      layout = grown;
      before = after;
    }
  }

  /**
   * Entries of one to three streams keep their deciding replica through a split (its last replica
   * is the parent's), and every stream's chain after the split is served by the members that held
   * it before.
   */
  @Test
  void aSplitKeepsEveryEntrysDeciderAndEveryStreamsReplicas() {
    Layout three = LayoutChanges.initial("c", List.of(A, B, C), 2);
    Layout joined = LayoutChanges.withGrowth(three, D, 10);
    java.util.Random random = new java.util.Random(20261127L);
    for (int i = 0; i < 2000; i++) {
      List<io.vcorfu.protocol.StreamId> streams = new ArrayList<>();
      int n = 1 + random.nextInt(3);
      while (streams.size() < n) {
        io.vcorfu.protocol.StreamId s = io.vcorfu.protocol.StreamId.of("s" + random.nextInt(500));
        if (!streams.contains(s)) {
          streams.add(s);
        }
      }
      long g = 10 + random.nextInt(1000);
      ChainPlan old = ChainPlan.of(three, g, streams);
      ChainPlan now = ChainPlan.of(joined, g, streams);
      assertThat(now.last().endpoint())
          .as("decider of %s", streams)
          .isEqualTo(old.last().endpoint());
      for (io.vcorfu.protocol.StreamId s : streams) {
        assertThat(joined.servingStream(joined.streamChainIndex(s)))
            .isEqualTo(three.streamChain(s));
      }
    }
  }

  /**
   * A node failing while a growing node copies (five nodes, R = 3, a sixth growing): the change
   * that removes it opens a segment whose chains list the growing node too, some with R + 1 members
   * (the failed node was not in all of them). The promotion gives up a member of every chain over
   * R, in that segment too, so every chain of every segment ends with R.
   */
  @ParameterizedTest(name = "node {0} fails mid-copy")
  @org.junit.jupiter.params.provider.ValueSource(ints = {0, 1, 2, 3, 4})
  void aFailureDuringTheCopyLeavesNoChainOverRAfterThePromotion(int dead) {
    List<Endpoint> nodes = new java.util.ArrayList<>();
    for (int i = 0; i < 5; i++) {
      nodes.add(node(i));
    }
    Layout five = LayoutChanges.initial("c", nodes, 3);
    Endpoint fresh = node(9);
    Layout joined = LayoutChanges.withGrowth(five, fresh, 100);
    Layout failed = LayoutChanges.withoutNode(joined, node(dead), 200);
    assertThat(failed.segments()).hasSize(3);
    Layout promoted = LayoutChanges.promoted(failed, fresh, 300);
    assertThat(Layout.fromJson(promoted.toJson())).isEqualTo(promoted);
    for (Segment seg : promoted.segments()) {
      for (List<Endpoint> chain : seg.stream()) {
        assertThat(chain.size()).as("segment %d: %s", seg.start(), chain).isLessThanOrEqualTo(3);
      }
      for (List<Endpoint> chain : seg.log()) {
        assertThat(chain.size()).as("segment %d: %s", seg.start(), chain).isLessThanOrEqualTo(3);
      }
    }
    // The chains the failure left over R give one member up and keep the growing node.
    Segment during = failed.segments().get(1);
    Segment after = promoted.segments().get(1);
    int over = 0;
    for (int c = 0; c < during.stream().size(); c++) {
      List<Endpoint> was = during.stream().get(c);
      List<Endpoint> now = after.stream().get(c);
      if (was.size() > 3) {
        over++;
        assertThat(now).hasSize(3).contains(fresh);
        assertThat(was).containsAll(now);
      }
    }
    assertThat(over).as("chains the failed node was not in").isPositive();
  }

  @Test
  void growthIsRefusedWhileAReplicaRebuildsOrAChainLacksOne() {
    Layout three = LayoutChanges.initial("c", List.of(A, B, C), 3);
    Layout joined = LayoutChanges.withGrowth(three, D, 40);
    Endpoint e = new Endpoint("10.0.0.5", 9000);
    assertThatThrownBy(() -> LayoutChanges.withGrowth(joined, e, 50))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("rebuilding");
    Layout shrunk = LayoutChanges.withoutNode(three, C, 10);
    assertThatThrownBy(() -> LayoutChanges.withGrowth(shrunk, D, 50))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lack a replica");
    assertThatThrownBy(() -> LayoutChanges.withGrowth(three, B, 50))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("already");
    // The promotion of a growing node needs the new segment's start.
    assertThatThrownBy(() -> LayoutChanges.promoted(joined, D))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("stripes the log");
  }

  @Test
  void aChainLongerThanRIsValidOnlyWhileTheExtraReplicaRebuilds() {
    Layout joined = LayoutChanges.withGrowth(LayoutChanges.initial("c", List.of(A, B, C), 3), D, 4);
    String json = joined.toJson();
    // The same document with D no longer rebuilding: a chain of four serving replicas, R = 3.
    String promotedByHand = json.replaceAll(",\\s*\"rebuilding\"\\s*:\\s*\\{[^}]*\\}", "");
    assertThat(promotedByHand).isNotEqualTo(json);
    assertThatThrownBy(() -> Layout.fromJson(promotedByHand))
        .isInstanceOf(LayoutException.class)
        .hasMessageContaining("has 4 replicas, more than the layout's replication 3");
  }

  static Stream<Arguments> sizes() {
    return IntStream.rangeClosed(1, 7)
        .boxed()
        .flatMap(
            n ->
                IntStream.rangeClosed(1, Math.min(n, 3))
                    .boxed()
                    .flatMap(r -> Stream.of(Arguments.of(n, r, n), Arguments.of(n, r, 4 * n))));
  }

  @Test
  void moreStreamChainsThanNodesRepeatTheRotationsAndLetMoreNodesHoldStreams() {
    Layout three = LayoutChanges.initial("c", List.of(A, B, C), 2, 6);
    assertThat(three.currentSegment().log()).hasSize(3);
    assertThat(three.currentSegment().stream())
        .containsExactly(
            List.of(A, B),
            List.of(B, C),
            List.of(C, A),
            List.of(A, B),
            List.of(B, C),
            List.of(C, A));
    // floor(6 * 2 / 4) = 3 places for a fourth node.
    Layout joined = LayoutChanges.withGrowth(three, D, 10);
    assertThat(joined.currentSegment().stream()).filteredOn(c -> c.contains(D)).hasSize(3);
    assertThatThrownBy(() -> LayoutChanges.initial("c", List.of(A), 1, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one stream chain");
  }

  /**
   * From N nodes with R replicas, three nodes join one after another (join, then promotion): every
   * layout is valid; a chain's survivors keep their order (so its last replica still holds what the
   * chain wrote); a split child holds its parent's members; every chain ends with R replicas; every
   * node ends in exactly R log chains of the newest segment and the stream places differ by at most
   * one; addresses of closed segments keep their chains.
   */
  @ParameterizedTest(name = "N = {0}, R = {1}, P = {2}")
  @MethodSource("sizes")
  void repeatedGrowthKeepsOrderPlacementAndBalance(int n, int r, int p) {
    List<Endpoint> nodes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      nodes.add(node(i));
    }
    Layout layout = LayoutChanges.initial("c", nodes, r, p);
    long next = 10;
    for (int added = 0; added < 3; added++) {
      Endpoint fresh = node(n + added);
      Layout before = layout;
      Layout joined = LayoutChanges.withGrowth(before, fresh, next);
      next += 10;
      assertKeepsOrder(before.currentSegment().stream(), joined.currentSegment().stream(), fresh);
      int chains = before.currentSegment().stream().size();
      int n1 = n + added + 1;
      assertThat(joined.currentSegment().stream()).hasSize(chains < n1 ? 2 * chains : chains);
      Layout grown = LayoutChanges.promoted(joined, fresh, next);
      next += 10;
      assertKeepsOrder(joined.currentSegment().stream(), grown.currentSegment().stream(), fresh);
      Segment current = grown.currentSegment();
      assertThat(current.stream()).allSatisfy(c -> assertThat(c).hasSize(r));
      List<Endpoint> members = new ArrayList<>(nodes);
      for (int i = 0; i <= added; i++) {
        members.add(node(n + i));
      }
      assertThat(current.log()).hasSize(members.size());
      Map<Endpoint, Integer> logPlaces = places(current.log());
      assertThat(logPlaces.keySet()).containsExactlyInAnyOrderElementsOf(members);
      assertThat(logPlaces.values()).allSatisfy(k -> assertThat(k).isEqualTo(r));
      Map<Endpoint, Integer> streamPlaces = places(current.stream());
      int max = streamPlaces.values().stream().max(Integer::compare).orElseThrow();
      int min = members.stream().mapToInt(e -> streamPlaces.getOrDefault(e, 0)).min().orElseThrow();
      assertThat(max - min).as("stream places %s", streamPlaces).isLessThanOrEqualTo(1);
      // Closed segments keep their log chains: an address never moves to another chain.
      for (int s = 0; s < before.segments().size() - 1; s++) {
        assertThat(grown.segments().get(s)).isEqualTo(before.segments().get(s));
      }
      assertThat(Layout.fromJson(grown.toJson())).isEqualTo(grown);
      layout = grown;
    }
  }

  /**
   * Each chain of {@code after} is {@code before}'s chain with {@code fresh} maybe put first (a
   * split's child, chain {@code c} of more chains than before, is compared with its parent, chain
   * {@code c mod P}).
   */
  private static void assertKeepsOrder(
      List<List<Endpoint>> before, List<List<Endpoint>> after, Endpoint fresh) {
    for (int c = 0; c < after.size(); c++) {
      List<Endpoint> candidates = new ArrayList<>();
      candidates.add(fresh);
      candidates.addAll(before.get(c % before.size()));
      assertThat(isSubsequence(after.get(c), candidates))
          .as("chain %d %s -> %s keeps its order", c, before.get(c % before.size()), after.get(c))
          .isTrue();
    }
  }

  private static boolean isSubsequence(List<Endpoint> sub, List<Endpoint> of) {
    int i = 0;
    for (Endpoint e : of) {
      if (i < sub.size() && sub.get(i).equals(e)) {
        i++;
      }
    }
    return i == sub.size();
  }

  private static Map<Endpoint, Integer> places(List<List<Endpoint>> chains) {
    Map<Endpoint, Integer> out = new HashMap<>();
    chains.forEach(c -> c.forEach(e -> out.merge(e, 1, Integer::sum)));
    return out;
  }
}
