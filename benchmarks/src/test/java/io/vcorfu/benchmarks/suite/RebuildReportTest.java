package io.vcorfu.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.AbstractMap.SimpleEntry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The rebuild suite's result lines and timeline, against what run-rebuild.sh's Python made of the
 * same foreground log and times (the expected texts were printed by it).
 */
class RebuildReportTest {
  private static final RebuildReport.Foreground FG =
      RebuildReport.Foreground.of(
          List.of(
              "some header line",
              "progress 1 acked 900 total 900 errors 0 p99_ms 12.5",
              "progress 2 acked 1000 total 1900 errors 0 p99_ms 10.0",
              "progress 3 acked 1100 total 3000 errors 0 p99_ms 9.5",
              "progress 4 acked 500 total 3500 errors 0 p99_ms 80.25",
              "progress 5 acked 400 total 3900 errors 0 p99_ms 95.0",
              "progress 6 acked 450 total 4350 errors 0 p99_ms -",
              "progress 7 acked 800 total 5150 errors 0 p99_ms 20.0",
              "progress 8 acked 1050 total 6200 errors 0 p99_ms 11.0",
              "progress 9 acked 1000 total 7200 errors 0"));

  /** The line of a copy of {@code slots} slots of a byte each against FG, baseline p99 9.8 ms. */
  private static String line(
      String name, RebuildReport.Times t, long slots, double baseline, int lead) {
    return RebuildReport.line(name, t, slots, slots, baseline, "9.8", FG, lead);
  }

  @Test
  void aRebuildLineCountsTheForegroundBetweenRestartAndFullStrengthDuringTheCopyAndBefore() {
    String line =
        RebuildReport.line(
            "wiped",
            new RebuildReport.Times(100.0, 101.4, 104.6, 106.2),
            123456,
            987654321,
            1000,
            "9.8",
            FG,
            2);
    assertThat(line)
        .isEqualTo(
            "rebuild wiped restart_to_full_s 6.20 copied_slots 123456 copied_mb 941.9 copy_mb_s"
                + " 294.3 copy_slots_s 38580 foreground_appends_s 717 baseline_appends_s 1000"
                + " fraction 0.72 foreground_during_copy_appends_s 538 fraction_during_copy 0.54"
                + " p99_ms_median_second 20.0 p99_ms_worst_second 95.0 baseline_p99_ms 9.8"
                + " foreground_before_appends_s 1000 fraction_before 1.00"
                + " foreground_after_full_appends_s 1000 fraction_after_full 1.00");
  }

  @Test
  void theSecondsAfterFullStrengthAreCountedApartFromTheRestartsWindow() {
    // Restart at the load's first second, full strength two seconds later: seconds 1-2 are the
    // window (900, 1000), seconds 3-9 (the log's rest, under the ten after full) come after it.
    assertThat(line("wiped", new RebuildReport.Times(100.0, 100.5, 101.5, 102.0), 1, 1000, 0))
        .contains(" foreground_appends_s 950 ")
        .endsWith(" foreground_after_full_appends_s 757 fraction_after_full 0.76");
  }

  @Test
  void aPauseLineComparesTheWindowFromThePauseWithTheSecondsBeforeIt() {
    assertThat(RebuildReport.pauseLine(1, FG, 3.2, 2, 3, 6.5))
        .isEqualTo(
            "pause 1 before_appends_s 1050 after_appends_s 450 fraction 0.43"
                + " worst_second_appends_s 400 p99_ms_worst_second 95.0 pause_to_full_s 6.50");
  }

  @Test
  void aPauseWindowPastTheLogCountsTheSecondsThereAreAndNoP99AsNan() {
    assertThat(RebuildReport.pauseLine(2, FG, 8.0, 2, 5, 1.0))
        .isEqualTo(
            "pause 2 before_appends_s 925 after_appends_s 1000 fraction 1.08"
                + " worst_second_appends_s 1000 p99_ms_worst_second nan pause_to_full_s 1.00");
  }

  @Test
  void secondsPastTheLogAndABaselineOfZeroGiveZerosAndNan() {
    assertThat(line("kept", new RebuildReport.Times(100.0, 100.0, 100.2, 100.3), 0, 0, 20))
        .isEqualTo(
            "rebuild kept restart_to_full_s 0.30 copied_slots 0 copied_mb 0.0 copy_mb_s 0.0"
                + " copy_slots_s 0 foreground_appends_s 0 baseline_appends_s 0 fraction 0.00"
                + " foreground_during_copy_appends_s nan fraction_during_copy nan"
                + " p99_ms_median_second nan p99_ms_worst_second nan baseline_p99_ms 9.8"
                + " foreground_before_appends_s 0 fraction_before 0.00"
                + " foreground_after_full_appends_s nan fraction_after_full nan");
  }

  @Test
  void theCopyBeforeJoiningIsReadFromTheNodesLogAndCountedInTheWholeRate() {
    List<String> log =
        List.of(
            "2026-12-05T21:04:18.000Z [main] INFO io.vcorfu.server.cluster.PreJoinCopy - node"
                + " 127.0.0.1:19603 copied 150125 slots (1048576000 bytes) in 3777 ms before"
                + " joining",
            "2026-12-05T21:04:23.474Z [cluster-membership] INFO ... joins its chains");
    assertThat(RebuildReport.preJoinFields(log, 20.0, 52428800))
        .isEqualTo(" pre_join_mb 1000.0 pre_join_s 3.78 copy_all_mb_s 52.5");
    assertThat(RebuildReport.preJoinFields(List.of("no copy"), 10.0, 10485760))
        .isEqualTo(" pre_join_mb 0.0 pre_join_s 0.00 copy_all_mb_s 1.0");
  }

  @Test
  void aCopysLineGivesItsRateAndWhatItCostPerHundredMegabytes() {
    // 1,000 MiB in 10 s; the machine 11 processor-seconds, the restarted node 7 of them (2 in its
    // compilers), the sources 3.
    assertThat(RebuildReport.copyLine(10.0, 1000L * 1048576, 11.0, 7.0, 2.0, 3.0))
        .isEqualTo(
            "copy mb 1000 seconds 10.0 mb_s 100.0 machine_proc_s 11.0 per_100mb 1.10"
                + " restarted_proc_s 7.0 restarted_compile_s 2.0 copy_work_per_100mb 0.50"
                + " sources_proc_s 3.0");
    assertThat(RebuildReport.copyLine(0.0, 0, 0.5, 0.4, 0.1, 0.0))
        .isEqualTo(
            "copy mb 0 seconds 0.0 mb_s 0.0 machine_proc_s 0.5 per_100mb 0.00"
                + " restarted_proc_s 0.4 restarted_compile_s 0.1 copy_work_per_100mb 0.00"
                + " sources_proc_s 0.0");
  }

  @Test
  void theBytesCopiedBeforeTheJoinAreTheLastCopysFromTheLog() {
    List<String> log =
        List.of(
            "... node 127.0.0.1:9203 copied 10 slots (2048 bytes) in 5 ms before joining (1"
                + " passes)",
            "... node 127.0.0.1:9203 copied 17262 slots (1132524006 bytes) in 9354 ms before"
                + " joining (2 passes)");
    assertThat(RebuildReport.preJoinBytes(log)).isEqualTo(1132524006L);
    assertThat(RebuildReport.preJoinBytes(List.of("no copy"))).isZero();
  }

  @Test
  void theTimelineHasOneRowPerSecondWithTheLastSampledMibAndThatSecondsEvents() {
    List<double[]> samples =
        List.of(
            new double[] {1000.5, 0},
            new double[] {1003.2, 1048576},
            new double[] {1003.9, 3145728},
            new double[] {1006.1, 8388608});
    List<Map.Entry<Double, String>> events =
        List.of(
            new SimpleEntry<>(1002.1, "kill"),
            new SimpleEntry<>(1002.6, "removed"),
            new SimpleEntry<>(1002.7, "restart"),
            new SimpleEntry<>(1003.2, "copying"),
            new SimpleEntry<>(1006.1, "copied"),
            new SimpleEntry<>(1006.9, "promoted"));
    assertThat(RebuildReport.timeline(1000.0, FG, samples, events))
        .isEqualTo(
            "second\tappends\trebuild_mib\tevent\tp99_ms\n"
                + "1\t900\t0.0\t\t12.5\n"
                + "2\t1000\t0.0\t\t10.0\n"
                + "3\t1100\t0.0\tkill,removed,restart\t9.5\n"
                + "4\t500\t3.0\tcopying\t80.25\n"
                + "5\t400\t3.0\t\t95.0\n"
                + "6\t450\t3.0\t\t-\n"
                + "7\t800\t8.0\tcopied,promoted\t20.0\n"
                + "8\t1050\t8.0\t\t11.0\n"
                + "9\t1000\t8.0\t\t-\n");
  }

  @Test
  void theRateIsTheFigureBeforeTheFirstPerSecondWord() {
    String line =
        "append threads 8 conns 8 streams 32 size 1024: 322 appends in 2.0 s = 161 appends/s (0.16"
            + " MB/s), latency_ms p50 42.074 p99 206.569";
    assertThat(RebuildReport.rate(line)).isEqualTo("161");
    assertThat(Markdown.field(line, "p99")).isEqualTo("206.569");
    assertThat(RebuildReport.rate("no figure here")).isEmpty();
  }
}
