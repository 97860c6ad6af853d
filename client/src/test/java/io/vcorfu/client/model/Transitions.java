package io.vcorfu.client.model;

import static io.vcorfu.client.model.ModelState.CRASHED;
import static io.vcorfu.client.model.ModelState.DATA;
import static io.vcorfu.client.model.ModelState.DATA_COMMITTED;
import static io.vcorfu.client.model.ModelState.HOLE_COMMITTED;
import static io.vcorfu.client.model.ModelState.HOLE_FIRST;
import static io.vcorfu.client.model.ModelState.REMOVED;
import static io.vcorfu.client.model.ModelState.SAW_DATA;
import static io.vcorfu.client.model.ModelState.SAW_HOLE;
import static io.vcorfu.client.model.ModelState.TRIMMED;

/**
 * Every event of the model from one state, and the safety properties checked on every state.
 *
 * <p>Events: a step of any process ({@link Processes}); a layout change removing one node (within
 * the budget; the log chain is never emptied), after which every remaining node is sealed (atomic:
 * a change is committed only once its nodes are sealed) and the removed node answers nothing; a
 * crash (the node stops answering, its requests wait, until a layout change removes it); and, under
 * the parallel rule, the writer's "fully replicated through X" mark arriving at a node with a later
 * message (it commits that node's copies of every address up to X, X the last of the acknowledged
 * prefix of addresses); with {@link ModelConfig#logTrim()}, the log's prefix trim of one log
 * replica's lowest untrimmed address.
 */
final class Transitions {
  private final ModelState m;
  private final ModelConfig config;
  private final RuleSet rules;
  private final Processes processes;

  Transitions(ModelConfig config, RuleSet rules) {
    this.m = new ModelState(config);
    this.config = config;
    this.rules = rules;
    this.processes = new Processes(m, rules);
  }

  ModelState model() {
    return m;
  }

  byte[] initial() {
    byte[] s = new byte[m.size()];
    processes.init(s);
    processes.canonical(s);
    return s;
  }

  void successors(byte[] s, Successors out) {
    for (int p = 0; p < config.processes(); p++) {
      processes.step(s, p, out);
    }
    int removed = s[REMOVED];
    if (ModelState.removals(s) < config.maxRemovals()) {
      for (int node = 0; node < config.nodes(); node++) {
        if (config.canRemove(node, removed)) {
          byte[] n = s.clone();
          n[REMOVED] = (byte) (removed | (1 << node));
          int gone = node;
          out.add(
              n, () -> "layout change: " + config.nodeName(gone) + " removed, the others sealed");
        }
      }
    }
    if (Integer.bitCount(s[CRASHED]) < config.maxCrashes()) {
      for (int node = 0; node < config.nodes(); node++) {
        if (((removed | s[CRASHED]) & (1 << node)) == 0) {
          byte[] n = s.clone();
          n[CRASHED] = (byte) (s[CRASHED] | (1 << node));
          int down = node;
          out.add(n, () -> config.nodeName(down) + " crashes");
        }
      }
    }
    if (rules.parallel()) {
      marks(s, out);
    }
    if (config.logTrims()) {
      logTrims(s, out);
    }
    for (byte[] n : out.states()) {
      processes.canonical(n);
    }
  }

  /**
   * The log's prefix trim reaching a log replica: its lowest untrimmed address is trimmed, whatever
   * the slot holds, once no write or repair of that address is under way (the real trim waits for a
   * retention window far longer than a write or its repair takes; the model has no time).
   */
  private void logTrims(byte[] s, Successors out) {
    boolean keeps = config.logTrim() == ModelConfig.LogTrim.DECIDES_AND_KEEPS_HOLES;
    for (int node : config.logChain()) {
      if ((s[REMOVED] & (1 << node)) != 0) {
        continue;
      }
      int c = config.copy(0, node);
      for (int a = 0; a < config.addresses(); a++) {
        byte held = m.slot(s, a, c);
        if (held == TRIMMED || (keeps && held == HOLE_COMMITTED)) {
          continue; // passed: trimmed, or a hole kept below the mark
        }
        if (!processes.settledForTrim(s, a) || (keeps && !logDecided(s, a))) {
          break; // the retention window: no write or repair of the address is under way
        }
        byte[] n = s.clone();
        m.setSlot(n, a, c, TRIMMED);
        int at = a;
        out.add(n, () -> "the log's prefix trim trims " + config.copyName(c) + " of " + at);
        break;
      }
    }
  }

  /** True if every log copy of {@code a} in the layout is committed (data or a hole) or trimmed. */
  private boolean logDecided(byte[] s, int a) {
    for (int node : config.chain(0, ModelState.removed(s))) {
      byte held = m.slot(s, a, config.copy(0, node));
      if (held != DATA_COMMITTED && held != HOLE_COMMITTED && held != TRIMMED) {
        return false;
      }
    }
    return true;
  }

  private void marks(byte[] s, Successors out) {
    int through = -1;
    while (through + 1 < config.addresses() && m.acked(s, through + 1)) {
      through++;
    }
    int down = s[REMOVED] | s[CRASHED];
    for (int node = 0; node < config.nodes(); node++) {
      if (through < 0 || (down & (1 << node)) != 0) {
        continue;
      }
      byte[] n = null;
      for (int a = 0; a <= through; a++) {
        for (int k = 0; k < config.chains(); k++) {
          int c = config.copy(k, node);
          if (m.slot(s, a, c) == DATA) {
            n = n == null ? s.clone() : n;
            m.setSlot(n, a, c, DATA_COMMITTED);
          }
        }
      }
      if (n != null) {
        int at = node;
        int x = through;
        out.add(
            n, () -> "mark 'fully replicated through " + x + "' reaches " + config.nodeName(at));
      }
    }
  }

  /**
   * The representative of {@code s} under the readers' symmetry: readers run one program from one
   * start, so states that differ only by which reader is which reach the same states up to that
   * renaming and break the same properties (observations are not per reader). Readers are sorted by
   * their bytes. Returns {@code s} itself when it is the representative.
   */
  byte[] representative(byte[] s) {
    int first = config.addresses();
    int readers = config.readers();
    if (readers < 2) {
      return s;
    }
    byte[] out = null;
    for (int i = 1; i < readers; i++) {
      for (int j = i; j > 0; j--) {
        byte[] cur = out == null ? s : out;
        int a = m.field(first + j - 1, 0);
        int b = m.field(first + j, 0);
        if (java.util.Arrays.compare(cur, a, a + ModelState.FIELDS, cur, b, b + ModelState.FIELDS)
            <= 0) {
          break;
        }
        out = out == null ? s.clone() : out;
        byte[] tmp = java.util.Arrays.copyOfRange(out, a, a + ModelState.FIELDS);
        System.arraycopy(out, b, out, a, ModelState.FIELDS);
        System.arraycopy(tmp, 0, out, b, ModelState.FIELDS);
      }
    }
    return out == null ? s : out;
  }

  /** The decision phases the processes of {@code s} are in (bit mask), for coverage. */
  int decisionPhases(byte[] s) {
    int phases = 0;
    for (int p = 0; p < config.processes(); p++) {
      phases |= 1 << m.get(s, p, ModelState.DPH);
      if (!config.isWriter(p) && processes.readers().fillsAStreamOverATrimmedLog(s, p)) {
        phases |= 1 << Readers.FILL_OVER_TRIMMED_LOG;
      }
    }
    return phases;
  }

  /**
   * The first safety property {@code s} breaks, or null. With {@code observedOnly}, only what
   * clients saw counts (a write acknowledged, then read as a hole; one slot read both ways), not
   * what the replicas hold.
   */
  String violation(byte[] s, boolean observedOnly) {
    for (int a = 0; a < config.addresses(); a++) {
      int seen = m.seen(s, a);
      if ((seen & SAW_DATA) != 0 && (seen & SAW_HOLE) != 0) {
        return (seen & HOLE_FIRST) != 0
            ? "P2: address " + a + " was read as a hole, and later as data"
            : "P3: address " + a + " was read as data, and later as a hole";
      }
      String committed = committedButMissing(s, a);
      if (committed != null && !observedOnly) {
        return committed;
      }
      if (!m.acked(s, a)) {
        continue;
      }
      if ((seen & SAW_HOLE) != 0) {
        return "P1: address " + a + " was acknowledged, and read as a hole";
      }
      if (observedOnly) {
        continue;
      }
      for (int c : processes.decisions().plans().plan(ModelState.removed(s))) {
        byte held = m.slot(s, a, c);
        if (held != DATA && held != DATA_COMMITTED && held != TRIMMED) {
          return "P1: address "
              + a
              + " was acknowledged, and "
              + config.copyName(c)
              + " (a copy of the current layout) holds "
              + ModelState.slotName(held);
        }
      }
    }
    return null;
  }

  /**
   * P4, what the sequencer node's lookup of a retried append rests on: an entry some copy holds
   * committed is held (committed or not, or trimmed) by every copy of the current layout. A copy of
   * the current layout holding nothing therefore means the entry is not committed anywhere; with
   * the fence (no copy of an entry of a sealed epoch is written after the seal) it never will be.
   * Null when {@code a} keeps it.
   */
  private String committedButMissing(byte[] s, int a) {
    boolean committed = false;
    for (int c = 0; c < config.copies(); c++) {
      committed |= m.slot(s, a, c) == DATA_COMMITTED;
    }
    if (!committed) {
      return null;
    }
    for (int c : processes.decisions().plans().plan(ModelState.removed(s))) {
      byte held = m.slot(s, a, c);
      if (held != DATA && held != DATA_COMMITTED && held != TRIMMED) {
        return "P4: address "
            + a
            + " is committed at a copy, and "
            + config.copyName(c)
            + " (a copy of the current layout) holds "
            + ModelState.slotName(held);
      }
    }
    return null;
  }
}
