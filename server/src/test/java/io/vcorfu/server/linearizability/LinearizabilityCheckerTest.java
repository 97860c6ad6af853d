package io.vcorfu.server.linearizability;

import static io.vcorfu.server.linearizability.Operation.PENDING;
import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.server.linearizability.LinearizabilityChecker.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The linearizability checker on small histories whose verdict is known, and against a brute-force
 * search over every order on random tiny histories.
 */
class LinearizabilityCheckerTest {
  private final LinearizabilityChecker checker = new LinearizabilityChecker();

  private static Operation get(String p, String value, long from, long to) {
    return Operation.get(p, "k", value, from, to);
  }

  private static Operation set(String p, String value, long from, long to) {
    return Operation.set(p, "k", value, from, to);
  }

  private Outcome check(Operation... ops) {
    return checker.check(List.of(ops)).outcome();
  }

  @Test
  void sequentialHistoriesAreLinearizableExactlyWhenEachGetSeesTheLatestSet() {
    assertThat(check(get("a", null, 0, 1), set("a", "x", 2, 3), get("b", "x", 4, 5)))
        .isEqualTo(Outcome.LINEARIZABLE);
    assertThat(check(set("a", "x", 0, 1), set("a", "y", 2, 3), get("b", "x", 4, 5)))
        .isEqualTo(Outcome.NOT_LINEARIZABLE);
    assertThat(check(set("a", "x", 0, 1), get("b", null, 2, 3)))
        .isEqualTo(Outcome.NOT_LINEARIZABLE);
  }

  @Test
  void concurrentOperationsMayTakeEffectInEitherOrder() {
    // set(y) overlaps both gets: the first may see x and the second y, or both x.
    assertThat(
            check(
                set("a", "x", 0, 1),
                set("a", "y", 2, 10),
                get("b", "x", 3, 4),
                get("c", "y", 5, 6)))
        .isEqualTo(Outcome.LINEARIZABLE);
    assertThat(
            check(
                set("a", "x", 0, 1),
                set("a", "y", 2, 10),
                get("b", "y", 3, 4),
                get("c", "y", 5, 6)))
        .isEqualTo(Outcome.LINEARIZABLE);
    // Events at the same instant overlap.
    assertThat(check(set("a", "x", 0, 5), get("b", null, 5, 6))).isEqualTo(Outcome.LINEARIZABLE);
  }

  /**
   * The shape the issue found: a get returns w while set(w) is still running; a get that begins
   * after that get returned sees the value w replaced. Once one reader has seen w, everyone must.
   */
  @Test
  void aNewValueSeenByOneReaderCannotBeUnseenByALaterReader() {
    Operation old = set("p1", "old", 0, 1);
    Operation write = set("p1", "w", 2, 100);
    Operation first = get("p2", "w", 10, 20);
    Operation later = get("p3", "old", 21, 30);
    assertThat(check(old, write, first, later)).isEqualTo(Outcome.NOT_LINEARIZABLE);
    // Overlapping instead of after: fine.
    assertThat(check(old, write, first, get("p3", "old", 19, 30))).isEqualTo(Outcome.LINEARIZABLE);
    var result = checker.check(List.of(old, write, first, later));
    assertThat(result.summary()).contains("register k").contains("get() -> old").contains("set(w)");
  }

  @Test
  void aPendingSetMayTakeEffectAnyTimeAfterItsInvocationOrNever() {
    // Seen by a later read: it took effect.
    assertThat(check(set("a", "x", 0, 1), set("a", "y", 2, PENDING), get("b", "y", 50, 60)))
        .isEqualTo(Outcome.LINEARIZABLE);
    // Never seen: it may not have taken effect.
    assertThat(check(set("a", "x", 0, 1), set("a", "y", 2, PENDING), get("b", "x", 50, 60)))
        .isEqualTo(Outcome.LINEARIZABLE);
    // Seen, then unseen: not linearizable, pending or not.
    assertThat(
            check(
                set("a", "x", 0, 1),
                set("a", "y", 2, PENDING),
                get("b", "y", 50, 60),
                get("b", "x", 70, 80)))
        .isEqualTo(Outcome.NOT_LINEARIZABLE);
    // It cannot take effect before it was invoked.
    assertThat(check(get("b", "y", 0, 1), set("a", "y", 2, PENDING)))
        .isEqualTo(Outcome.NOT_LINEARIZABLE);
    // A pending get constrains nothing.
    assertThat(check(set("a", "x", 0, 1), get("b", "nonsense", 2, PENDING)))
        .isEqualTo(Outcome.LINEARIZABLE);
  }

  @Test
  void registersAreCheckedIndependently() {
    List<Operation> history =
        List.of(
            Operation.set("a", "k1", "x", 0, 1), Operation.get("b", "k2", null, 2, 3),
            Operation.get("b", "k1", "x", 4, 5), Operation.get("b", "k2", "x", 6, 7));
    var result = checker.check(history);
    assertThat(result.outcome()).isEqualTo(Outcome.NOT_LINEARIZABLE);
    assertThat(result.keys())
        .extracting(LinearizabilityChecker.KeyResult::outcome)
        .containsExactly(Outcome.LINEARIZABLE, Outcome.NOT_LINEARIZABLE);
  }

  @Test
  void historiesRoundTripThroughTheirTextForm() {
    for (Operation op :
        List.of(set("p-1", "v1", 3, 9), get("p-2", null, 4, 5), set("p", "v2", 7, PENDING))) {
      assertThat(Operation.parse(op.format())).isEqualTo(op);
    }
  }

  /**
   * A long history of eight sequential processes whose calls overlap is decided, thanks to the
   * memoization; the same history with one stale read is not linearizable.
   */
  @Test
  void aLongConcurrentHistoryIsDecided() {
    Random random = new Random(42);
    List<Operation> ops = new ArrayList<>();
    long[] free = new long[8];
    String value = null;
    long t = 0;
    // Each call takes effect at t, inside an interval around t that starts after its process's
    // previous call returned.
    for (int i = 0; i < 5_000; i++) {
      t += 1 + random.nextInt(3);
      int p = random.nextInt(8);
      if (free[p] >= t) {
        continue;
      }
      long from = Math.max(free[p], t - random.nextInt(20));
      long to = t + random.nextInt(20);
      free[p] = to + 1;
      if (random.nextBoolean()) {
        value = "v" + i;
        ops.add(set("p" + p, value, from, to));
      } else {
        ops.add(get("p" + p, value, from, to));
      }
    }
    // A read in the middle of the history that returns the first value set, overwritten long
    // before.
    Operation first =
        ops.stream().filter(o -> o.kind() == Operation.Kind.SET).findFirst().orElseThrow();
    Operation middle = ops.get(ops.size() / 2);
    Operation stale = get("p-stale", first.value(), middle.invoked(), middle.invoked() + 1);
    assertThat(checker.check(ops).outcome()).isEqualTo(Outcome.LINEARIZABLE);
    List<Operation> withStale = new ArrayList<>(ops);
    withStale.add(stale);
    assertThat(checker.check(withStale).outcome()).isEqualTo(Outcome.NOT_LINEARIZABLE);
  }

  static Stream<Long> seeds() {
    long base = System.nanoTime();
    return LongStream.range(0, 20).mapToObj(i -> base + i * 7919);
  }

  /** Random tiny histories: the checker agrees with trying every order. */
  @ParameterizedTest
  @MethodSource("seeds")
  void agreesWithABruteForceSearchOnTinyHistories(long seed) {
    System.out.println("agreesWithABruteForceSearchOnTinyHistories seed " + seed);
    Random random = new Random(seed);
    int linearizable = 0;
    for (int round = 0; round < 300; round++) {
      List<Operation> ops = randomHistory(random);
      boolean expected = BruteForce.linearizable(ops);
      Outcome actual = checker.check(ops).outcome();
      assertThat(actual)
          .as("seed %d round %d history %s", seed, round, ops)
          .isEqualTo(expected ? Outcome.LINEARIZABLE : Outcome.NOT_LINEARIZABLE);
      linearizable += expected ? 1 : 0;
    }
    assertThat(linearizable).as("both verdicts occur").isBetween(1, 299);
  }

  private static List<Operation> randomHistory(Random random) {
    int n = 1 + random.nextInt(7);
    List<Operation> ops = new ArrayList<>();
    List<String> values = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long from = random.nextInt(20);
      long to = random.nextInt(8) == 0 ? PENDING : from + random.nextInt(8);
      if (random.nextBoolean()) {
        String v = "v" + i;
        values.add(v);
        ops.add(set("p" + i, v, from, to));
      } else {
        ops.add(null);
        int at = ops.size() - 1;
        ops.set(at, get("p" + i, "?", from, to));
      }
    }
    // Gets return the initial value or a value some set writes.
    List<Operation> out = new ArrayList<>();
    for (Operation op : ops) {
      if (op.kind() == Operation.Kind.GET) {
        int pick = random.nextInt(values.size() + 1);
        out.add(
            get(
                op.process(),
                pick == values.size() ? null : values.get(pick),
                op.invoked(),
                op.returned()));
      } else {
        out.add(op);
      }
    }
    return out;
  }

  /** Tries every order of every subset of pending sets together with all completed operations. */
  static final class BruteForce {
    static boolean linearizable(List<Operation> history) {
      List<Operation> required = new ArrayList<>();
      List<Operation> optional = new ArrayList<>();
      for (Operation op : history) {
        if (!op.pending()) {
          required.add(op);
        } else if (op.kind() == Operation.Kind.SET) {
          optional.add(op);
        }
      }
      for (int mask = 0; mask < (1 << optional.size()); mask++) {
        List<Operation> ops = new ArrayList<>(required);
        for (int i = 0; i < optional.size(); i++) {
          if ((mask & (1 << i)) != 0) {
            ops.add(optional.get(i));
          }
        }
        if (anyOrder(ops, new ArrayList<>(), new boolean[ops.size()])) {
          return true;
        }
      }
      return false;
    }

    private static boolean anyOrder(List<Operation> ops, List<Operation> order, boolean[] used) {
      if (order.size() == ops.size()) {
        return legal(order);
      }
      for (int i = 0; i < ops.size(); i++) {
        if (used[i]) {
          continue;
        }
        Operation next = ops.get(i);
        // Real-time order: nothing placed already may have been invoked after next returned.
        if (order.stream().anyMatch(placed -> next.precedes(placed))) {
          continue;
        }
        used[i] = true;
        order.add(next);
        boolean ok = anyOrder(ops, order, used);
        order.remove(order.size() - 1);
        used[i] = false;
        if (ok) {
          return true;
        }
      }
      return false;
    }

    private static boolean legal(List<Operation> order) {
      String value = null;
      for (Operation op : order) {
        if (op.kind() == Operation.Kind.SET) {
          value = op.value();
        } else if (!Objects.equals(value, op.value())) {
          return false;
        }
      }
      return true;
    }
  }
}
