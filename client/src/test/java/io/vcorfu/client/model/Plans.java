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

  /** True if {@code copy} is the only copy of {@code plan} in its message. */
  boolean alone(int[] plan, int copy) {
    for (int c : plan) {
      if (c != copy && message(c) == message(copy)) {
        return false;
      }
    }
    return true;
  }

  /**
   * The message that carries {@code copy} (see {@link ModelConfig#perCopy()}): the copy's number,
   * or its node's.
   */
  int message(int copy) {
    return config.perCopy() ? copy : config.nodeOf(copy);
  }

  /** The messages {@code plan}'s copies go in (bit mask). */
  int messages(int[] plan) {
    int mask = 0;
    for (int c : plan) {
      mask |= 1 << message(c);
    }
    return mask;
  }

  /** How many message numbers there are. */
  int messageCount() {
    return config.perCopy() ? config.copies() : config.nodes();
  }

  /** The node message {@code u} goes to. */
  int node(int u) {
    return config.perCopy() ? config.nodeOf(u) : u;
  }

  String messageName(int u) {
    return config.perCopy() ? config.copyName(u) : "the copies on " + config.nodeName(u);
  }
}
