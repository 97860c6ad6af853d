package io.vcorfu.benchmarks.ycsb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import site.ycsb.workloads.CoreWorkload;

class YcsbWorkloadsTest {
  @ParameterizedTest(name = "workload {0}")
  @CsvSource({
    // letter, read, update, scan, insert, read-modify-write, request distribution
    "a, 0.5, 0.5, 0, 0, 0, zipfian",
    "b, 0.95, 0.05, 0, 0, 0, zipfian",
    "c, 1, 0, 0, 0, 0, zipfian",
    "d, 0.95, 0, 0, 0.05, 0, latest",
    "e, 0, 0, 0.95, 0.05, 0, zipfian",
    "f, 0.5, 0, 0, 0, 0.5, zipfian"
  })
  void workloadHasTheStandardProportionsAndDistribution(
      String letter,
      double read,
      double update,
      double scan,
      double insert,
      double rmw,
      String distribution) {
    Properties p = YcsbWorkloads.load(letter);
    assertThat(p.getProperty("workload")).isEqualTo(CoreWorkload.class.getName());
    Map<String, Double> proportions =
        Map.of(
            "readproportion",
            read,
            "updateproportion",
            update,
            "scanproportion",
            scan,
            "insertproportion",
            insert,
            "readmodifywriteproportion",
            rmw);
    proportions.forEach(
        (name, value) ->
            assertThat(Double.parseDouble(p.getProperty(name))).as(name).isEqualTo(value));
    assertThat(proportions.values().stream().mapToDouble(Double::doubleValue).sum())
        .isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(p.getProperty("requestdistribution")).isEqualTo(distribution);
  }

  @Test
  void workloadEScansUpToOneHundredRecordsWithUniformLength() {
    Properties p = YcsbWorkloads.load("e");
    assertThat(p.getProperty("maxscanlength")).isEqualTo("100");
    assertThat(p.getProperty("scanlengthdistribution")).isEqualTo("uniform");
  }

  @ParameterizedTest(name = "workload {0}")
  @ValueSource(strings = {"a", "b", "c", "d", "e", "f"})
  void coreWorkloadAcceptsTheFile(String letter) throws Exception {
    Properties p = YcsbWorkloads.load(letter);
    site.ycsb.measurements.Measurements.setProperties(p);
    CoreWorkload workload = new CoreWorkload();
    org.assertj.core.api.Assertions.assertThatCode(() -> workload.init(p))
        .doesNotThrowAnyException();
    workload.cleanup();
  }

  @ParameterizedTest(name = "workload {0}")
  @ValueSource(strings = {"a", "b", "c", "d", "e", "f"})
  void resourceIsTheFileInTheSourceTree(String letter) throws Exception {
    Path source = Path.of("ycsb", "workloads", "workload" + letter);
    org.junit.jupiter.api.Assumptions.assumeTrue(
        Files.exists(source), "tests run outside the benchmarks module directory");
    try (var in =
        YcsbWorkloads.class.getClassLoader().getResourceAsStream(YcsbWorkloads.resource(letter))) {
      assertThat(in.readAllBytes()).isEqualTo(Files.readAllBytes(source));
    }
  }

  @Test
  void extractWritesALoadableCopy(@TempDir Path dir) throws Exception {
    Path file = YcsbWorkloads.extract("D", dir);
    Properties p = new Properties();
    try (var in = Files.newInputStream(file)) {
      p.load(in);
    }
    assertThat(p).isEqualTo(YcsbWorkloads.load("d"));
  }

  @Test
  void lettersAndFileNamesAreAcceptedAndOthersRejected() {
    assertThat(YcsbWorkloads.letter("A")).isEqualTo("a");
    assertThat(YcsbWorkloads.letter("workloadf")).isEqualTo("f");
    assertThatThrownBy(() -> YcsbWorkloads.letter("g"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("choose one of a, b, c, d, e, f");
  }
}
