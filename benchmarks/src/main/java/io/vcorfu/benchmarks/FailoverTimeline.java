package io.vcorfu.benchmarks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;
import java.util.OptionalDouble;

/**
 * What one failover run saw, computed from the writes of a single sequential writer and the moment
 * of the kill, all on one monotonic clock ({@link System#nanoTime}).
 *
 * <p>Every write is a pair (issued, acknowledged). The <em>recovery</em> is the acknowledgement of
 * the first write issued at or after the kill: a write already in flight when the node died may
 * still be acknowledged just after (the dead node had done its part), which says nothing about
 * whether the cluster serves again. The <em>longest gap</em> is the longest time between two
 * consecutive acknowledgements that both fall in the window around the kill (the kill minus the
 * seconds of load before it, to the end of the run); the gap across the kill is one of them, and a
 * second stall after the recovery would show here too.
 *
 * @param killToFirstAckMs from the kill to the acknowledgement of the first write issued after it;
 *     empty when no such write was acknowledged
 * @param lastAckBeforeKillMs from the last acknowledgement before the kill to the kill (0 or more);
 *     empty when nothing was acknowledged before it
 * @param longestGapMs the longest gap between consecutive acknowledgements in the window; empty
 *     when the window holds fewer than two
 * @param longestGapStartMs where that gap starts, relative to the kill (negative: before it)
 * @param acksBefore acknowledgements before the kill
 * @param acksAfter acknowledgements at or after the kill
 */
record FailoverTimeline(
    OptionalDouble killToFirstAckMs,
    OptionalDouble lastAckBeforeKillMs,
    OptionalDouble longestGapMs,
    OptionalDouble longestGapStartMs,
    int acksBefore,
    int acksAfter) {

  private static final double NANOS_PER_MS = 1e6;

  /**
   * The timeline of the first {@code count} writes, in the order the writer made them.
   *
   * @param issued when each write was issued
   * @param acked when each write was acknowledged (non-decreasing: the writer is sequential)
   * @param killNanos when the kill was sent
   * @param windowStartNanos the start of the window for the longest gap
   * @throws IllegalArgumentException if {@code count} exceeds either array or the writes are not in
   *     order
   */
  static FailoverTimeline of(
      long[] issued, long[] acked, int count, long killNanos, long windowStartNanos) {
    if (count < 0 || count > issued.length || count > acked.length) {
      throw new IllegalArgumentException("count " + count + " outside the arrays");
    }
    int before = 0;
    OptionalDouble lastBefore = OptionalDouble.empty();
    OptionalDouble recovery = OptionalDouble.empty();
    long gap = -1;
    long gapStart = 0;
    long previous = 0;
    boolean havePrevious = false;
    for (int i = 0; i < count; i++) {
      if (acked[i] < issued[i] || (i > 0 && issued[i] < acked[i - 1])) {
        throw new IllegalArgumentException("write " + i + " is out of order");
      }
      long ack = acked[i];
      if (ack < killNanos) {
        before++;
        lastBefore = OptionalDouble.of((killNanos - ack) / NANOS_PER_MS);
      }
      if (recovery.isEmpty() && issued[i] >= killNanos) {
        recovery = OptionalDouble.of((ack - killNanos) / NANOS_PER_MS);
      }
      if (ack >= windowStartNanos) {
        if (havePrevious && ack - previous > gap) {
          gap = ack - previous;
          gapStart = previous;
        }
        previous = ack;
        havePrevious = true;
      }
    }
    return new FailoverTimeline(
        recovery,
        lastBefore,
        gap < 0 ? OptionalDouble.empty() : OptionalDouble.of(gap / NANOS_PER_MS),
        gap < 0 ? OptionalDouble.empty() : OptionalDouble.of((gapStart - killNanos) / NANOS_PER_MS),
        before,
        count - before);
  }

  /** True when a write issued after the kill was acknowledged. */
  boolean recovered() {
    return killToFirstAckMs.isPresent();
  }

  /**
   * The figures as {@code name value} pairs on one line, in milliseconds with one decimal; a figure
   * that does not exist is {@code none}:
   *
   * <pre>
   * kill_to_first_ack_ms X longest_gap_ms Y longest_gap_start_ms Z last_ack_before_kill_ms W
   * acks_before N acks_after N
   * </pre>
   */
  String fields() {
    return "kill_to_first_ack_ms "
        + ms(killToFirstAckMs)
        + " longest_gap_ms "
        + ms(longestGapMs)
        + " longest_gap_start_ms "
        + ms(longestGapStartMs)
        + " last_ack_before_kill_ms "
        + ms(lastAckBeforeKillMs)
        + " acks_before "
        + acksBefore
        + " acks_after "
        + acksAfter;
  }

  /**
   * Puts the same figures into {@code result} under the same names, a figure that does not exist as
   * null.
   */
  void putFields(ObjectNode result) {
    putMs(result, "kill_to_first_ack_ms", killToFirstAckMs);
    putMs(result, "longest_gap_ms", longestGapMs);
    putMs(result, "longest_gap_start_ms", longestGapStartMs);
    putMs(result, "last_ack_before_kill_ms", lastAckBeforeKillMs);
    result.put("acks_before", acksBefore).put("acks_after", acksAfter);
  }

  private static void putMs(ObjectNode result, String name, OptionalDouble v) {
    if (v.isPresent()) {
      result.put(name, v.getAsDouble());
    } else {
      result.putNull(name);
    }
  }

  private static String ms(OptionalDouble v) {
    return v.isPresent() ? String.format(Locale.ROOT, "%.1f", v.getAsDouble()) : "none";
  }
}
