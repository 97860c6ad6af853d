package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.layout.ZkAuth;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Each with- method of {@link ClusterConfig} changes its components only, and checks them. */
class ClusterConfigTest {
  private final ClusterConfig base =
      ClusterConfig.of("127.0.0.1:2181", "c").withZookeeperAuth(new ZkAuth("vcorfu", "secret"));

  @Test
  void eachWithChangesItsComponentsAndKeepsTheOthers() {
    Duration d = Duration.ofMillis(777);
    assertThat(base.withLayoutLease(d)).isEqualTo(copy(base, d, null, null, null, -1, null, null));
    assertThat(base.withSessionTimeout(Duration.ofSeconds(7)))
        .isEqualTo(copy(base, null, null, null, Duration.ofSeconds(7), -1, null, null));
    assertThat(base.withProbing(Duration.ofMillis(10), Duration.ofMillis(900)))
        .isEqualTo(
            copy(base, null, Duration.ofMillis(10), Duration.ofMillis(900), null, -1, null, null));
    assertThat(base.withRebuildRate(5))
        .isEqualTo(copy(base, null, null, null, null, 5, null, null));
    assertThat(base.withRebuildForegroundP99(d))
        .isEqualTo(copy(base, null, null, null, null, -1, d, null));
    assertThat(base.withMemberHealDelay(d))
        .isEqualTo(copy(base, null, null, null, null, -1, null, d));
    assertThat(base.withZookeeperAuth(null).zookeeperAuth()).isNull();
    assertThat(base.withLayoutLease(d).zookeeperAuth()).isEqualTo(new ZkAuth("vcorfu", "secret"));
  }

  @Test
  void aChangedConfigurationIsCheckedAsANewOne() {
    assertThatThrownBy(() -> base.withProbing(Duration.ofMillis(500), Duration.ofMillis(100)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be at least the probe interval");
    assertThatThrownBy(() -> base.withMemberHealDelay(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static ClusterConfig copy(
      ClusterConfig c,
      Duration lease,
      Duration probe,
      Duration failure,
      Duration session,
      long rate,
      Duration p99,
      Duration heal) {
    return new ClusterConfig(
        c.zookeeper(),
        c.name(),
        lease != null ? lease : c.layoutLease(),
        probe != null ? probe : c.probeInterval(),
        failure != null ? failure : c.failureTimeout(),
        session != null ? session : c.sessionTimeout(),
        rate >= 0 ? rate : c.rebuildBytesPerSecond(),
        p99 != null ? p99 : c.rebuildForegroundP99(),
        heal != null ? heal : c.memberHealDelay(),
        c.zookeeperAuth(),
        c.zookeeperTls(),
        c.preJoinCopyLimit());
  }
}
