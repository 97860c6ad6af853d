package io.vcorfu.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The collections suite's runs and flags, as run-collections.sh chose them. */
class CollectionsSuiteTest {
  @Test
  void theFullRunIsTheScripts() {
    assertThat(CollectionsSuite.runs(false, Map.of()))
        .containsExactly(
            java.util.List.of(
                "--mode",
                "open",
                "--max-updates",
                "102400",
                "--steps",
                "4",
                "--reps",
                "5",
                "--keys",
                "100000"),
            java.util.List.of(
                "--mode",
                "aborts",
                "--duration",
                "10",
                "--writers-list",
                "2,4,8,16",
                "--keys",
                "100000"),
            java.util.List.of("--mode", "clear", "--clear-keys", "10000", "--reps", "5"));
  }

  @Test
  void theQuickRunIsTheScriptsAndTheEnvironmentOverridesUpdatesAndDuration() {
    assertThat(CollectionsSuite.runs(true, Map.of()).get(0))
        .containsExactly(
            "--mode",
            "open",
            "--max-updates",
            "2000",
            "--steps",
            "3",
            "--reps",
            "2",
            "--keys",
            "1000");
    assertThat(CollectionsSuite.runs(true, Map.of("MAX_UPDATES", "500", "DURATION", "3")))
        .satisfies(
            r -> {
              assertThat(r.get(0)).contains("500").doesNotContain("2000");
              assertThat(r.get(1))
                  .containsExactly(
                      "--mode",
                      "aborts",
                      "--duration",
                      "3",
                      "--writers-list",
                      "2,16",
                      "--keys",
                      "1000");
              assertThat(r.get(2))
                  .containsExactly("--mode", "clear", "--clear-keys", "200", "--reps", "2");
            });
    // An empty variable is the default, as ${VAR:-default} has it.
    assertThat(CollectionsSuite.runs(true, Map.of("DURATION", "")).get(1)).contains("1");
  }

  @Test
  void javaOptionsReplaceTheDefaultCollector() {
    assertThat(CollectionsSuite.javaOpts(Map.of())).containsExactly("-XX:+UseParallelGC");
    assertThat(CollectionsSuite.javaOpts(Map.of("VCORFU_JAVA_OPTS", "")))
        .containsExactly("-XX:+UseParallelGC");
    assertThat(CollectionsSuite.javaOpts(Map.of("VCORFU_JAVA_OPTS", " -XX:+UseG1GC  -Xmx2g ")))
        .containsExactly("-XX:+UseG1GC", "-Xmx2g");
  }

  @Test
  void onlyResultStopAndErrorLinesAreKept() {
    assertThat(CollectionsSuite.kept("collections mode=open kind=smr")).isTrue();
    assertThat(CollectionsSuite.kept("stopped early: deadline")).isTrue();
    assertThat(CollectionsSuite.kept("vcorfu: cannot connect")).isTrue();
    assertThat(CollectionsSuite.kept("12:00:01 INFO progress")).isFalse();
    assertThat(CollectionsSuite.kept(" collections indented")).isFalse();
  }
}
