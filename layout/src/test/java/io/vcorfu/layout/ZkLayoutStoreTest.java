package io.vcorfu.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.vcorfu.protocol.Endpoint;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

class ZkLayoutStoreTest {
  static final Duration SESSION = Duration.ofSeconds(10);
  static final Duration WAIT = Duration.ofSeconds(30);
  static final List<Endpoint> NODES =
      List.of(
          new Endpoint("127.0.0.1", 9001),
          new Endpoint("127.0.0.1", 9002),
          new Endpoint("127.0.0.1", 9003));

  static TestingServer zookeeper;

  String cluster;
  ZkLayoutStore store;

  @BeforeAll
  static void startZooKeeper() throws Exception {
    zookeeper = TestEnsembles.server();
  }

  @AfterAll
  static void stopZooKeeper() throws Exception {
    zookeeper.close();
  }

  @BeforeEach
  void openStore(TestInfo test) {
    cluster = test.getTestMethod().orElseThrow().getName();
    store = ZkLayoutStore.connect(zookeeper.getConnectString(), cluster, SESSION);
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  /** The cluster's layout at {@code epoch}. */
  Layout layout(long epoch) {
    return LayoutChanges.initial(cluster, NODES, 2).withEpoch(epoch);
  }

  static Throwable failureOf(CompletableFuture<?> f) {
    try {
      f.join();
    } catch (CompletionException e) {
      return e.getCause();
    }
    throw new AssertionError("expected the call to fail, but it returned " + f.join());
  }

  @Test
  void aCreatedLayoutReadsBackAtVersionZeroUnderTheClusterPath() {
    assertThat(store.path()).isEqualTo("/vcorfu/" + cluster + "/layout");
    Layout removedOne = LayoutChanges.withoutNode(layout(1), NODES.get(1), 10);

    Versioned<Layout> created = store.compareAndSet(LayoutStore.NO_VERSION, removedOne).join();

    assertThat(created).isEqualTo(new Versioned<>(removedOne, 0));
    assertThat(store.get().join()).isEqualTo(created);
  }

  @Test
  void anAbsentLayoutIsNotFound() {
    assertThat(failureOf(store.get()))
        .isInstanceOf(LayoutNotFoundException.class)
        .hasMessageContaining(store.path())
        .hasMessageContaining(zookeeper.getConnectString());
  }

  @Test
  void aSecondCreateIsRefusedAndChangesNothing() {
    store.compareAndSet(LayoutStore.NO_VERSION, layout(1)).join();

    assertThat(failureOf(store.compareAndSet(LayoutStore.NO_VERSION, layout(2))))
        .isInstanceOfSatisfying(
            LayoutVersionMismatchException.class,
            e -> {
              assertThat(e.expectedVersion()).isEqualTo(LayoutStore.NO_VERSION);
              assertThat(e.actualVersion()).isZero();
            });
    assertThat(store.get().join()).isEqualTo(new Versioned<>(layout(1), 0));
  }

  @Test
  void compareAndSetWinsAtTheStoredVersionAndLosesAtAnyOther() {
    store.compareAndSet(LayoutStore.NO_VERSION, layout(1)).join();

    assertThat(store.compareAndSet(0, layout(2)).join()).isEqualTo(new Versioned<>(layout(2), 1));
    for (long stale : new long[] {0, 2, 7}) {
      assertThat(failureOf(store.compareAndSet(stale, layout(9))))
          .isInstanceOfSatisfying(
              LayoutVersionMismatchException.class,
              e -> {
                assertThat(e.expectedVersion()).isEqualTo(stale);
                assertThat(e.actualVersion()).isEqualTo(1);
              });
    }
    assertThat(store.get().join()).isEqualTo(new Versioned<>(layout(2), 1));
    assertThat(store.compareAndSet(1, layout(3)).join().version()).isEqualTo(2);
  }

  @Test
  void anUpdateOfAnAbsentLayoutIsRefused() {
    assertThat(failureOf(store.compareAndSet(0, layout(1))))
        .isInstanceOfSatisfying(
            LayoutVersionMismatchException.class,
            e -> assertThat(e.actualVersion()).isEqualTo(LayoutStore.NO_VERSION));
    assertThat(failureOf(store.compareAndSet(-2, layout(1))))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void storesRacingFromSeveralThreadsHaveExactlyOneWinnerPerVersion() throws Exception {
    CuratorFramework own =
        CuratorFrameworkFactory.newClient(zookeeper.getConnectString(), new RetryOneTime(100));
    own.start();
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try (ZkLayoutStore other = new ZkLayoutStore(own, cluster)) {
      List<ZkLayoutStore> stores = List.of(store, other);
      store.compareAndSet(LayoutStore.NO_VERSION, layout(1)).join();
      for (long version = 0; version < 20; version++) {
        long v = version;
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Layout>> attempts = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
          ZkLayoutStore s = stores.get(t % 2);
          Layout mine = layout(100 * (v + 1) + t);
          attempts.add(
              threads.submit(
                  () -> {
                    go.await();
                    try {
                      s.compareAndSet(v, mine).join();
                      return mine;
                    } catch (CompletionException e) {
                      assertThat(e).hasCauseInstanceOf(LayoutVersionMismatchException.class);
                      return null;
                    }
                  }));
        }
        go.countDown();
        List<Layout> winners = new ArrayList<>();
        for (Future<Layout> a : attempts) {
          Layout won = a.get();
          if (won != null) {
            winners.add(won);
          }
        }
        assertThat(winners).as("winners at version %d", v).hasSize(1);
        assertThat(store.get().join()).isEqualTo(new Versioned<>(winners.get(0), v + 1));
        assertThat(other.get().join()).isEqualTo(new Versioned<>(winners.get(0), v + 1));
      }
    } finally {
      threads.shutdownNow();
    }
    assertThat(own.getState())
        .as("a store leaves a client it was given open")
        .isEqualTo(CuratorFrameworkState.STARTED);
    own.close();
  }

  @Test
  void aWatchSeesTheCurrentLayoutAndThenEveryCommittedOneInOrder() {
    List<Versioned<Layout>> seen = new CopyOnWriteArrayList<>();
    store.compareAndSet(LayoutStore.NO_VERSION, layout(1)).join();
    ZkLayoutStore.Watch watch = store.watch(seen::add);
    await().atMost(WAIT).until(() -> seen.size() == 1);
    assertThat(seen).containsExactly(new Versioned<>(layout(1), 0));

    List<Versioned<Layout>> committed = new ArrayList<>(seen);
    for (int v = 0; v < 10; v++) {
      committed.add(store.compareAndSet(v, layout(v + 2)).join());
      int expected = committed.size();
      await().atMost(WAIT).until(() -> seen.size() >= expected);
    }
    assertThat(seen).containsExactlyElementsOf(committed);

    // A burst without waiting: versions may be skipped but only grow, up to the newest.
    for (int v = 10; v < 30; v++) {
      store.compareAndSet(v, layout(v + 2)).join();
    }
    await().atMost(WAIT).until(() -> seen.get(seen.size() - 1).version() == 30);
    assertThat(seen.get(seen.size() - 1).value()).isEqualTo(layout(31));
    for (int i = 1; i < seen.size(); i++) {
      assertThat(seen.get(i).version()).isGreaterThan(seen.get(i - 1).version());
    }
    watch.close();
  }

  @Test
  void aWatchStartedBeforeTheLayoutExistsSeesItCreated() {
    List<Versioned<Layout>> seen = new CopyOnWriteArrayList<>();
    ZkLayoutStore.Watch watch = store.watch(seen::add);
    store.compareAndSet(LayoutStore.NO_VERSION, layout(1)).join();
    await().atMost(WAIT).until(() -> !seen.isEmpty());
    assertThat(seen).containsExactly(new Versioned<>(layout(1), 0));
    watch.close();
  }

  @Test
  void aCorruptValueIsSkippedByTheWatchAndFailsReadsClearly() throws Exception {
    List<Versioned<Layout>> seen = new CopyOnWriteArrayList<>();
    AtomicInteger calls = new AtomicInteger();
    store.compareAndSet(LayoutStore.NO_VERSION, layout(1)).join();
    ZkLayoutStore.Watch watch =
        store.watch(
            v -> {
              calls.incrementAndGet();
              seen.add(v);
            });
    await().atMost(WAIT).until(() -> seen.size() == 1);

    store
        .client()
        .setData()
        .forPath(store.path(), "{\"clusterId\": ".getBytes(StandardCharsets.UTF_8));

    assertThat(failureOf(store.get()))
        .isInstanceOf(LayoutException.class)
        .hasMessageContaining("The znode " + store.path())
        .hasMessageContaining("(version 1) does not hold a valid layout")
        .hasMessageContaining("not valid JSON");
    Versioned<Layout> repaired = store.compareAndSet(1, layout(3)).join();
    assertThat(repaired.version()).isEqualTo(2);
    await().atMost(WAIT).until(() -> seen.size() == 2);
    assertThat(seen).containsExactly(new Versioned<>(layout(1), 0), repaired);
    assertThat(calls).hasValue(2);
    watch.close();
  }

  @Test
  void currentVersionFollowsCompareAndSetsOfAnyStore() {
    assertThat(store.currentVersion().join()).isEqualTo(LayoutStore.NO_VERSION);
    store.compareAndSet(LayoutStore.NO_VERSION, layout(1)).join();
    assertThat(store.currentVersion().join()).isZero();
    try (ZkLayoutStore other =
        ZkLayoutStore.connect(zookeeper.getConnectString(), cluster, SESSION)) {
      other.compareAndSet(0, layout(2)).join();
      other.compareAndSet(1, layout(3)).join();
    }
    assertThat(store.currentVersion().join()).isEqualTo(2);
  }

  @Test
  void clusterNamesThatCannotNameAZnodeAreRefused() {
    for (String bad : new String[] {"", "a/b", ".", "..", "a b", "ü"}) {
      assertThatThrownBy(() -> ZkLayoutStore.connect(zookeeper.getConnectString(), bad, SESSION))
          .as("cluster name '%s'", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("cannot name a ZooKeeper path");
    }
    try (ZkLayoutStore ok =
        ZkLayoutStore.connect(zookeeper.getConnectString(), "a-B_9.x", SESSION)) {
      assertThat(ok.path()).isEqualTo("/vcorfu/a-B_9.x/layout");
    }
  }

  @Test
  void aClosedStoreFailsCallsAndClosesItsOwnClient() {
    store.close();
    assertThat(failureOf(store.get())).isInstanceOf(IllegalStateException.class);
    assertThat(failureOf(store.compareAndSet(LayoutStore.NO_VERSION, layout(1))))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> store.watch(v -> {})).isInstanceOf(IllegalStateException.class);
    assertThat(store.client().getState()).isEqualTo(CuratorFrameworkState.STOPPED);
  }
}
