package io.vcorfu.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The storage suite's lines against what run-storage.sh printed (its printf and python3 on the same
 * numbers), its defaults and the values it rejects.
 */
class StorageTableTest {
  @Test
  void theHeaderAndRowsAreTheScriptsToTheByte() {
    // printf '%-6s %14s %8s %12s %8s %14s %8s\n' round disk_bytes x_round1 run_ops_s ...
    assertThat(StorageTable.header())
        .isEqualTo("round      disk_bytes x_round1    run_ops_s x_round1  settled_bytes x_round1");
    assertThat(StorageTable.row(1, 10485760, 10485760, 4321, 4321, null, null))
        .isEqualTo("1            10485760     1.00         4321     1.00              -        -");
    assertThat(StorageTable.row(3, 15728640, 10485760, 3900, 4321, 9000000L, 12000000L))
        .isEqualTo("3            15728640     1.50         3900     0.90        9000000     0.75");
    assertThat(StorageTable.row(2, 1, 1, 1, 1, 12000000L, 12000000L)).endsWith(" 1.0");
  }

  @Test
  void settledRatiosArePrintedAsPythonPrintsRound() {
    assertThat(StorageTable.pythonRound2(1.0)).isEqualTo("1.0");
    assertThat(StorageTable.pythonRound2(0.5)).isEqualTo("0.5");
    assertThat(StorageTable.pythonRound2(2.0 / 3)).isEqualTo("0.67");
    assertThat(StorageTable.pythonRound2(12.999)).isEqualTo("13.0");
    // round(2.675, 2) is 2.67 in Python: the double is just under 2.675.
    assertThat(StorageTable.pythonRound2(2.675)).isEqualTo("2.67");
  }

  @Test
  void theRunRateAndTheStorageLineAreAsPythonPrintedThem() throws Exception {
    assertThat(StorageTable.runRate("{\"load\":{},\"run\":{\"ops_per_second\":4320.5}}"))
        .isEqualTo(4320);
    assertThatThrownBy(() -> StorageTable.runRate("{\"error\":\"no node\"}"))
        .hasMessageContaining("no run-phase rate");
    String status =
        "{\"storage\":{\"segments\":3,\"fileBytes\":100,\"trimMark\":-1,\"compacting\":false,"
            + "\"dirs\":[\"a\",\"b\"],\"ratio\":0.5,\"x\":null}}";
    assertThat(StorageTable.nodeLine("127.0.0.1:19700", new ObjectMapper().readTree(status)))
        .isEqualTo(
            "node 127.0.0.1:19700 storage: {\"segments\": 3, \"fileBytes\": 100, \"trimMark\": -1,"
                + " \"compacting\": false, \"dirs\": [\"a\", \"b\"], \"ratio\": 0.5, \"x\":"
                + " null}");
  }

  @Test
  void theDiskCountsEveryReplicasDirectoryAsDuDoes(@TempDir Path dir) throws Exception {
    Files.createDirectories(dir.resolve("n1/data/replicas/log"));
    Files.write(dir.resolve("n1/data/replicas/log/seg-0"), new byte[1000]);
    Files.createDirectories(dir.resolve("n2/data/replicas"));
    Files.write(dir.resolve("n2/data/replicas/seg-0"), new byte[24]);
    Files.createDirectories(dir.resolve("zk/data/replicas"));
    Files.write(dir.resolve("zk/data/replicas/other"), new byte[500]);
    long dirs =
        Files.size(dir.resolve("n1/data/replicas"))
            + Files.size(dir.resolve("n1/data/replicas/log"))
            + Files.size(dir.resolve("n2/data/replicas"));
    assertThat(StorageSuite.disk(dir)).isEqualTo(1024 + dirs);
  }

  @Test
  void theDefaultsAreTheScriptsAndNonsenseIsRejected() {
    StorageSuite s = new StorageSuite();
    new CommandLine(s).parseArgs();
    assertThat(new int[] {s.rounds, s.records, s.operations, s.threads, s.base, s.settle})
        .containsExactly(10, 1000, 100000, 8, 19700, 0);
    assertThat(s.cluster).isFalse();
    assertThat(s.workdir).isNull();
    s.validate();
    StorageSuite bad = new StorageSuite();
    new CommandLine(bad).parseArgs("--threads", "0");
    assertThatThrownBy(bad::validate).hasMessageContaining("--threads");
    StorageSuite negative = new StorageSuite();
    new CommandLine(negative).parseArgs("--settle", "-1");
    assertThatThrownBy(negative::validate).hasMessageContaining("--settle");
    assertThatThrownBy(() -> new CommandLine(new StorageSuite()).parseArgs("--rounds", "x"))
        .isInstanceOf(CommandLine.ParameterException.class);
  }
}
