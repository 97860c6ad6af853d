package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.layout.LayoutStore;
import io.vcorfu.layout.TestEnsembles;
import io.vcorfu.layout.ZkLayoutStore;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A sequencer records its first read-lease grant in ZooKeeper only under the layout it adopted:
 * once a newer layout is committed (the cluster has moved on, and a new sequencer may already have
 * looked for the record and found none), an older sequencer that has not adopted it yet cannot
 * record, so it grants no lease that the new sequencer would not wait out.
 */
class ReadLeaseRecordTest {
  @Test
  void aSequencerBehindTheCommittedLayoutCannotRecordItsFirstGrant() throws Exception {
    List<Endpoint> nodes =
        List.of(new Endpoint("a", 1), new Endpoint("b", 2), new Endpoint("c", 3));
    try (TestingServer zk = TestEnsembles.server();
        InJvmTransport transport = new InJvmTransport();
        ZkLayoutStore store =
            ZkLayoutStore.connect(zk.getConnectString(), "test", Duration.ofSeconds(10))) {
      Layout first = LayoutChanges.initial("test", nodes, 3);
      store.compareAndSet(LayoutStore.NO_VERSION, first).join();
      CountDownLatch inSecond = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      ClusterMembership.Follower follower =
          (layout, version, initial) -> {
            if (layout.epoch() > first.epoch()) {
              inSecond.countDown();
              try {
                release.await(30, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
          };
      try (ClusterMembership m =
          ClusterMembership.start(
              ClusterConfig.of(zk.getConnectString(), "test"),
              nodes.get(0),
              new NodeCalls(transport.newClient(ClientOptions.defaults())),
              () -> 0,
              follower)) {
        Awaitility.await("the first layout adopted")
            .atMost(Duration.ofSeconds(20))
            .until(() -> m.lease().whyNotValid() == null);
        store
            .compareAndSet(store.get().join().version(), first.withEpoch(first.epoch() + 1))
            .join();
        assertThat(inSecond.await(20, TimeUnit.SECONDS)).as("the new layout delivered").isTrue();

        assertThatThrownBy(m::recordReadLeases)
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("layout has changed");
        assertThat(m.readLeasesGranted()).as("a grant recorded behind the new layout").isFalse();

        release.countDown();
        Awaitility.await("recorded under the adopted new layout")
            .atMost(Duration.ofSeconds(20))
            .ignoreExceptions()
            .until(
                () -> {
                  m.recordReadLeases();
                  return true;
                });
        assertThat(m.readLeasesGranted()).isTrue();
      }
    }
  }
}
