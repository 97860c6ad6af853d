package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import org.junit.jupiter.api.Test;

class CollectionWorkloadsTest {
  @Test
  void decadesEndAtTheMaximumAndAscend() {
    assertThat(CollectionWorkloads.decades(102_400, 4))
        .containsExactly(102L, 1024L, 10_240L, 102_400L);
    assertThat(CollectionWorkloads.decades(2000, 3)).containsExactly(20L, 200L, 2000L);
    assertThat(CollectionWorkloads.decades(2000, 1)).containsExactly(2000L);
    assertThat(CollectionWorkloads.decades(5, 3)).containsExactly(5L);
    assertThat(CollectionWorkloads.decades(15, 3)).containsExactly(1L, 15L);
    assertThatThrownBy(() -> CollectionWorkloads.decades(0, 3))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void p50MaxReportsTheLowerMedianAndTheMaximumInMilliseconds() {
    assertThat(CollectionWorkloads.p50Max(new long[] {3_000_000, 1_000_000, 2_000_000}))
        .isEqualTo("p50 2.000 max 3.000");
    assertThat(CollectionWorkloads.p50Max(new long[] {4_000_000, 1_000_000}))
        .isEqualTo("p50 1.000 max 4.000");
    assertThat(CollectionWorkloads.p50Max(new long[0])).isEqualTo("p50 - max -");
  }

  @Test
  void p50MaxJsonHasTheSameFiguresAsNumbers() {
    assertThat(CollectionWorkloads.p50MaxJson(new long[] {4_000_000, 1_000_000}).toString())
        .isEqualTo("{\"p50_ms\":1.0,\"max_ms\":4.0}");
    assertThat(CollectionWorkloads.p50MaxJson(new long[0]).toString())
        .isEqualTo("{\"p50_ms\":null,\"max_ms\":null}");
  }

  @Test
  void valuesNameTheirKeyAndReadsAreJudgedAgainstTheKeysWritten() {
    try (MapFill fill = new MapFill(1, 1024)) {
      byte[] v = fill.value(42, 7);
      assertThat(v).hasSize(1024);
      assertThat(fill.keyOf(v)).isEqualTo(42);
      assertThat(fill.keyOf(new byte[3])).isEqualTo(-1);
      assertThat(fill.readIsRight(42, v, Set.of(42L))).isTrue();
      assertThat(fill.readIsRight(43, v, Set.of(42L, 43L))).isFalse();
      assertThat(fill.readIsRight(42, null, Set.of(42L))).isFalse();
      assertThat(fill.readIsRight(44, null, Set.of(42L))).isTrue();
    }
  }
}
