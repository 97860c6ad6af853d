package io.vcorfu.client.model;

import io.vcorfu.client.model.ModelConfig.PlanOrder;

/**
 * A write rule the model explores: a base rule ({@link Write}) and the fixes applied to it. Every
 * rule set shares the replica operations ({@link Replicas}) and the readers ({@code
 * RepairingReader}).
 *
 * @param write how copies are written and committed
 * @param replan fix A: every request of a decision carries the epoch of the layout its plan came
 *     from, and a decision refused for a wrong epoch starts again at the decider of the new layout
 *     instead of going on with its old plan at the nodes that remain (before the fix, {@code
 *     EpochRpc} sent a refused request again, at the new epoch, to the same node when it is still
 *     in the layout)
 * @param uncommittedAbort fix B: an abort replaces the other copies by <em>uncommitted</em> holes
 *     (a replica operation the fill lacked: it committed the hole that replaced an entry), commits
 *     the decider's hole only once every other copy holds one, and commits the other holes after
 *     that; so no reader takes a hole for the outcome before the decider's hole is committed
 */
record RuleSet(Write write, boolean replan, boolean uncommittedAbort) {
  /** The base rules. */
  enum Write {
    /**
     * The serial chain ({@code ChainPlan}; {@code ChainWriter} ran it, with both fixes, {@code
     * SERIAL.fixed()}): copies written one at a time in plan order, the last write (the decider's)
     * is the commit, commits of the earlier copies follow. A decision commits if the decider holds
     * the entry, else aborts: an uncommitted hole at the decider, every other copy replaced by a
     * committed hole last first, then the decider's hole committed. A data write of an entry whose
     * token predates a seal is refused ({@code EpochFence}): after a layout change a decision only
     * decides.
     */
    SERIAL(PlanOrder.SERIAL),

    /** {@link #SERIAL} with the withdrawn interleaved plan order. */
    INTERLEAVED(PlanOrder.INTERLEAVED),

    /**
     * Issue 31 as proposed: the writer sends every copy at once, one message per node carrying that
     * node's copies, arriving in any order, and acknowledges once all are held; a copy is committed
     * only once every copy holds the entry (the writer's "fully replicated through X" mark, or a
     * decision that found them all). A decision that finds the entry at the decider writes every
     * missing copy, then commits; one that cannot (a missing copy holds a hole, or the token
     * predates a seal and a copy is missing) aborts, starting with an uncommitted hole at the
     * decider. Aborts as in {@link #SERIAL}. Data writes of an entry whose token predates a seal
     * are refused, the writer's and a decision's alike ({@code ChainWriter} runs it with both
     * fixes, {@code PARALLEL.fixed()}).
     */
    PARALLEL(PlanOrder.SERIAL);

    private final PlanOrder order;

    Write(PlanOrder order) {
      this.order = order;
    }
  }

  static final RuleSet SERIAL = new RuleSet(Write.SERIAL, false, false);
  static final RuleSet INTERLEAVED = new RuleSet(Write.INTERLEAVED, false, false);
  static final RuleSet PARALLEL = new RuleSet(Write.PARALLEL, false, false);

  /** This rule with fix A. */
  RuleSet replanned() {
    return new RuleSet(write, true, uncommittedAbort);
  }

  /** This rule with fix B. */
  RuleSet withUncommittedAbort() {
    return new RuleSet(write, replan, true);
  }

  /** This rule with fixes A and B. */
  RuleSet fixed() {
    return replanned().withUncommittedAbort();
  }

  PlanOrder order() {
    return write.order;
  }

  /** Copies written at once, committed only once all are held; decisions finish missing copies. */
  boolean parallel() {
    return write == Write.PARALLEL;
  }

  /**
   * A sealed node refuses a decision's data write of an entry whose token predates the seal. Every
   * rule set does, as the replicas' {@code EpochFence} does: a sequencer that bootstrapped after
   * the seal read the stream tails without the copies such a write would add. A parallel decision
   * that is refused reads the copies instead, and aborts if one is not held.
   */
  boolean fenceDecisionWrites() {
    return true;
  }

  @Override
  public String toString() {
    return write + (replan ? "+A" : "") + (uncommittedAbort ? "+B" : "");
  }
}
