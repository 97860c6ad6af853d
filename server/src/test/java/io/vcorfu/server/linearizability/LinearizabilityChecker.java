package io.vcorfu.server.linearizability;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Decides whether a recorded history of register operations is linearizable: whether every
 * completed call can be given a point between its invocation and its return, and every pending call
 * a point after its invocation or none, such that the calls in that order are a legal sequential
 * run of registers (each get returns the value of the latest set before it, or the initial null).
 *
 * <p>Linearizability is compositional (Herlihy and Wing), so each register is checked on its own.
 * For one register this is the search of Wing and Gong: walk the history's call and return events
 * in time order; at a call, try to linearize that operation now (it must be legal in the current
 * state), removing its events; at a return of an operation not linearized yet, backtrack. Lowe's
 * improvement prunes it: a configuration (set of linearized operations, register value) already
 * explored is never explored again.
 *
 * <p>Pending operations: a pending get is dropped (it returned nothing, so it constrains nothing).
 * A pending set gets a return time after every event; linearizing it last is always legal and
 * changes no read, which is the same as the set never taking effect, so requiring every operation
 * to be linearized loses nothing.
 *
 * <p>Events at the same time count as concurrent (calls sort before returns).
 *
 * <p>Stateless and thread-safe.
 */
public final class LinearizabilityChecker {
  /** Search steps per register before giving up with {@link Outcome#UNKNOWN}. */
  public static final long DEFAULT_STEP_BUDGET = 20_000_000L;

  /**
   * Bytes of explored configurations kept per register before giving up with {@link
   * Outcome#UNKNOWN}.
   */
  private static final long MEMO_BYTES_BUDGET = 512L * 1024 * 1024;

  private final long stepBudget;

  public LinearizabilityChecker() {
    this(DEFAULT_STEP_BUDGET);
  }

  public LinearizabilityChecker(long stepBudget) {
    if (stepBudget <= 0) {
      throw new IllegalArgumentException("the step budget must be positive, got " + stepBudget);
    }
    this.stepBudget = stepBudget;
  }

  /** The verdict on one register, or on a whole history. */
  public enum Outcome {
    LINEARIZABLE,
    NOT_LINEARIZABLE,
    /** The search ran out of its step budget. */
    UNKNOWN
  }

  /**
   * The verdict on one register's history.
   *
   * @param key the register
   * @param operations how many operations it had (pending gets excluded)
   * @param outcome the verdict
   * @param explanation for a violation: the operation that could not be placed and the operations
   *     overlapping it; empty otherwise
   */
  public record KeyResult(String key, int operations, Outcome outcome, String explanation) {}

  /** The verdict on a whole history: linearizable only if every register is. */
  public record Result(List<KeyResult> keys) {
    public Outcome outcome() {
      if (keys.stream().anyMatch(k -> k.outcome() == Outcome.NOT_LINEARIZABLE)) {
        return Outcome.NOT_LINEARIZABLE;
      }
      if (keys.stream().anyMatch(k -> k.outcome() == Outcome.UNKNOWN)) {
        return Outcome.UNKNOWN;
      }
      return Outcome.LINEARIZABLE;
    }

    public boolean linearizable() {
      return outcome() == Outcome.LINEARIZABLE;
    }

    /** The registers that are not linearizable (or undecided), with their explanations. */
    public String summary() {
      StringBuilder b = new StringBuilder();
      int ops = keys.stream().mapToInt(KeyResult::operations).sum();
      b.append(outcome())
          .append(": ")
          .append(keys.size())
          .append(" registers, ")
          .append(ops)
          .append(" operations");
      for (KeyResult k : keys) {
        if (k.outcome() != Outcome.LINEARIZABLE) {
          b.append("\n  register ")
              .append(k.key())
              .append(" (")
              .append(k.operations())
              .append(" operations): ")
              .append(k.outcome())
              .append("\n")
              .append(k.explanation());
        }
      }
      return b.toString();
    }
  }

  /** Checks {@code history}, every register on its own. */
  public Result check(List<Operation> history) {
    Map<String, List<Operation>> byKey = new LinkedHashMap<>();
    for (Operation op : history) {
      byKey.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
    }
    List<KeyResult> results = new ArrayList<>();
    byKey.forEach((key, ops) -> results.add(checkRegister(key, ops)));
    return new Result(results);
  }

  /** Checks the operations of one register, initially null. */
  public KeyResult checkRegister(String key, List<Operation> operations) {
    List<Operation> ops = new ArrayList<>();
    for (Operation op : operations) {
      if (!(op.kind() == Operation.Kind.GET && op.pending())) {
        ops.add(op);
      }
    }
    return new Search(key, ops).run();
  }

  /** A node of the doubly linked list of call and return events. */
  private static final class Event {
    final int op;
    final boolean call;
    final long time;
    Event match;
    Event prev;
    Event next;

    Event(int op, boolean call, long time) {
      this.op = op;
      this.call = call;
      this.time = time;
    }
  }

  private record Config(BitSet linearized, String state) {}

  private record Frame(Event call, String stateBefore) {}

  private final class Search {
    final String key;
    final List<Operation> ops;
    final Event head = new Event(-1, true, Long.MIN_VALUE);

    Search(String key, List<Operation> ops) {
      this.key = key;
      this.ops = ops;
      List<Event> events = new ArrayList<>(2 * ops.size());
      for (int i = 0; i < ops.size(); i++) {
        Operation op = ops.get(i);
        Event call = new Event(i, true, op.invoked());
        Event ret = new Event(i, false, op.returned());
        call.match = ret;
        events.add(call);
        events.add(ret);
      }
      // Time order; at equal times calls first (so they overlap), then by operation for
      // determinism.
      events.sort(
          Comparator.comparingLong((Event e) -> e.time)
              .thenComparing(e -> !e.call)
              .thenComparingInt(e -> e.op));
      Event last = head;
      for (Event e : events) {
        last.next = e;
        e.prev = last;
        last = e;
      }
    }

    KeyResult run() {
      String state = null;
      BitSet linearized = new BitSet(ops.size());
      Set<Config> seen = new HashSet<>();
      Deque<Frame> stack = new ArrayDeque<>();
      int deepest = 0;
      Event stuckAt = null;
      long steps = 0;
      long bytesPerConfig = 64 + 8L * (ops.size() / 64 + 1);
      Event entry = head.next;
      while (head.next != null) {
        if (++steps > stepBudget || seen.size() * bytesPerConfig > MEMO_BYTES_BUDGET) {
          return new KeyResult(
              key,
              ops.size(),
              Outcome.UNKNOWN,
              "    gave up after "
                  + steps
                  + " search steps and "
                  + seen.size()
                  + " explored configurations");
        }
        if (entry.call) {
          Operation op = ops.get(entry.op);
          String after = step(state, op);
          if (after != STUCK) {
            BitSet next = (BitSet) linearized.clone();
            next.set(entry.op);
            if (seen.add(new Config(next, after))) {
              stack.push(new Frame(entry, state));
              state = after;
              linearized.set(entry.op);
              lift(entry);
              entry = head.next;
              continue;
            }
          }
          entry = entry.next;
        } else {
          // An operation returned that no order so far could place: undo the last choice.
          if (stack.size() >= deepest) {
            deepest = stack.size();
            stuckAt = entry;
          }
          if (stack.isEmpty()) {
            return new KeyResult(
                key, ops.size(), Outcome.NOT_LINEARIZABLE, explain(stuckAt, deepest));
          }
          Frame f = stack.pop();
          state = f.stateBefore();
          linearized.clear(f.call().op);
          unlift(f.call());
          entry = f.call().next;
        }
      }
      return new KeyResult(key, ops.size(), Outcome.LINEARIZABLE, "");
    }

    /** Removes a call event and its return event from the list. */
    void lift(Event call) {
      call.prev.next = call.next;
      if (call.next != null) {
        call.next.prev = call.prev;
      }
      Event ret = call.match;
      ret.prev.next = ret.next;
      if (ret.next != null) {
        ret.next.prev = ret.prev;
      }
    }

    /**
     * Puts back what {@link #lift} removed (in reverse order: the removed nodes kept their links).
     */
    void unlift(Event call) {
      Event ret = call.match;
      ret.prev.next = ret;
      if (ret.next != null) {
        ret.next.prev = ret;
      }
      call.prev.next = call;
      call.next.prev = call;
    }

    String explain(Event stuck, int deepest) {
      Operation blocked = ops.get(stuck.op);
      StringBuilder b = new StringBuilder();
      b.append("    at most ")
          .append(deepest)
          .append(" of ")
          .append(ops.size())
          .append(" operations could be linearized; no order places this one before it returned:\n")
          .append("      ")
          .append(blocked)
          .append('\n')
          .append("    operations overlapping it, and the latest sets and gets before it:\n");
      List<Operation> sorted = new ArrayList<>(ops);
      sorted.sort(Comparator.comparingLong(Operation::invoked));
      List<Operation> before = new ArrayList<>();
      for (Operation op : sorted) {
        if (op == blocked) {
          continue;
        }
        boolean overlaps = !op.precedes(blocked) && !blocked.precedes(op);
        if (overlaps) {
          b.append("      ").append(op).append('\n');
        } else if (op.precedes(blocked)) {
          before.add(op);
        }
      }
      before.sort(Comparator.comparingLong(Operation::returned));
      for (Operation op : before.subList(Math.max(0, before.size() - 4), before.size())) {
        b.append("      before: ").append(op).append('\n');
      }
      return b.toString();
    }
  }

  private static final String STUCK = new String("stuck");

  /**
   * The register's value after {@code op} from {@code state}, or {@link #STUCK} if {@code op} is
   * illegal there.
   */
  private static String step(String state, Operation op) {
    return switch (op.kind()) {
      case SET -> op.value();
      case GET -> Objects.equals(state, op.value()) ? state : STUCK;
    };
  }
}
