package io.vcorfu.client.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * Breadth-first exploration of every state a {@link Transitions} model reaches, each state visited
 * once (exact: states are compared byte for byte, never by a lossy fingerprint). Every new state is
 * checked against the safety properties; the first that breaks one ends the run with its trace,
 * which is a shortest one (breadth first).
 */
final class Explorer {
  /** What the model reached besides the properties: a run that reached none of it proves little. */
  record Coverage(
      boolean acknowledged,
      boolean readData,
      boolean readHole,
      boolean removed,
      boolean trimmed,
      int decisionPhases) {

    /** True if some decision reached {@code phase} (a {@link Decisions} phase). */
    boolean reached(int phase) {
      return (decisionPhases & (1 << phase)) != 0;
    }
  }

  /**
   * @param violation the property broken, or null
   * @param trace the events from the initial state to the violating one, each with the replicas'
   *     slots after it; empty without a violation
   */
  record Result(
      long states,
      long transitions,
      long millis,
      String violation,
      List<String> trace,
      Coverage coverage) {}

  private Explorer() {}

  /**
   * Explores {@code config} under {@code rules}; fails with {@link IllegalStateException} past
   * {@code limit} states (a configuration too large for the test's budget).
   */
  static Result explore(ModelConfig config, RuleSet rules, int limit) {
    return explore(config, rules, limit, false);
  }

  /**
   * {@link #explore(ModelConfig, RuleSet, int)}; with {@code observedOnly} only what clients saw is
   * checked (see {@link Transitions#violation}), so a violation found is one a client sees.
   */
  static Result explore(ModelConfig config, RuleSet rules, int limit, boolean observedOnly) {
    long start = System.nanoTime();
    Transitions model = new Transitions(config, rules);
    ModelState m = model.model();
    StateStore store = new StateStore(m.size());
    byte[] initial = model.representative(model.initial());
    store.add(initial, -1);
    boolean acknowledged = false;
    boolean readData = false;
    boolean readHole = false;
    boolean removed = false;
    boolean trimmed = false;
    int phases = 0;
    long transitions = 0;
    for (int head = 0; head < store.count(); head++) {
      byte[] s = store.get(head);
      Successors out = new Successors(false);
      model.successors(s, out);
      transitions += out.states().size();
      for (byte[] successor : out.states()) {
        byte[] n = model.representative(successor);
        int id = store.add(n, head);
        if (id < 0) {
          continue;
        }
        if (store.count() > limit) {
          throw new IllegalStateException(
              config + " under " + rules + " reaches more than " + limit + " states");
        }
        acknowledged |= n[ModelState.ACKED] != 0;
        for (int a = 0; a < config.addresses(); a++) {
          readData |= (m.seen(n, a) & ModelState.SAW_DATA) != 0;
          readHole |= (m.seen(n, a) & ModelState.SAW_HOLE) != 0;
        }
        removed |= n[ModelState.REMOVED] != 0;
        trimmed |=
            contains(
                n,
                ModelState.TRIMMED,
                ModelState.HEADER,
                ModelState.HEADER + config.addresses() * config.copies());
        phases |= model.decisionPhases(n);
        String violation = model.violation(n, observedOnly);
        if (violation != null) {
          return new Result(
              store.count(),
              transitions,
              millis(start),
              violation,
              trace(model, store, id),
              new Coverage(acknowledged, readData, readHole, removed, trimmed, phases));
        }
      }
    }
    return new Result(
        store.count(),
        transitions,
        millis(start),
        null,
        List.of(),
        new Coverage(acknowledged, readData, readHole, removed, trimmed, phases));
  }

  private static boolean contains(byte[] s, byte value, int from, int to) {
    for (int i = from; i < to; i++) {
      if (s[i] == value) {
        return true;
      }
    }
    return false;
  }

  private static long millis(long startNanos) {
    return (System.nanoTime() - startNanos) / 1_000_000;
  }

  /**
   * The events from the initial state to state {@code id}: from the actual initial state, each step
   * takes a successor whose representative is the next state stored, so reader names stay those of
   * one run.
   */
  private static List<String> trace(Transitions model, StateStore store, int id) {
    List<Integer> path = new ArrayList<>();
    for (int at = id; at >= 0; at = store.parent(at)) {
      path.add(at);
    }
    Collections.reverse(path);
    List<String> lines = new ArrayList<>();
    byte[] current = model.initial();
    lines.add("   initially: " + model.model().render(current));
    for (int i = 1; i < path.size(); i++) {
      byte[] target = store.get(path.get(i));
      Successors named = new Successors(true);
      model.successors(current, named);
      String event = null;
      for (int k = 0; k < named.states().size() && event == null; k++) {
        if (Arrays.equals(model.representative(named.states().get(k)), target)) {
          event = named.events().get(k);
          current = named.states().get(k);
        }
      }
      if (event == null) {
        throw new IllegalStateException("no step reaches the trace's state " + i);
      }
      lines.add(String.format("%3d. %s%n       -> %s", i, event, model.model().render(current)));
    }
    return lines;
  }

  /**
   * The visited states: fixed-size records in large chunks, an open-addressing table of their
   * numbers, and each one's parent (for traces). About {@code size + 12} bytes a state.
   */
  static final class StateStore {
    private static final int CHUNK = 1 << 16;
    private final int size;
    private final List<byte[]> chunks = new ArrayList<>();
    private int count;
    private int[] table = new int[1 << 16];
    private int[] parents = new int[1 << 16];

    StateStore(int size) {
      this.size = size;
    }

    int count() {
      return count;
    }

    int parent(int id) {
      return parents[id];
    }

    byte[] get(int id) {
      int offset = (id % CHUNK) * size;
      return Arrays.copyOfRange(chunks.get(id / CHUNK), offset, offset + size);
    }

    /** Adds {@code s} and returns its number, or -1 if it was visited already. */
    int add(byte[] s, int parent) {
      if (count * 2 >= table.length) {
        grow();
      }
      int mask = table.length - 1;
      for (int i = hash(s, 0, s.length) & mask; ; i = (i + 1) & mask) {
        int held = table[i];
        if (held == 0) {
          table[i] = store(s, parent) + 1;
          return count - 1;
        }
        if (equal(held - 1, s)) {
          return -1;
        }
      }
    }

    private int store(byte[] s, int parent) {
      if (count % CHUNK == 0) {
        chunks.add(new byte[CHUNK * size]);
      }
      System.arraycopy(s, 0, chunks.get(count / CHUNK), (count % CHUNK) * size, size);
      if (count == parents.length) {
        parents = Arrays.copyOf(parents, parents.length * 2);
      }
      parents[count] = parent;
      return count++;
    }

    private boolean equal(int id, byte[] s) {
      byte[] chunk = chunks.get(id / CHUNK);
      int offset = (id % CHUNK) * size;
      return Arrays.equals(chunk, offset, offset + size, s, 0, size);
    }

    private void grow() {
      int[] old = table;
      table = new int[old.length * 2];
      int mask = table.length - 1;
      for (int held : old) {
        if (held != 0) {
          byte[] chunk = chunks.get((held - 1) / CHUNK);
          int offset = ((held - 1) % CHUNK) * size;
          int i = hash(chunk, offset, offset + size) & mask;
          while (table[i] != 0) {
            i = (i + 1) & mask;
          }
          table[i] = held;
        }
      }
    }

    private static int hash(byte[] b, int from, int to) {
      int h = 0x811c9dc5;
      for (int i = from; i < to; i++) {
        h = (h ^ b[i]) * 0x01000193;
      }
      return h ^ (h >>> 16);
    }
  }
}
