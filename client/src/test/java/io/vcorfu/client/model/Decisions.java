package io.vcorfu.client.model;

import static io.vcorfu.client.model.ModelState.DATA;
import static io.vcorfu.client.model.ModelState.DATA_COMMITTED;
import static io.vcorfu.client.model.ModelState.DCONF;
import static io.vcorfu.client.model.ModelState.DIDX;
import static io.vcorfu.client.model.ModelState.DMASK;
import static io.vcorfu.client.model.ModelState.DPH;
import static io.vcorfu.client.model.ModelState.HOLE;
import static io.vcorfu.client.model.ModelState.HOLE_COMMITTED;
import static io.vcorfu.client.model.ModelState.TRIMMED;

import io.vcorfu.client.model.Replicas.Reach;
import io.vcorfu.client.model.Replicas.Write;
import java.util.function.Supplier;

/**
 * The decision of one entry by one process, one replica operation per step: {@code
 * ChainWriter.drive} (write the plan in order, the last write commits) and {@code
 * ChainWriter.decide} (ask the decider; commit, finish, or abort last first), under a {@link
 * RuleSet}. The plan is computed once, from the layout current when the decision starts, as {@code
 * ChainWriter} does; a request to a node that is still in the layout goes on after a layout change
 * (unless {@link RuleSet#replan()}), one to a removed node fails the decision ({@link
 * Outcome#FAILED}) and its owner starts again. Once decided, the decision may commit (or
 * abort-fill) the copies, one message per node, any of them or none, before it returns.
 */
final class Decisions {
  static final int NONE = 0;
  static final int DRIVE = 1; // serial: writing plan[DIDX]
  static final int ASK = 2; // fill of the decider that keeps what it holds
  static final int COMMIT_DECIDER = 3; // serial: the decider holds the entry uncommitted
  static final int COMMITTING = 4; // committed: optional commits of the copies, then return
  static final int FINISH = 5; // parallel: writing the missing copies (DCONF: confirmed)
  static final int ABORT_DATA = 6; // parallel: a missing copy is a hole; abort at the decider
  static final int REPLACE = 7; // aborting: replacing copy DIDX of the abort order
  static final int COMMIT_HOLE = 8; // aborting: every other copy replaced; commit decider's hole
  static final int ABORT_EARLIER = 9; // aborted: optional abort-fills of the copies, then return
  static final int FROM_COPIES = 10; // the decider is trimmed: reading copy DIDX

  /** How a decision ended. */
  enum Outcome {
    COMMITTED,
    ABORTED,
    /** Every copy is trimmed: the outcome cannot be learned. */
    TRIMMED,
    /** A request went to a removed node: the owner starts again. */
    FAILED
  }

  /** The process a decision runs for. */
  interface Owner {
    /** The decision just learned the entry is committed (a writer acknowledges here). */
    void committed(byte[] s, int p);

    /** The decision returned {@code outcome}. */
    void ended(byte[] s, int p, Outcome outcome);

    String name(int p);
  }

  private final ModelState m;
  private final ModelConfig config;
  private final RuleSet rules;
  private final Replicas replicas;
  private final Owner owner;
  private final Plans plans;

  Decisions(ModelState m, RuleSet rules, Owner owner) {
    this.m = m;
    this.config = m.config();
    this.rules = rules;
    this.replicas = new Replicas(m);
    this.owner = owner;
    this.plans = new Plans(config, rules);
  }

  Plans plans() {
    return plans;
  }

  /** Starts a decision of process {@code p}'s entry at the current layout. */
  void start(byte[] s, int p, boolean drive) {
    m.set(s, p, DPH, drive && !rules.parallel() ? DRIVE : ASK);
    m.set(s, p, DMASK, ModelState.removed(s));
    m.set(s, p, DIDX, 0);
    m.setMask(s, p, DCONF, 0);
  }

  void step(byte[] s, int p, Successors out) {
    int phase = m.get(s, p, DPH);
    int[] plan = plans.plan(m.get(s, p, DMASK));
    int a = m.get(s, p, ModelState.ADDR);
    boolean stale = m.get(s, p, DMASK) != ModelState.removed(s);
    String who = owner.name(p);
    if (phase == COMMITTING || phase == ABORT_EARLIER) {
      afterwards(s, p, a, plan, phase == COMMITTING, stale && rules.replan(), out);
      return;
    }
    if (stale && rules.replan()) {
      byte[] n = s.clone();
      start(n, p, false);
      out.add(n, () -> who + ": request refused (its plan is of an older epoch); decides again");
      return;
    }
    switch (phase) {
      case DRIVE -> drive(s, p, a, plan, who, out);
      case ASK -> ask(s, p, a, plan, who, out);
      case COMMIT_DECIDER -> commitDecider(s, p, a, plan, who, out);
      case FINISH -> finish(s, p, a, plan, who, out);
      case ABORT_DATA -> abortAtDecider(s, p, a, plan, who, out);
      case REPLACE -> replace(s, p, a, plan, who, out);
      case COMMIT_HOLE -> commitHole(s, p, a, plan, who, out);
      case FROM_COPIES -> fromCopies(s, p, a, plan, who, out);
      default -> throw new IllegalStateException("decision phase " + phase);
    }
  }

  /** Once decided: optional commits (or abort-fills) of any copy, or return the outcome. */
  private void afterwards(
      byte[] s, int p, int a, int[] plan, boolean commit, boolean refused, Successors out) {
    String who = owner.name(p);
    for (int u = 0; u < plans.messageCount() && !refused; u++) {
      if (replicas.reachNode(s, plans.node(u)) != Reach.OK) {
        continue;
      }
      byte[] n = null;
      for (int c : plan) {
        byte held = m.slot(s, a, c);
        if (plans.message(c) != u || (commit ? held != DATA : !replicas.abortChanges(s, a, c))) {
          continue;
        }
        n = n == null ? s.clone() : n;
        if (commit) {
          replicas.commit(n, a, c);
        } else {
          replicas.fill(n, a, c, true, true, false);
        }
      }
      if (n != null) {
        String what = (commit ? " commits " : " abort-fills ") + plans.messageName(u);
        out.add(n, () -> who + what);
      }
    }
    byte[] n = s.clone();
    end(n, p, commit ? Outcome.COMMITTED : Outcome.ABORTED);
    out.add(n, () -> who + "'s decision returns " + (commit ? "COMMITTED" : "ABORTED"));
  }

  private void drive(byte[] s, int p, int a, int[] plan, String who, Successors out) {
    int i = m.get(s, p, DIDX);
    int c = plan[i];
    boolean last = i == plan.length - 1;
    byte[] n = op(s, p, c, who, "writes", out);
    if (n == null) {
      return;
    }
    if (rules.fenceDecisionWrites() && ModelState.removals(s) > 0) {
      start(n, p, false);
      out.add(n, () -> who + " writes " + config.copyName(c) + ": sealed (token older); decides");
      return;
    }
    Write w = replicas.write(n, a, c, last);
    if (w == Write.WRITTEN && last) {
      committed(n, p);
    } else if (w == Write.WRITTEN) {
      m.set(n, p, DIDX, i + 1);
    } else {
      start(n, p, false);
    }
    out.add(n, () -> who + " writes " + config.copyName(c) + (last ? " committed" : "") + ": " + w);
  }

  private void ask(byte[] s, int p, int a, int[] plan, String who, Successors out) {
    int d = plan[plan.length - 1];
    byte[] n = op(s, p, d, who, "asks decider", out);
    if (n == null) {
      return;
    }
    byte held = replicas.fill(n, a, d, false, false, false);
    switch (held) {
      case DATA -> {
        if (rules.parallel()) {
          m.set(n, p, DPH, FINISH);
          if (plans.alone(plan, d)) {
            confirm(n, p, plan, plans.message(d)); // nothing else goes with the decider's copy
          }
        } else {
          m.set(n, p, DPH, COMMIT_DECIDER);
        }
      }
      case DATA_COMMITTED -> committed(n, p);
      case TRIMMED -> m.set(n, p, DPH, FROM_COPIES);
      case HOLE_COMMITTED -> m.set(n, p, DPH, ABORT_EARLIER);
      case HOLE -> aborting(n, p, plan);
      default -> throw new IllegalStateException("a fill left " + held);
    }
    out.add(n, told(who, "asks decider", d, held));
  }

  private void commitDecider(byte[] s, int p, int a, int[] plan, String who, Successors out) {
    int d = plan[plan.length - 1];
    byte[] n = op(s, p, d, who, "commits", out);
    if (n == null) {
      return;
    }
    if (replicas.commit(n, a, d)) {
      committed(n, p);
    } else {
      end(n, p, Outcome.FAILED);
    }
    out.add(n, () -> who + " commits decider " + config.copyName(d));
  }

  /**
   * Parallel: the writes of the missing copies go out at once (one message per node, or per copy:
   * {@link ModelConfig#perCopy()}) and arrive in any order. A node writes each copy it can; one
   * that holds a hole fails the message.
   */
  private void finish(byte[] s, int p, int a, int[] plan, String who, Successors out) {
    int confirmed = m.mask(s, p, DCONF);
    for (int u = 0; u < plans.messageCount(); u++) {
      if ((confirmed & (1 << u)) != 0 || (plans.messages(plan) & (1 << u)) == 0) {
        continue;
      }
      Reach r = replicas.reachNode(s, plans.node(u));
      if (r == Reach.BLOCKED) {
        continue;
      }
      byte[] n = s.clone();
      String what = who + " writes " + plans.messageName(u);
      if (r == Reach.GONE) {
        end(n, p, Outcome.FAILED);
        out.add(n, () -> what + ": node removed; fails");
        continue;
      }
      boolean hole = false;
      boolean sealed = rules.fenceDecisionWrites() && ModelState.removals(s) > 0;
      for (int c : plan) {
        if (plans.message(c) != u) {
          continue;
        }
        if (sealed) {
          // The node refuses the write (the token predates the seal); the decision reads the
          // copies instead, and one not held now never will be: the entry cannot be finished.
          byte held = m.slot(s, a, c);
          hole |= held != DATA && held != DATA_COMMITTED && held != TRIMMED;
        } else {
          hole |= replicas.write(n, a, c, false) == Write.OVERWRITTEN;
        }
      }
      if (hole) {
        m.set(n, p, DPH, ABORT_DATA);
      } else {
        confirm(n, p, plan, u);
      }
      boolean failed = hole;
      String why = sealed ? ": sealed; a copy is not held" : ": a copy holds a hole";
      out.add(n, () -> what + (failed ? why : ": held"));
    }
  }

  /** Notes the copies of message {@code u} held; once every copy is, the entry is committed. */
  private void confirm(byte[] n, int p, int[] plan, int u) {
    int confirmed = m.mask(n, p, DCONF) | (1 << u);
    m.setMask(n, p, DCONF, confirmed);
    if (confirmed == plans.messages(plan)) {
      committed(n, p);
    }
  }

  /** Parallel: a missing copy cannot be written; the decider's copy becomes an uncommitted hole. */
  private void abortAtDecider(byte[] s, int p, int a, int[] plan, String who, Successors out) {
    int d = plan[plan.length - 1];
    byte[] n = op(s, p, d, who, "abort-fills decider", out);
    if (n == null) {
      return;
    }
    byte held = replicas.fill(n, a, d, true, false, true);
    switch (held) {
      case DATA_COMMITTED -> committed(n, p);
      case HOLE -> aborting(n, p, plan);
      case HOLE_COMMITTED -> m.set(n, p, DPH, ABORT_EARLIER);
      case TRIMMED -> {
        m.set(n, p, DPH, FROM_COPIES);
        m.set(n, p, DIDX, 0);
      }
      default -> throw new IllegalStateException("an abort-fill left " + held);
    }
    out.add(n, told(who, "abort-fills (uncommitted) decider", d, held));
  }

  /** The decider holds an uncommitted hole: replace the other copies, last first. */
  private void aborting(byte[] n, int p, int[] plan) {
    m.set(n, p, DPH, plan.length == 1 ? COMMIT_HOLE : REPLACE);
    m.set(n, p, DIDX, 0);
  }

  private void replace(byte[] s, int p, int a, int[] plan, String who, Successors out) {
    int i = m.get(s, p, DIDX);
    int c = plan[plan.length - 2 - i];
    byte[] n = op(s, p, c, who, "replaces", out);
    if (n == null) {
      return;
    }
    boolean keep = rules.uncommittedAbort();
    byte held = replicas.fill(n, a, c, true, !keep, keep);
    m.set(n, p, DIDX, i + 1);
    if (i + 1 == plan.length - 1) {
      m.set(n, p, DPH, COMMIT_HOLE);
    }
    out.add(n, () -> who + " abort-fills " + config.copyName(c) + ": " + ModelState.slotName(held));
  }

  private void commitHole(byte[] s, int p, int a, int[] plan, String who, Successors out) {
    int d = plan[plan.length - 1];
    byte[] n = op(s, p, d, who, "commits its hole at", out);
    if (n == null) {
      return;
    }
    byte held = replicas.fill(n, a, d, false, true, false);
    if (rules.uncommittedAbort()) {
      m.set(n, p, DPH, ABORT_EARLIER); // the other copies' holes are committed from now on
    } else {
      end(n, p, Outcome.ABORTED);
    }
    out.add(n, told(who, "commits its hole at decider", d, held));
  }

  /** The decider is trimmed: the first untrimmed copy in plan order tells the outcome. */
  private void fromCopies(byte[] s, int p, int a, int[] plan, String who, Successors out) {
    int i = m.get(s, p, DIDX);
    if (i == plan.length - 1) {
      byte[] n = s.clone();
      end(n, p, Outcome.TRIMMED);
      out.add(n, () -> who + ": every copy is trimmed; the decision fails TRIMMED");
      return;
    }
    int c = plan[i];
    byte[] n = op(s, p, c, who, "reads", out);
    if (n == null) {
      return;
    }
    byte held = m.slot(s, a, c);
    if (held == TRIMMED) {
      m.set(n, p, DIDX, i + 1);
    } else if (held == DATA_COMMITTED) {
      committed(n, p);
    } else {
      m.set(n, p, DPH, ABORT_EARLIER);
    }
    out.add(n, told(who, "(decider trimmed) reads", c, held));
  }

  /**
   * The state after {@code p}'s request to {@code c}'s node, or null: no step while the node is
   * crashed (the request waits), and a failed decision (added to {@code out}) if it was removed.
   */
  private byte[] op(byte[] s, int p, int c, String who, String what, Successors out) {
    Reach r = replicas.reach(s, c);
    if (r == Reach.BLOCKED) {
      return null;
    }
    byte[] n = s.clone();
    if (r == Reach.GONE) {
      end(n, p, Outcome.FAILED);
      out.add(n, () -> who + " " + what + " " + config.copyName(c) + ": node removed; fails");
      return null;
    }
    return n;
  }

  private Supplier<String> told(String who, String what, int copy, byte held) {
    return () -> who + " " + what + " " + config.copyName(copy) + ": " + ModelState.slotName(held);
  }

  private void committed(byte[] n, int p) {
    m.set(n, p, DPH, COMMITTING);
    owner.committed(n, p);
  }

  private void end(byte[] n, int p, Outcome outcome) {
    m.set(n, p, DPH, NONE);
    owner.ended(n, p, outcome);
  }
}
