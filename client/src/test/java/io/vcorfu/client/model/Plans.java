package io.vcorfu.client.model;

/** The plans of one entry under every layout a configuration can reach, computed once each. */
final class Plans {
  private final ModelConfig config;
  private final RuleSet rules;
  private final int[][] plans;

  Plans(ModelConfig config, RuleSet rules) {
    this.config = config;
    this.rules = rules;
    this.plans = new int[1 << config.nodes()][];
  }

  /** The copies of an entry under the layout without {@code removed}, in plan order. */
  int[] plan(int removed) {
    if (plans[removed] == null) {
      plans[removed] = config.plan(removed, rules.order());
    }
    return plans[removed];
  }

  /** The nodes holding a copy of {@code plan} (bit mask). */
  int nodes(int[] plan) {
    int mask = 0;
    for (int c : plan) {
      mask |= 1 << config.nodeOf(c);
    }
    return mask;
  }

  /** True if {@code copy} is the only copy of {@code plan} on its node. */
  boolean alone(int[] plan, int copy) {
    for (int c : plan) {
      if (c != copy && config.nodeOf(c) == config.nodeOf(copy)) {
        return false;
      }
    }
    return true;
  }
}
