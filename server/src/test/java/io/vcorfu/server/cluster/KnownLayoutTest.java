package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.layout.LayoutStore;
import io.vcorfu.layout.TestEnsembles;
import io.vcorfu.layout.Versioned;
import io.vcorfu.layout.ZkLayoutStore;
import io.vcorfu.protocol.Endpoint;
import java.time.Duration;
import java.util.List;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/**
 * The newest layout a manager knows without reading ZooKeeper ({@link LayoutCommits#known}): read
 * when none is known yet; a layout this node commits is known at once, before any watch tells of
 * it; a layout committed elsewhere is known once it is learnt (the manager feeds it a watch of the
 * znode); and an older version never replaces a newer one, whatever order they are learnt in.
 */
class KnownLayoutTest {
  private static final Layout FIRST =
      LayoutChanges.initial(
          "known", List.of(new Endpoint("127.0.0.1", 9001), new Endpoint("127.0.0.1", 9002)), 2);

  @Test
  void theNewestLayoutKnownComesFromReadsOwnCommitsAndWhatIsLearntAndNeverGoesBack()
      throws Exception {
    try (TestingServer zk = TestEnsembles.server();
        ZkLayoutStore store =
            ZkLayoutStore.connect(zk.getConnectString(), "known", Duration.ofSeconds(10));
        ZkLayoutStore other =
            ZkLayoutStore.connect(zk.getConnectString(), "known", Duration.ofSeconds(10))) {
      store.compareAndSet(LayoutStore.NO_VERSION, FIRST).join();
      LayoutCommits commits =
          new LayoutCommits(
              new Endpoint("127.0.0.1", 9001),
              ClusterConfig.of(zk.getConnectString(), "known"),
              store,
              null);

      Versioned<Layout> first = commits.known();
      assertThat(first).as("nothing known yet: read").isEqualTo(new Versioned<>(FIRST, 0));

      Layout second = FIRST.withEpoch(2);
      commits.compareAndSet(first, second);
      assertThat(commits.known()).as("own commit").isEqualTo(new Versioned<>(second, 1));

      Versioned<Layout> third = other.compareAndSet(1, FIRST.withEpoch(3)).join();
      assertThat(commits.known())
          .as("a commit elsewhere, not learnt yet: no read")
          .isEqualTo(new Versioned<>(second, 1));
      commits.learn(third);
      assertThat(commits.known()).as("learnt").isEqualTo(third);

      commits.learn(first);
      commits.learn(new Versioned<>(second, 1));
      assertThat(commits.known()).as("older versions learnt late").isEqualTo(third);
      assertThat(commits.read()).as("a read").isEqualTo(third);
    }
  }
}
