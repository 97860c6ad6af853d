package io.vcorfu.protocol.inmemory;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The live set of {@link FaultRule}s of an {@link InJvmTransport}; tests add and remove rules at
 * any time. For each message the first matching rule, in the order added, that has not reached its
 * limit decides its fate. Thread-safe.
 */
public final class FaultRules {
  private final List<FaultRule> rules = new CopyOnWriteArrayList<>();

  /** Adds {@code rule} after the existing ones; returns it (to remove it later). */
  public FaultRule add(FaultRule rule) {
    rules.add(rule);
    return rule;
  }

  /** Removes {@code rule}; a REORDER rule releases what it holds (reversed). */
  public void remove(FaultRule rule) {
    if (rules.remove(rule)) {
      rule.releaseHeld();
    }
  }

  /** Removes every rule, releasing held messages. */
  public void clear() {
    for (FaultRule rule : rules) {
      remove(rule);
    }
  }

  /** A snapshot of the current rules, in match order. */
  public List<FaultRule> list() {
    return List.copyOf(rules);
  }

  /** True if a PARTITION rule cuts this message (checked again when a message is delivered). */
  boolean partitioned(FaultRule.Direction direction, Endpoint target, Request request) {
    for (FaultRule rule : rules) {
      if (rule.action() == FaultRule.Action.PARTITION
          && rule.matches(direction, target, request, null)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The first rule matching the message (a request, or the {@code response} to {@code request}),
   * counted as a hit of that rule; or null.
   */
  FaultRule match(
      FaultRule.Direction direction, Endpoint target, Request request, Response response) {
    for (FaultRule rule : rules) {
      if (rule.matches(direction, target, request, response) && rule.tryHit()) {
        return rule;
      }
    }
    return null;
  }
}
