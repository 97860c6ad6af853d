package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CollectionsSummaryTest {
  private static final List<String> RAW =
      List.of(
          "# 2026-11-22T18:00:00Z nproc 2",
          "$ vcorfu bench collections --mode open",
          "collections mode=open kind=smr buckets=1 dist=uniform updates=20 mb=0.0 reps=2"
              + " open_read_ms p50 5.000 max 9.000 wrong=0",
          "collections mode=open kind=smr buckets=1 dist=uniform updates=200 mb=0.2 reps=2"
              + " open_read_ms p50 15.000 max 19.000 wrong=1",
          "collections mode=open kind=csmr buckets=10 dist=zipf updates=20 mb=0.0 reps=2"
              + " open_read_ms p50 1.000 max 2.000 wrong=0",
          "collections mode=open kind=csmr buckets=100 dist=zipf: could not run:"
              + " java.lang.IllegalStateException: boom",
          "collections mode=aborts kind=smr buckets=1 dist=zipf writers=2 keys=1000 seconds=1.0"
              + " committed=90 aborted=10 abort_rate=10.00% commits_per_s=90 keys_check=ok"
              + " latency_ms p50 1.000 p99 2.000 p999 3.000 max 4.000",
          "collections mode=aborts kind=smr buckets=1 dist=zipf writers=16 keys=1000 seconds=1.0"
              + " committed=50 aborted=50 abort_rate=50.00% commits_per_s=50 keys_check=FAILED"
              + " latency_ms p50 1.000 p99 2.000 p999 3.000 max 4.000",
          "collections mode=clear kind=csmr buckets=10 view=remote keys=200 reps=2 open_ms p50"
              + " 1.000 max 1.000 clear_ms p50 2.000 max 2.000 size_ms p50 3.000 max 3.000 total_ms"
              + " p50 6.000 max 6.000 wrong=0",
          "collections mode=clear kind=csmr buckets=10 view=local keys=200 reps=2 open_ms p50 1.000"
              + " max 1.000 clear_ms p50 20.000 max 20.000 size_ms p50 30.000 max 30.000 total_ms"
              + " p50 51.000 max 51.000 wrong=0");

  @Test
  void fieldsReadKeyValuesAndTimingGroups() {
    Map<String, String> f = CollectionsSummary.fields(RAW.get(8));
    assertThat(f)
        .containsEntry("mode", "clear")
        .containsEntry("view", "remote")
        .containsEntry("keys", "200")
        .containsEntry("clear_ms.p50", "2.000")
        .containsEntry("total_ms.max", "6.000")
        .containsEntry("wrong", "0");
  }

  @Test
  void openResultsArePivotedByUpdateCountWithWrongReadsFlagged() {
    String md = CollectionsSummary.markdown(RAW);
    assertThat(md)
        .contains("| kind | buckets | dist | 20 updates | 200 updates |\n|---|---|---|---:|---:|\n")
        .contains("| smr | 1 | uniform | 5.000 / 9.000 | 15.000 / 19.000 (1 wrong) |\n")
        .contains("| csmr | 10 | zipf | 1.000 / 2.000 | - |\n");
  }

  @Test
  void abortResultsArePivotedByWritersWithFailedChecksFlagged() {
    String md = CollectionsSummary.markdown(RAW);
    assertThat(md)
        .contains("| kind | buckets | dist | 2 writers | 16 writers |")
        .contains("| smr | 1 | zipf | 10.00% (90 / 10) | 50.00% (50 / 50) check FAILED |");
  }

  @Test
  void clearResultsPutLocalBeforeRemote() {
    String md = CollectionsSummary.markdown(RAW);
    assertThat(md)
        .contains("| kind | buckets | local | remote |\n|---|---|---:|---:|\n")
        .contains(
            "| csmr | 10 | 51.000 (clear 20.000, size 30.000) | 6.000 (clear 2.000, size 3.000) |");
  }

  @Test
  void configurationsThatCouldNotRunAreListedAndOtherLinesIgnored() {
    String md = CollectionsSummary.markdown(RAW);
    assertThat(md)
        .contains(
            "Could not run:\n\n- mode=open kind=csmr buckets=100 dist=zipf: could not run: "
                + "java.lang.IllegalStateException: boom\n");
    assertThat(md).doesNotContain("nproc").doesNotContain("$ vcorfu");
    assertThat(CollectionsSummary.markdown(List.of("nothing here"))).isEmpty();
  }
}
