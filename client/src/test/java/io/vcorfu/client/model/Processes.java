package io.vcorfu.client.model;

import static io.vcorfu.client.model.ModelState.ADDR;
import static io.vcorfu.client.model.ModelState.DPH;
import static io.vcorfu.client.model.ModelState.PEND;
import static io.vcorfu.client.model.ModelState.PH;

import io.vcorfu.client.model.Decisions.Outcome;
import io.vcorfu.client.model.Replicas.Reach;
import io.vcorfu.client.model.Replicas.Write;

/**
 * The model's processes: one writer per address, the readers, and the trimmer ({@link Readers});
 * each step is one replica request.
 *
 * <p><b>Writer.</b> Serial rules: a {@link Decisions#DRIVE drive} of its plan, then the decision's
 * outcome (acknowledged when committed). Parallel rule: one message per node carrying that node's
 * copies (or one per copy, {@link ModelConfig#perCopy()}), all in flight at once and arriving in
 * any order (lost on a crashed or removed node, refused once the token's epoch is sealed); the
 * writer acknowledges once all succeeded, and decides at the first failure while its other messages
 * may still land. After a failed decision (a removed node) the writer decides again at the current
 * layout ({@code Appender}).
 */
final class Processes implements Decisions.Owner {
  static final int W_SENDING = 1;
  static final int W_DECIDING = 2;
  static final int W_DONE = 3;
  static final int W_ACKED = 4;

  private final ModelState m;
  private final ModelConfig config;
  private final RuleSet rules;
  private final Replicas replicas;
  private final Decisions decisions;
  private final Readers readers;

  Processes(ModelState m, RuleSet rules) {
    this.m = m;
    this.config = m.config();
    this.rules = rules;
    this.replicas = new Replicas(m);
    this.decisions = new Decisions(m, rules, this);
    this.readers = new Readers(m, decisions, this);
  }

  Readers readers() {
    return readers;
  }

  Decisions decisions() {
    return decisions;
  }

  /** Sets every process to its start. */
  void init(byte[] s) {
    for (int p = 0; p < config.processes(); p++) {
      if (!config.isWriter(p)) {
        readers.init(s, p);
      } else if (rules.parallel()) {
        m.set(s, p, ADDR, p);
        m.set(s, p, PH, W_SENDING);
        m.setMask(s, p, PEND, decisions.plans().messages(decisions.plans().plan(0)));
      } else {
        m.set(s, p, ADDR, p);
        m.set(s, p, PH, W_DECIDING);
        decisions.start(s, p, true);
      }
    }
  }

  @Override
  public String name(int p) {
    if (config.isWriter(p)) {
      return "W" + p;
    }
    return config.isTrimmer(p) ? "T" : "R" + (p - config.addresses() + 1);
  }

  void step(byte[] s, int p, Successors out) {
    if (!config.isWriter(p)) {
      readers.step(s, p, out);
      return;
    }
    if (config.logTrims()) {
      dies(s, p, out);
    }
    deliveries(s, p, out);
    if (m.get(s, p, PH) == W_DECIDING && m.get(s, p, DPH) != Decisions.NONE) {
      decisions.step(s, p, out);
    }
  }

  /**
   * Clears what no later step of a process reads (a finished read's chain, a returned decision's
   * plan), so that states differing only there are one state.
   */
  void canonical(byte[] s) {
    for (int p = 0; p < config.processes(); p++) {
      if (m.get(s, p, DPH) == Decisions.NONE) {
        for (int f = ModelState.DMASK; f < ModelState.PEND; f++) {
          m.set(s, p, f, 0);
        }
      }
      if (!config.isWriter(p)) {
        readers.canonical(s, p);
      }
    }
  }

  /**
   * With {@link ModelConfig#logTrims()}: the writer dies (a client gone) while sending or deciding;
   * messages not yet delivered are never sent, its decision is abandoned, and its token is left to
   * the readers (a token taken and never written, when nothing was delivered).
   */
  private void dies(byte[] s, int p, Successors out) {
    int ph = m.get(s, p, PH);
    if (ph != W_SENDING && ph != W_DECIDING) {
      return;
    }
    byte[] n = s.clone();
    m.setMask(n, p, PEND, 0);
    m.set(n, p, DPH, Decisions.NONE);
    m.set(n, p, PH, W_DONE);
    out.add(n, () -> name(p) + " dies");
  }

  /**
   * True when no process writes or repairs address {@code a}: its writer is done (acknowledged,
   * given up or dead, nothing in flight) and no decision, fill or settling of it is under way.
   */
  boolean settledForTrim(byte[] s, int a) {
    for (int p = 0; p < config.processes(); p++) {
      if (config.isWriter(p)) {
        int ph = m.get(s, p, PH);
        if (m.get(s, p, ADDR) == a
            && (ph == W_SENDING || ph == W_DECIDING || m.mask(s, p, PEND) != 0)) {
          return false;
        }
      } else if (m.get(s, p, ADDR) == a
          && (m.get(s, p, DPH) != Decisions.NONE || readers.repairing(s, p))) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void committed(byte[] n, int p) {
    if (config.isWriter(p)) {
      m.ack(n, m.get(n, p, ADDR));
    }
  }

  @Override
  public void ended(byte[] n, int p, Outcome outcome) {
    if (!config.isWriter(p)) {
      readers.ended(n, p, outcome);
    } else if (outcome == Outcome.FAILED) {
      decisions.start(n, p, false);
    } else {
      m.set(n, p, PH, W_DONE);
    }
  }

  /**
   * The writer's messages (one per node carrying that node's copies, or one per copy: {@link
   * ModelConfig#perCopy()}) arrive in any order.
   */
  private void deliveries(byte[] s, int p, Successors out) {
    Plans plans = decisions.plans();
    int pending = m.mask(s, p, PEND);
    int a = m.get(s, p, ADDR);
    for (int u = 0; u < plans.messageCount(); u++) {
      if ((pending & (1 << u)) == 0) {
        continue;
      }
      byte[] n = s.clone();
      m.setMask(n, p, PEND, pending & ~(1 << u));
      String what;
      boolean ok = false;
      if (replicas.reachNode(s, plans.node(u)) != Reach.OK) {
        what = "lost (node down)";
      } else if (ModelState.removals(s) > 0) {
        what = "refused (sealed)";
      } else {
        ok = true;
        for (int c : plans.plan(0)) {
          if (plans.message(c) == u) {
            ok &= replicas.write(n, a, c, false) == Write.WRITTEN;
          }
        }
        what = ok ? "held" : "a copy is a hole or trimmed";
      }
      if (ok) {
        // While sending, every message that arrived succeeded: the last one completes the set.
        if (m.get(n, p, PH) == W_SENDING && m.mask(n, p, PEND) == 0) {
          m.set(n, p, PH, W_ACKED);
          m.ack(n, a);
          what += "; every copy held: acknowledged";
        }
      } else if (m.get(n, p, PH) == W_SENDING) {
        m.set(n, p, PH, W_DECIDING);
        decisions.start(n, p, false);
        what += "; the writer decides";
      }
      String told = name(p) + "'s write of " + plans.messageName(u) + " arrives: " + what;
      out.add(n, () -> told);
    }
  }
}
