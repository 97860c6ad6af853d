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

/**
 * Growth: a new node takes a share of the stream chains as a rebuilding replica, and its promotion
 * takes one other member out of each such chain and stripes the log over every node.
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
  void threeNodesWithThreeReplicasGrowToFour() {
    Layout three = LayoutChanges.initial("c", List.of(A, B, C), 3);

    Layout joined = LayoutChanges.withGrowth(three, D, 40);

    assertThat(joined.epoch()).isEqualTo(2);
    assertThat(joined.rebuilding()).isEqualTo(Map.of(D, 2L));
    assertThat(joined.segments()).hasSize(2);
    assertThat(joined.segments().get(0).end()).isEqualTo(40);
    Segment open = joined.currentSegment();
    assertThat(open.start()).isEqualTo(40);
    assertThat(open.log()).isEqualTo(three.currentSegment().log());
    // floor(3 chains * 3 replicas / 4 nodes) = 2 chains, D at the head of each.
    assertThat(open.stream()).filteredOn(c -> c.contains(D)).hasSize(2);
    assertThat(open.stream())
        .filteredOn(c -> c.contains(D))
        .allSatisfy(c -> assertThat(c).hasSize(4).first().isEqualTo(D));
    assertThat(LayoutChanges.underReplicated(joined)).isEmpty();
    assertThat(Layout.fromJson(joined.toJson())).isEqualTo(joined);

    Layout grown = LayoutChanges.promoted(joined, D, 90);

    assertThat(grown.epoch()).isEqualTo(3);
    assertThat(grown.rebuilding()).isEmpty();
    assertThat(grown.segments()).hasSize(3);
    assertThat(grown.segments().get(1).end()).isEqualTo(90);
    Segment last = grown.currentSegment();
    assertThat(last.start()).isEqualTo(90);
    assertThat(last.log())
        .containsExactly(List.of(A, B, C), List.of(B, C, D), List.of(C, D, A), List.of(D, A, B));
    assertThat(last.stream()).hasSize(3).allSatisfy(c -> assertThat(c).hasSize(3));
    Map<Endpoint, Integer> places = places(last.stream());
    assertThat(places.get(D)).isEqualTo(2);
    assertThat(places.values()).allSatisfy(n -> assertThat(n).isBetween(2, 3));
    assertThat(Layout.fromJson(grown.toJson())).isEqualTo(grown);
  }

  @Test
  void aGrowingNodeThatCanTakeNoStreamChainServesTheLogAtOnce() {
    // R = 1, three chains of one: floor(3 / 4) = 0 stream chains for the fourth node.
    Layout three = LayoutChanges.initial("c", List.of(A, B, C), 1);

    Layout grown = LayoutChanges.withGrowth(three, D, 7);

    assertThat(grown.rebuilding()).isEmpty();
    assertThat(grown.currentSegment().start()).isEqualTo(7);
    assertThat(grown.currentSegment().log())
        .containsExactly(List.of(A), List.of(B), List.of(C), List.of(D));
    assertThat(grown.currentSegment().stream()).isEqualTo(three.currentSegment().stream());
    assertThat(grown.segments().get(0).log()).isEqualTo(three.currentSegment().log());
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
   * chain wrote); streams never change chains; every chain ends with R replicas; every node ends in
   * exactly R log chains of the newest segment and the stream places differ by at most one;
   * addresses of closed segments keep their chains.
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
      assertThat(joined.currentSegment().stream()).hasSameSizeAs(before.currentSegment().stream());
      Layout grown =
          joined.isRebuilding(fresh) ? LayoutChanges.promoted(joined, fresh, next) : joined;
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

  /** Each chain of {@code after} is {@code before}'s chain with {@code fresh} maybe put first. */
  private static void assertKeepsOrder(
      List<List<Endpoint>> before, List<List<Endpoint>> after, Endpoint fresh) {
    for (int c = 0; c < before.size(); c++) {
      List<Endpoint> candidates = new ArrayList<>();
      candidates.add(fresh);
      candidates.addAll(before.get(c));
      assertThat(isSubsequence(after.get(c), candidates))
          .as("chain %d %s -> %s keeps its order", c, before.get(c), after.get(c))
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
