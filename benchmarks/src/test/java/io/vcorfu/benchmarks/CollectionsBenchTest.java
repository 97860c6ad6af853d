package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.server.cli.VcorfuCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/** Every {@code bench collections} mode runs against a real node, measures, and its checks pass. */
class CollectionsBenchTest {
  @RegisterExtension static final BenchNode NODE = new BenchNode();

  @Test
  void openMeasuresEveryStepOfEveryDistributionAndReadsTheRightValues() {
    List<Map<String, String>> lines =
        results(
            run(
                "--mode open --max-updates 60 --steps 2 --reps 2 --keys 20 "
                    + "--fill-threads 3 --value-size 64 --kinds smr,csmr --buckets 3"),
            "open");
    assertThat(lines)
        .extracting(
            f ->
                f.get("kind")
                    + "/"
                    + f.get("buckets")
                    + " "
                    + f.get("dist")
                    + "@"
                    + f.get("updates"))
        .containsExactly(
            "smr/1 uniform@6",
            "smr/1 uniform@60",
            "smr/1 zipf@6",
            "smr/1 zipf@60",
            "csmr/3 uniform@6",
            "csmr/3 uniform@60",
            "csmr/3 zipf@6",
            "csmr/3 zipf@60");
    assertThat(lines)
        .allSatisfy(
            f -> {
              assertThat(f).containsEntry("wrong", "0").containsEntry("reps", "2");
              assertThat(Double.parseDouble(f.get("open_read_ms.max")))
                  .isPositive()
                  .isGreaterThanOrEqualTo(Double.parseDouble(f.get("open_read_ms.p50")));
            });
  }

  @Test
  void abortsCommitTransactionsAndOnlyCommittedWritesAreInTheMap() {
    List<Map<String, String>> lines =
        results(
            run(
                "--mode aborts --writers-list 1,3 --duration 0.5 --keys 4 "
                    + "--dists zipf --value-size 64 --kinds smr,csmr --buckets 2"),
            "aborts");
    assertThat(lines)
        .extracting(f -> f.get("kind") + "/" + f.get("buckets") + " " + f.get("writers"))
        .containsExactly("smr/1 1", "smr/1 3", "csmr/2 1", "csmr/2 3");
    assertThat(lines)
        .allSatisfy(
            f -> {
              assertThat(Long.parseLong(f.get("committed"))).isPositive();
              assertThat(f).containsEntry("keys_check", "ok");
            });
    assertThat(lines.get(0)).containsEntry("aborted", "0");
    assertThat(lines.get(2)).containsEntry("aborted", "0");
  }

  @Test
  void clearEmptiesTheMapThroughLocalAndRemoteViews() {
    List<Map<String, String>> lines =
        results(
            run(
                "--mode clear --clear-keys 30 --reps 2 --value-size 64 --kinds csmr,smr "
                    + "--buckets 2,5"),
            "clear");
    assertThat(lines)
        .extracting(f -> f.get("kind") + "/" + f.get("buckets") + " " + f.get("view"))
        .containsExactly(
            "csmr/2 local",
            "csmr/2 remote",
            "csmr/5 local",
            "csmr/5 remote",
            "smr/1 local",
            "smr/1 remote");
    assertThat(lines)
        .allSatisfy(f -> assertThat(f).containsEntry("wrong", "0").containsEntry("keys", "30"));
  }

  @Test
  void unknownModeAndKindAreRefusedWithWhatIsKnown() {
    CommandLine cl = VcorfuCli.commandLine(new CollectionsBench());
    StringWriter err = new StringWriter();
    cl.setErr(new PrintWriter(err));
    assertThat(cl.execute("--mode", "nope", "--endpoint", NODE.endpoint())).isEqualTo(1);
    assertThat(err.toString()).contains("unknown mode 'nope'").contains("open, aborts, clear");
    assertThat(cl.execute("--mode", "open", "--kinds", "btree", "--endpoint", NODE.endpoint()))
        .isEqualTo(1);
    assertThat(err.toString()).contains("unknown map kind 'btree'").contains("smr, csmr");
  }

  private static List<Map<String, String>> results(List<String> lines, String mode) {
    assertThat(lines).noneMatch(l -> l.contains("could not run") || l.startsWith("stopped early"));
    return lines.stream()
        .filter(l -> l.startsWith("collections mode=" + mode + " "))
        .map(CollectionsSummary::fields)
        .toList();
  }

  private static List<String> run(String args) {
    return NODE.run(new CollectionsBench(), args);
  }
}
