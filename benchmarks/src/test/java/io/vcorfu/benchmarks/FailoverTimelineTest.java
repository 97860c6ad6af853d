package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

class FailoverTimelineTest {
  private static final long MS = 1_000_000L;
  private static final long KILL = 10_000 * MS;

  /** Writes of 1 ms each, back to back, issued at the given times (ms relative to the kill). */
  private static FailoverTimeline writes(long windowStartMs, double... issuedMs) {
    long[] issued = new long[issuedMs.length];
    long[] acked = new long[issuedMs.length];
    for (int i = 0; i < issuedMs.length; i++) {
      issued[i] = KILL + (long) (issuedMs[i] * MS);
      acked[i] = issued[i] + MS;
    }
    return FailoverTimeline.of(issued, acked, issuedMs.length, KILL, KILL + windowStartMs * MS);
  }

  @Test
  void recoveryIsTheFirstWriteIssuedAfterTheKillAndTheLongestGapSpansTheKill() {
    FailoverTimeline t = writes(-3000, -4000, -3, -2, 1500, 1501, 1502);
    assertThat(t.killToFirstAckMs()).hasValue(1501.0);
    assertThat(t.lastAckBeforeKillMs()).hasValue(1.0);
    assertThat(t.longestGapMs()).hasValue(1502.0); // from -1 (the ack of -2) to 1501
    assertThat(t.longestGapStartMs()).hasValue(-1.0);
    assertThat(t.acksBefore()).isEqualTo(3);
    assertThat(t.acksAfter()).isEqualTo(3);
    assertThat(t.recovered()).isTrue();
    assertThat(t.fields())
        .isEqualTo(
            "kill_to_first_ack_ms 1501.0 longest_gap_ms 1502.0 longest_gap_start_ms -1.0"
                + " last_ack_before_kill_ms 1.0 acks_before 3 acks_after 3");
  }

  @Test
  void aWriteInFlightAtTheKillAndAcknowledgedAfterItIsNotTheRecovery() {
    long[] issued = {KILL - 5 * MS, KILL - MS / 2, KILL + 2000 * MS};
    long[] acked = {KILL - 4 * MS, KILL + MS / 2, KILL + 2001 * MS};
    FailoverTimeline t = FailoverTimeline.of(issued, acked, 3, KILL, KILL - 3000 * MS);
    assertThat(t.killToFirstAckMs()).hasValue(2001.0);
    assertThat(t.acksBefore()).isEqualTo(1);
    assertThat(t.acksAfter()).isEqualTo(2);
    assertThat(t.longestGapMs()).hasValue(2000.5);
    assertThat(t.longestGapStartMs()).hasValue(0.5);
  }

  @Test
  void aStallAfterTheRecoveryIsTheLongestGapWhenItIsLonger() {
    FailoverTimeline t = writes(-3000, -2, 100, 101, 3101, 3102);
    assertThat(t.killToFirstAckMs()).hasValue(101.0);
    assertThat(t.longestGapMs()).hasValue(3000.0);
    assertThat(t.longestGapStartMs()).hasValue(102.0);
  }

  @Test
  void gapsBeforeTheWindowDoNotCount() {
    FailoverTimeline t = writes(-3000, -9000, -5000, -2000, -1, 50);
    assertThat(t.longestGapMs()).hasValue(1999.0); // from -1999 to 0, inside the window
    assertThat(t.longestGapStartMs()).hasValue(-1999.0);
  }

  @Test
  void noWriteAfterTheKillLeavesTheRecoveryEmpty() {
    FailoverTimeline t = writes(-3000, -10, -5);
    assertThat(t.recovered()).isFalse();
    assertThat(t.killToFirstAckMs()).isEqualTo(OptionalDouble.empty());
    assertThat(t.acksAfter()).isZero();
    assertThat(t.fields()).startsWith("kill_to_first_ack_ms none longest_gap_ms 5.0");
  }

  @Test
  void nothingAtAllLeavesEveryFigureEmpty() {
    FailoverTimeline t = FailoverTimeline.of(new long[0], new long[0], 0, KILL, KILL - MS);
    assertThat(t.fields())
        .isEqualTo(
            "kill_to_first_ack_ms none longest_gap_ms none longest_gap_start_ms none"
                + " last_ack_before_kill_ms none acks_before 0 acks_after 0");
  }

  @Test
  void theJsonFieldsAreTheTextFieldsWithNullForNone() {
    ObjectNode recovered = BenchOutput.result("failover");
    writes(-3000, -4000, -3, -2, 1500, 1501, 1502).putFields(recovered);
    assertThat(recovered.toString())
        .isEqualTo(
            "{\"mode\":\"failover\",\"kill_to_first_ack_ms\":1501.0,\"longest_gap_ms\":1502.0,"
                + "\"longest_gap_start_ms\":-1.0,\"last_ack_before_kill_ms\":1.0,"
                + "\"acks_before\":3,\"acks_after\":3}");
    ObjectNode nothing = BenchOutput.result("failover");
    FailoverTimeline.of(new long[0], new long[0], 0, KILL, KILL - MS).putFields(nothing);
    assertThat(nothing.toString())
        .isEqualTo(
            "{\"mode\":\"failover\",\"kill_to_first_ack_ms\":null,\"longest_gap_ms\":null,"
                + "\"longest_gap_start_ms\":null,\"last_ack_before_kill_ms\":null,"
                + "\"acks_before\":0,\"acks_after\":0}");
  }

  @Test
  void writesOutOfOrderAreRefused() {
    long[] issued = {KILL, KILL - 10 * MS};
    long[] acked = {KILL + MS, KILL - 9 * MS};
    assertThatThrownBy(() -> FailoverTimeline.of(issued, acked, 2, KILL, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("write 1 is out of order");
  }

  @Test
  void pidsAreParsedInOrderAndNonsenseIsRefused() {
    assertThat(FailoverBench.parsePids("101, 202,303")).containsExactly(101L, 202L, 303L);
    assertThatThrownBy(() -> FailoverBench.parsePids("101,,303"))
        .hasMessageContaining("process ids separated by commas");
    assertThatThrownBy(() -> FailoverBench.parsePids("1")).hasMessageContaining("process ids");
  }
}
