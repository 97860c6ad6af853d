package io.vcorfu.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class CompactionSuiteTest {
  @Test
  void theStorageLineNamesEveryFigureAsPythonPrintedIt() throws Exception {
    String json =
        "{\"storage\":{\"fileBytes\":262144000,\"liveBytes\":131072000,\"segments\":4,"
            + "\"segmentsCompacted\":1,\"compactionCopiedBytes\":1024,"
            + "\"compactionReclaimedBytes\":2048,\"compacting\":true}}";
    assertThat(CompactionSuite.storageLine(new ObjectMapper().readTree(json)))
        .isEqualTo(
            "files 262144000 live 131072000 segments 4 compacted 1 copied 1024 reclaimed 2048"
                + " compacting True");
  }

  @Test
  void theRateIsRoundedToTheEvenNeighbourOnATie() throws Exception {
    assertThat(CompactionSuite.rate("{\"ops_per_second\": 1234.5}")).isEqualTo(1234);
    assertThat(CompactionSuite.rate("{\"ops_per_second\": 1235.5}")).isEqualTo(1236);
    assertThat(CompactionSuite.rate("{\"ops_per_second\": 99.51}")).isEqualTo(100);
  }
}
