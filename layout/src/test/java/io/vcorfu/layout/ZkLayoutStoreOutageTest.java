package io.vcorfu.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vcorfu.protocol.Endpoint;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/** ZooKeeper going away and coming back, with a short session and connection timeout. */
class ZkLayoutStoreOutageTest {
  static final Duration SESSION = Duration.ofMillis(1500);

  /**
   * How long a call may take to fail while ZooKeeper is down: a few connection timeouts (a call
   * takes 1 to 3 s here), with room for a loaded machine.
   */
  static final long FAIL_WITHIN_SECONDS = 15;

  static final Layout LAYOUT =
      LayoutChanges.initial(
          "outage", List.of(new Endpoint("127.0.0.1", 9001), new Endpoint("127.0.0.1", 9002)), 2);

  static Throwable failureWithinBound(CompletableFuture<?> f) throws Exception {
    try {
      Object value = f.get(FAIL_WITHIN_SECONDS, TimeUnit.SECONDS);
      throw new AssertionError("expected the call to fail, but it returned " + value);
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }

  @Test
  void callsFailAsUnavailableWhileZooKeeperIsDownAndWorkAgainAfterItRestarts() throws Exception {
    try (TestingServer zookeeper = TestEnsembles.server();
        ZkLayoutStore store =
            ZkLayoutStore.connect(zookeeper.getConnectString(), "outage", SESSION)) {
      store.compareAndSet(LayoutStore.NO_VERSION, LAYOUT).join();
      List<Versioned<Layout>> seen = new CopyOnWriteArrayList<>();
      ZkLayoutStore.Watch watch = store.watch(seen::add);
      await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() == 1);

      zookeeper.stop();

      // The four calls at once: each fails on its own within the bound.
      CompletableFuture<Versioned<Layout>> get = store.get();
      CompletableFuture<?> update = store.compareAndSet(0, LAYOUT.withEpoch(2));
      CompletableFuture<?> create = store.compareAndSet(LayoutStore.NO_VERSION, LAYOUT);
      CompletableFuture<?> version = store.currentVersion();
      assertThat(failureWithinBound(get))
          .isInstanceOf(LayoutStoreUnavailableException.class)
          .hasMessageContaining("ZooKeeper at " + zookeeper.getConnectString())
          .hasMessageContaining("could not be reached");
      assertThat(failureWithinBound(update))
          .isInstanceOf(LayoutStoreUnavailableException.class)
          .hasMessageContaining("could not be reached")
          .hasMessageContaining("may or may not have been stored");
      assertThat(failureWithinBound(create)).isInstanceOf(LayoutStoreUnavailableException.class);
      assertThat(failureWithinBound(version)).isInstanceOf(LayoutStoreUnavailableException.class);

      zookeeper.restart();

      await()
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .until(() -> store.get().join().equals(new Versioned<>(LAYOUT, 0)));
      assertThat(store.compareAndSet(0, LAYOUT.withEpoch(2)).join().version()).isEqualTo(1);
      assertThat(store.currentVersion().join()).isEqualTo(1);
      await().atMost(Duration.ofSeconds(60)).until(() -> seen.get(seen.size() - 1).version() == 1);
      assertThat(seen)
          .containsExactly(new Versioned<>(LAYOUT, 0), new Versioned<>(LAYOUT.withEpoch(2), 1));
      watch.close();
    }
  }
}
