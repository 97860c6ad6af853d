package io.vcorfu.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.client.ClusterRetention;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Which retention a runtime keeps: the cluster's values where it set them, for a runtime left at
 * the default; its own otherwise.
 */
class RetentionTest {
  @Test
  void theDefaultTakesWhatTheClusterSetAndKeepsTheRest() {
    Retention r = Retention.DEFAULT.following(new ClusterRetention(500, null));
    assertThat(r.retainVersions()).isEqualTo(500);
    assertThat(r.retainTime()).isEqualTo(Retention.DEFAULT.retainTime());
    assertThat(r.checkpointMinBytes()).isEqualTo(Retention.DEFAULT.checkpointMinBytes());

    Retention both = Retention.DEFAULT.following(new ClusterRetention(0, Duration.ofDays(7)));
    assertThat(both.retainVersions()).isZero();
    assertThat(both.retainTime()).isEqualTo(Duration.ofDays(7));
  }

  @Test
  void aRuntimeWithItsOwnRetentionOrAClusterWithoutOneChangesNothing() {
    Retention own = Retention.DEFAULT.withRetainVersions(3);
    assertThat(own.following(new ClusterRetention(500, Duration.ofDays(1)))).isSameAs(own);
    assertThat(Retention.KEEP_ALL.following(new ClusterRetention(500, null)))
        .isSameAs(Retention.KEEP_ALL);
    assertThat(Retention.DEFAULT.following(ClusterRetention.NONE)).isSameAs(Retention.DEFAULT);
  }

  @Test
  void aRuntimeThatChangesOnlyHowOftenItCheckpointsStillTakesTheClustersHistory() {
    Retention cadence = Retention.DEFAULT.withCheckpointMinBytes(1 << 20).withHistoryBudgetBytes(0);
    Retention r = cadence.following(new ClusterRetention(500, Duration.ofDays(1)));
    assertThat(r.retainVersions()).isEqualTo(500);
    assertThat(r.retainTime()).isEqualTo(Duration.ofDays(1));
    assertThat(r.checkpointMinBytes()).isEqualTo(1 << 20);
    assertThat(r.historyBudgetBytes()).isZero();
  }

  @Test
  void aNegativeHistoryBudgetIsRefusedWithWhatZeroMeans() {
    assertThatThrownBy(() -> Retention.DEFAULT.withHistoryBudgetBytes(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0 checkpoints each object on its own");
  }

  @Test
  void theDefaultIsTheDocumentedOne() {
    assertThat(Retention.DEFAULT.checkpointMinBytes()).isEqualTo(64 << 10);
    assertThat(Retention.DEFAULT.historyBudgetBytes()).isEqualTo(64 << 20);
    assertThat(Retention.DEFAULT.retainVersions()).isEqualTo(20);
    assertThat(Retention.DEFAULT.retainTime()).isZero();
    assertThat(Retention.DEFAULT.trim()).isTrue();
  }
}
