package io.vcorfu.collections.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

class PersistentSequenceTest {
  private static final Logger LOG = LoggerFactory.getLogger(PersistentSequenceTest.class);

  @ParameterizedTest
  @ValueSource(longs = {1L, 77L, 20261122L})
  void randomUpdatesMatchArrayListAndKeepEveryOldVersionIntact(long seed) {
    LOG.info("seed {}", seed);
    Random random = new Random(seed);
    PersistentSequence<Integer> seq = PersistentSequence.empty();
    List<Integer> model = new ArrayList<>();
    List<PersistentSequence<Integer>> versions = new ArrayList<>();
    List<List<Integer>> expected = new ArrayList<>();
    for (int step = 0; step < 4_000; step++) {
      int op = random.nextInt(10);
      int v = random.nextInt(1000);
      if (op < 4 || model.isEmpty()) {
        int i = random.nextInt(model.size() + 1);
        seq = seq.insert(i, v);
        model.add(i, v);
      } else if (op < 7) {
        int i = random.nextInt(model.size());
        seq = seq.delete(i);
        model.remove(i);
      } else if (op < 9) {
        int i = random.nextInt(model.size());
        seq = seq.with(i, v);
        model.set(i, v);
      } else {
        int from = random.nextInt(model.size() + 1);
        int to = from + random.nextInt(model.size() - from + 1);
        seq = seq.deleteRange(from, to);
        model.subList(from, to).clear();
      }
      if (step % 97 == 0) {
        versions.add(seq);
        expected.add(new ArrayList<>(model));
      }
      assertThat(seq.size()).isEqualTo(model.size());
    }
    seq.checkInvariants();
    assertThat(seq).containsExactlyElementsOf(model);
    for (int k = 0; k < versions.size(); k++) {
      versions.get(k).checkInvariants();
      assertThat(versions.get(k)).containsExactlyElementsOf(expected.get(k));
    }
  }

  @Test
  void heightStaysLogarithmicWhenGrowingAtOneEnd() {
    PersistentSequence<Integer> seq = PersistentSequence.empty();
    for (int i = 0; i < 100_000; i++) {
      seq = seq.insert(seq.size(), i);
    }
    seq.checkInvariants();
    // AVL bound: height < 1.45 log2(n + 2).
    assertThat(seq.height()).isLessThanOrEqualTo((int) (1.45 * (Math.log(100_002) / Math.log(2))));
    assertThat(seq.get(99_999)).isEqualTo(99_999);
  }

  @Test
  void copyOfBuildsABalancedTreeAndIteratesFromAnyIndex() {
    List<Integer> source = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      source.add(i);
    }
    PersistentSequence<Integer> seq = PersistentSequence.copyOf(source);
    seq.checkInvariants();
    assertThat(PersistentSequence.copyOf(seq)).isSameAs(seq);
    for (int start : new int[] {0, 1, 500, 999, 1000}) {
      List<Integer> seen = new ArrayList<>();
      seq.iterator(start).forEachRemaining(seen::add);
      assertThat(seen).isEqualTo(source.subList(start, 1000));
    }
    List<Integer> backwards = new ArrayList<>();
    seq.descendingIterator().forEachRemaining(backwards::add);
    assertThat(backwards).hasSize(1000).startsWith(999, 998).endsWith(1, 0);
  }

  @Test
  void isAReadOnlyListThatEqualsAnyListWithTheSameElements() {
    PersistentSequence<String> seq =
        PersistentSequence.<String>empty().insert(0, "a").insert(1, "b").insert(1, "a");
    assertThat(seq).isEqualTo(List.of("a", "a", "b"));
    assertThat(List.of("a", "a", "b")).isEqualTo(seq);
    assertThat(seq.hashCode()).isEqualTo(List.of("a", "a", "b").hashCode());
    assertThat(seq.indexOf("a")).isZero();
    assertThat(seq.lastIndexOf("a")).isEqualTo(1);
    assertThat(seq.contains("c")).isFalse();
    assertThatThrownBy(() -> seq.add("c")).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> seq.get(3)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> seq.insert(4, "x")).isInstanceOf(IndexOutOfBoundsException.class);
    Iterator<String> it = PersistentSequence.<String>empty().iterator();
    assertThat(it.hasNext()).isFalse();
  }
}
