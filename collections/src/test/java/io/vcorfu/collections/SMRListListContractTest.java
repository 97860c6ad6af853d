package io.vcorfu.collections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.collections.Harness.Outcome;
import io.vcorfu.runtime.ReadOnlyViewException;
import io.vcorfu.runtime.VCorfuRuntime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.ConcurrentModificationException;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.ListIterator;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The {@link List} contract, checked on {@link SMRList} through two clients of one log. */
class SMRListListContractTest {
  private static final Logger LOG = LoggerFactory.getLogger(SMRListListContractTest.class);

  private final Harness harness = new Harness();
  private final String name = "list-" + UUID.randomUUID();

  @AfterEach
  void close() {
    harness.close();
  }

  @ParameterizedTest
  @ValueSource(longs = {1L, 42L, 20261122L})
  void randomListOperationsThroughTwoClientsMatchArrayList(long seed) {
    LOG.info("seed {}", seed);
    Random random = new Random(seed);
    List<SMRList<Integer>> clients =
        List.of(Harness.list(harness.runtime(), name), Harness.list(harness.runtime(), name));
    List<Integer> model = new ArrayList<>();
    for (int step = 0; step < 300; step++) {
      SMRList<Integer> list = clients.get(random.nextInt(2));
      int op = random.nextInt(22);
      int e = random.nextInt(12);
      int i = random.nextInt(model.size() + 3) - 1;
      long order = random.nextLong();
      String what = "step " + step + " op " + op + " e " + e + " i " + i;
      assertThat(apply(list, op, e, i, order)).as(what).isEqualTo(apply(model, op, e, i, order));
      if (step % 25 == 0) {
        for (SMRList<Integer> c : clients) {
          assertThat(c).as(what).containsExactlyElementsOf(model);
          assertThat(c.size()).isEqualTo(model.size());
          assertThat(c.hashCode()).isEqualTo(model.hashCode());
          assertThat(c).isEqualTo(model);
          assertThat(c.toString()).isEqualTo(model.toString());
        }
      }
    }
    assertThat(clients.get(0)).isEqualTo(clients.get(1)).isEqualTo(model);
  }

  /**
   * Runs operation {@code op} on {@code list}; the same arguments give the same outcome on a
   * correct list.
   */
  private static Outcome apply(List<Integer> list, int op, int e, int i, long seed) {
    switch (op) {
      case 0:
      case 1:
      case 2:
        return Outcome.of(() -> list.add(e));
      case 3:
      case 4:
        return Outcome.of(
            () -> {
              list.add(i, e);
              return null;
            });
      case 5:
        return Outcome.of(() -> list.set(i, e));
      case 6:
        return Outcome.of(() -> list.remove(i));
      case 7:
        return Outcome.of(() -> list.remove(Integer.valueOf(e)));
      case 8:
        return Outcome.of(() -> list.get(i));
      case 9:
        return Outcome.of(() -> List.of(list.indexOf(e), list.lastIndexOf(e), list.contains(e)));
      case 10:
        return Outcome.of(() -> list.addAll(List.of(e, e + 1, e + 2)));
      case 11:
        return Outcome.of(() -> list.addAll(i, List.of(e, e + 3)));
      case 12:
        return Outcome.of(() -> list.removeAll(Set.of(e, e + 1)));
      case 13:
        return Outcome.of(() -> list.retainAll(range(e, e + 9)));
      case 14:
        return Outcome.of(() -> list.removeIf(x -> x % 5 == e % 5));
      case 15:
        return Outcome.of(
            () -> {
              list.subList(Math.max(0, i), Math.min(list.size(), Math.max(0, i) + 2)).clear();
              return null;
            });
      case 16:
        return Outcome.of(
            () -> {
              // Remove every element equal to e through the iterator.
              for (Iterator<Integer> it = list.iterator(); it.hasNext(); ) {
                if (it.next() == e) {
                  it.remove();
                }
              }
              return null;
            });
      case 17:
        return Outcome.of(
            () -> {
              // Insert e after each element below e, and double those above it, through a list
              // iterator.
              for (ListIterator<Integer> it = list.listIterator(); it.hasNext(); ) {
                int x = it.next();
                if (x < e) {
                  it.add(e);
                } else if (x > e && x < 1000) {
                  it.set(x * 2);
                }
              }
              return null;
            });
      case 18:
        return Outcome.of(
            () -> {
              list.replaceAll(x -> (x + e) % 17);
              return null;
            });
      case 19:
        return Outcome.of(
            () -> {
              list.sort(seed % 2 == 0 ? null : Comparator.reverseOrder());
              return null;
            });
      case 20:
        return Outcome.of(() -> List.copyOf(list.subList(Math.max(0, i), list.size())));
      default:
        return Outcome.of(
            () -> {
              if (e == 0) {
                list.clear();
              }
              return list.isEmpty();
            });
    }
  }

  private static Set<Integer> range(int from, int to) {
    Set<Integer> s = new HashSet<>();
    for (int x = from; x < to; x++) {
      s.add(x);
    }
    return s;
  }

  @Test
  void equalsAndHashCodeFollowTheListContract() {
    SMRList<String> list = Harness.list(harness.runtime(), name);
    SMRList<String> other = Harness.list(harness.runtime(), name + "-other");
    assertThat(list).isEqualTo(List.of()).isEqualTo(other);
    list.addAll(List.of("a", "b", "a"));
    other.addAll(List.of("a", "b", "a"));
    assertThat(list.equals(List.of("a", "b", "a"))).isTrue();
    assertThat(new ArrayList<>(List.of("a", "b", "a")).equals(list)).isTrue();
    assertThat(list.equals(other)).isTrue();
    assertThat(other.equals(list)).isTrue();
    assertThat(list.hashCode())
        .isEqualTo(List.of("a", "b", "a").hashCode())
        .isEqualTo(other.hashCode());
    assertThat(list.equals(List.of("a", "a", "b"))).isFalse();
    assertThat(list.equals(List.of("a", "b"))).isFalse();
    assertThat(list.equals(Set.of("a", "b"))).isFalse();
    assertThat(list.equals(null)).isFalse();
    assertThat(list.subList(0, 2)).isEqualTo(List.of("a", "b"));
    assertThat(list.subList(0, 2).hashCode()).isEqualTo(List.of("a", "b").hashCode());
  }

  @Test
  void nullsAreRefusedWithNullPointerExceptionAndNothingIsWritten() {
    SMRList<String> list = Harness.list(harness.runtime(), name);
    list.add("x");
    assertThatThrownBy(() -> list.add(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> list.add(0, null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> list.set(0, null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> list.addAll(Arrays.asList("y", null)))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> list.addAll(0, Arrays.asList(null, "y")))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> list.replaceAll(x -> null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> list.listIterator().add(null))
        .isInstanceOf(NullPointerException.class);
    assertThat(list.contains(null)).isFalse();
    assertThat(list.indexOf(null)).isEqualTo(-1);
    assertThat(list.lastIndexOf(null)).isEqualTo(-1);
    assertThat(list.remove(null)).isFalse();
    assertThat(Harness.list(harness.runtime(), name)).containsExactly("x");
  }

  @Test
  void indexUpdatesAreValidatedAtTheirLogPositionAndThrowToTheCaller() {
    SMRList<String> stale = Harness.list(harness.runtime(), name);
    assertThat(stale).isEmpty();
    SMRList<String> writer = Harness.list(harness.runtime(), name);
    writer.addAll(List.of("a", "b", "c"));
    // The first client has not read since: the index is judged at the update's log position.
    assertThat(stale.set(2, "C")).isEqualTo("c");
    stale.add(3, "d");
    assertThat(stale.remove(0)).isEqualTo("a");
    assertThatThrownBy(() -> stale.set(3, "x")).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> stale.add(4, "x")).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> stale.add(-1, "x")).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> stale.remove(3)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> stale.addAll(5, List.of("x")))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> stale.get(3)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThat(writer).containsExactly("b", "C", "d");
  }

  @Test
  void iteratorsReadTheirVersionAndWriteThroughOnlyOntoIt() {
    SMRList<String> list = Harness.list(harness.runtime(), name);
    SMRList<String> other = Harness.list(harness.runtime(), name);
    list.addAll(List.of("a", "b", "c", "d"));
    Iterator<String> it = list.iterator();
    assertThat(it.next()).isEqualTo("a");
    it.remove();
    assertThat(it.next()).isEqualTo("b");
    assertThat(other).containsExactly("b", "c", "d");

    other.add("e");
    List<String> rest = new ArrayList<>();
    it.forEachRemaining(rest::add);
    assertThat(rest).as("the iterator keeps reading its version").containsExactly("c", "d");
    assertThatThrownBy(it::remove).isInstanceOf(ConcurrentModificationException.class);
    assertThat(other).containsExactly("b", "c", "d", "e");

    ListIterator<String> li = list.listIterator(1);
    assertThat(li.previousIndex()).isZero();
    assertThat(li.next()).isEqualTo("c");
    li.set("C");
    li.add("c2");
    assertThat(li.previous()).isEqualTo("c2");
    assertThat(other).containsExactly("b", "C", "c2", "d", "e");
    assertThatThrownBy(() -> list.listIterator(6)).isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  void subListsAreWindowsOfOneVersionWithWritesThrough() {
    SMRList<Integer> list = Harness.list(harness.runtime(), name);
    SMRList<Integer> other = Harness.list(harness.runtime(), name);
    list.addAll(List.of(0, 1, 2, 3, 4, 5, 6, 7));
    List<Integer> sub = list.subList(2, 6);
    assertThat(sub).containsExactly(2, 3, 4, 5);
    sub.remove(Integer.valueOf(3));
    sub.add(9);
    List<Integer> inner = sub.subList(1, 3);
    inner.set(0, 40);
    inner.clear();
    assertThat(sub).containsExactly(2, 9);
    assertThat(other).containsExactly(0, 1, 2, 9, 6, 7);
    assertThatThrownBy(() -> list.subList(3, 2)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> list.subList(0, 7)).isInstanceOf(IndexOutOfBoundsException.class);

    other.add(8);
    assertThat(sub).as("reads stay on the version").containsExactly(2, 9);
    assertThatThrownBy(sub::clear).isInstanceOf(ConcurrentModificationException.class);
    assertThat(list).containsExactly(0, 1, 2, 9, 6, 7, 8);
  }

  @Test
  void bulkUpdatesApplyAtomicallyOntoTheVersionTheyEvaluated() {
    SMRList<Integer> list = Harness.list(harness.runtime(), name);
    list.addAll(List.of(5, 3, 8, 1, 9, 2));
    assertThat(list.removeIf(x -> x > 7)).isTrue();
    assertThat(list.removeIf(x -> x > 100)).isFalse();
    list.sort(null);
    assertThat(list).containsExactly(1, 2, 3, 5);
    list.replaceAll(x -> x * 10);
    assertThat(list.retainAll(List.of(10, 30))).isTrue();
    assertThat(list.removeAll(List.of(77))).isFalse();
    assertThat(list.containsAll(List.of(10, 30))).isTrue();
    assertThat(list.toArray()).containsExactly(10, 30);
    Integer[] big = new Integer[] {7, 7, 7};
    assertThat(list.toArray(big)).isSameAs(big).containsExactly(10, 30, null);
    assertThat(list.toArray(new Integer[0])).containsExactly(10, 30);
    assertThat(list.stream().mapToInt(Integer::intValue).sum()).isEqualTo(40);
  }

  @Test
  void readsInATransactionSeeOneVersion() throws Exception {
    VCorfuRuntime rt = harness.runtime();
    SMRList<Integer> list = Harness.list(rt, name);
    SMRList<Integer> other = Harness.list(harness.runtime(), name);
    list.addAll(List.of(1, 2, 3));
    rt.TXBegin();
    try {
      assertThat(list.size()).isEqualTo(3);
      other.add(4);
      other.remove(0);
      assertThat(list.get(0)).isEqualTo(1);
      assertThat(list).containsExactly(1, 2, 3);
      list.add(10);
      assertThat(list).containsExactly(1, 2, 3, 10);
    } finally {
      rt.TXAbort();
    }
    assertThat(list).containsExactly(2, 3, 4);
  }

  @Test
  void snapshotViewsShowEarlierVersionsAndAreReadOnly() {
    VCorfuRuntime rt = harness.runtime();
    SMRList<String> list = Harness.list(rt, name);
    list.addAll(List.of("a", "b"));
    long first = tail(rt);
    list.remove(0);
    list.add("c");
    long second = tail(rt);
    list.clear();
    @SuppressWarnings("unchecked")
    SMRList<String> atFirst = rt.objects().builder(name, SMRList.class).asOf(first).open();
    @SuppressWarnings("unchecked")
    SMRList<String> atSecond =
        harness.runtime().objects().builder(name, SMRList.class).asOf(second).open();
    assertThat(atFirst).containsExactly("a", "b");
    assertThat(atSecond).containsExactly("b", "c");
    assertThat(list).isEmpty();
    assertThatThrownBy(() -> atFirst.pollFirst()).isInstanceOf(ReadOnlyViewException.class);
  }

  /** The global address of the last write (the snapshot a transaction begun now would take). */
  private static long tail(VCorfuRuntime rt) {
    rt.TXBegin();
    return rt.TXEnd();
  }
}
