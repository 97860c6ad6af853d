package io.vcorfu.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vcorfu.protocol.Endpoint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.KillSession;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The layout store against a three-server ZooKeeper ensemble that loses the server a store is
 * connected to, or whose session expires: every call either works or fails with {@link
 * LayoutStoreUnavailableException}, and works again within a bound; a compare-and-set whose answer
 * was lost is found committed or not by reading again; no committed layout is lost; a watch goes on
 * delivering, in version order, exactly the layouts that were committed, including those written by
 * another client.
 */
class ZkLayoutStoreEnsembleTest {
  static final Duration SESSION = Duration.ofSeconds(3);
  static final Duration RECOVERY = Duration.ofSeconds(45);
  static final List<Endpoint> NODES =
      List.of(
          new Endpoint("127.0.0.1", 9001),
          new Endpoint("127.0.0.1", 9002),
          new Endpoint("127.0.0.1", 9003));

  static TestingCluster ensemble;

  String cluster;

  /** Every layout committed, by znode version. */
  final Map<Long, Layout> committed = new HashMap<>();

  /** Compare-and-sets whose answer was lost (outcome learned by reading again). */
  final AtomicInteger unknownOutcomes = new AtomicInteger();

  @BeforeAll
  static void startEnsemble() throws Exception {
    ensemble = TestEnsembles.cluster(3);
    ensemble.start();
  }

  @AfterAll
  static void stopEnsemble() throws Exception {
    ensemble.close();
  }

  @BeforeEach
  void name(TestInfo test) {
    cluster = test.getTestMethod().orElseThrow().getName();
  }

  Layout layout(long epoch) {
    return LayoutChanges.initial(cluster, NODES, 2).withEpoch(epoch);
  }

  ZkLayoutStore connect() {
    return ZkLayoutStore.connect(ensemble.getConnectString(), cluster, SESSION);
  }

  static ZooKeeper handle(ZkLayoutStore store) throws Exception {
    return store.client().getZookeeperClient().getZooKeeper();
  }

  @Test
  void killingTheServerAStoreIsConnectedToLosesNoCommittedLayout() throws Exception {
    try (ZkLayoutStore store = connect();
        ZkLayoutStore other = connect()) {
      long v = commit(store, LayoutStore.NO_VERSION, layout(1));
      List<Versioned<Layout>> seen = new CopyOnWriteArrayList<>();
      ZkLayoutStore.Watch watch = store.watch(seen::add);
      await().atMost(RECOVERY).until(() -> !seen.isEmpty());
      InstanceSpec connected = ensemble.findConnectionInstance(handle(store));
      assertThat(connected).isNotNull();
      try {
        // The server goes away with a compare-and-set and reads in flight.
        v = commitAcross(store, v, layout(2), () -> ensemble.killServer(connected));
        for (long epoch = 3; epoch <= 6; epoch++) {
          v = commit(epoch % 2 == 0 ? store : other, v, layout(epoch));
        }
        long last = v;
        assertThat(eventually(store::currentVersion)).isEqualTo(last);
        assertThat(eventually(store::get)).isEqualTo(new Versioned<>(layout(6), last));
        await().atMost(RECOVERY).until(() -> seen.get(seen.size() - 1).version() == last);
      } finally {
        ensemble.restartServer(connected);
        watch.close();
      }
      assertWatchSawOnlyCommittedLayouts(seen);
      System.out.printf(
          "%s: %d compare-and-sets answered only by reading again%n",
          cluster, unknownOutcomes.get());
    }
  }

  @Test
  void anExpiredSessionIsReplacedAndTheStoreAndItsWatchGoOn() throws Exception {
    try (ZkLayoutStore store = connect();
        ZkLayoutStore other = connect()) {
      long v = commit(store, LayoutStore.NO_VERSION, layout(1));
      List<Versioned<Layout>> seen = new CopyOnWriteArrayList<>();
      ZkLayoutStore.Watch watch = store.watch(seen::add);
      await().atMost(RECOVERY).until(() -> !seen.isEmpty());
      long session = handle(store).getSessionId();
      // The session expires with a compare-and-set and reads in flight.
      v = commitAcross(store, v, layout(2), () -> KillSession.kill(handle(store)));
      await("a new session")
          .atMost(RECOVERY)
          .ignoreExceptions()
          .until(() -> handle(store).getSessionId() != session);
      // A change by another client reaches the watch: it was registered again with the new
      // session.
      v = commit(other, v, layout(3));
      long last = v;
      assertThat(eventually(store::currentVersion)).isEqualTo(last);
      await().atMost(RECOVERY).until(() -> seen.get(seen.size() - 1).version() == last);
      KillSession.kill(handle(other));
      v = commit(other, v, layout(4));
      long after = v;
      await().atMost(RECOVERY).until(() -> seen.get(seen.size() - 1).version() == after);
      watch.close();
      assertWatchSawOnlyCommittedLayouts(seen);
      System.out.printf(
          "%s: %d compare-and-sets answered only by reading again%n",
          cluster, unknownOutcomes.get());
    }
  }

  /** What a test does to ZooKeeper. */
  @FunctionalInterface
  interface Fault {
    void inject() throws Exception;
  }

  /**
   * Sends a compare-and-set of {@code next} at {@code expected} and reads, injects {@code fault}
   * while they are in flight, and commits {@code next} (the compare-and-set may have committed; see
   * {@link #commit}). The reads must complete, working or failing as unavailable.
   */
  long commitAcross(ZkLayoutStore store, long expected, Layout next, Fault fault) throws Exception {
    CompletableFuture<Versioned<Layout>> cas = store.compareAndSet(expected, next);
    CompletableFuture<Versioned<Layout>> get = store.get();
    CompletableFuture<Long> version = store.currentVersion();
    fault.inject();
    assertWorksOrUnavailable(get);
    assertWorksOrUnavailable(version);
    assertWorksOrUnavailable(store.get());
    assertWorksOrUnavailable(store.currentVersion());
    try {
      long v = cas.get(30, TimeUnit.SECONDS).version();
      committed.put(v, next);
      return v;
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(LayoutStoreUnavailableException.class);
      unknownOutcomes.incrementAndGet();
      return commit(store, expected, next);
    }
  }

  /**
   * Commits {@code next} at {@code expected} through {@code store}, retrying while ZooKeeper is
   * unreachable; a compare-and-set whose answer was lost is resolved by reading the znode. Returns
   * the new version. Any other failure fails the test.
   */
  long commit(ZkLayoutStore store, long expected, Layout next) {
    long version =
        await("commit epoch " + next.epoch() + " at version " + expected)
            .atMost(RECOVERY)
            .pollInterval(Duration.ofMillis(50))
            .until(() -> attempt(store, expected, next), Objects::nonNull);
    committed.put(version, next);
    return version;
  }

  private Long attempt(ZkLayoutStore store, long expected, Layout next) throws Exception {
    try {
      return store.compareAndSet(expected, next).get(30, TimeUnit.SECONDS).version();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof LayoutStoreUnavailableException) {
        unknownOutcomes.incrementAndGet();
        return null;
      }
      assertThat(e.getCause()).isInstanceOf(LayoutVersionMismatchException.class);
      // An earlier attempt whose answer was lost may have committed: the znode tells.
      Versioned<Layout> now;
      try {
        now = store.get().get(30, TimeUnit.SECONDS);
      } catch (ExecutionException unreadable) {
        assertThat(unreadable.getCause()).isInstanceOf(LayoutStoreUnavailableException.class);
        return null;
      }
      assertThat(now)
          .as("the znode after a refused compare-and-set at %d", expected)
          .isEqualTo(new Versioned<>(next, expected == LayoutStore.NO_VERSION ? 0 : expected + 1));
      return now.version();
    }
  }

  /** The value of {@code call}, called again while it fails with ZooKeeper unreachable. */
  static <T> T eventually(Supplier<CompletableFuture<T>> call) {
    List<T> out = new ArrayList<>();
    await()
        .atMost(RECOVERY)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              try {
                out.add(call.get().get(30, TimeUnit.SECONDS));
                return true;
              } catch (ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(LayoutStoreUnavailableException.class);
                return false;
              }
            });
    return out.get(0);
  }

  /** {@code f} completes, either with a value or with ZooKeeper unreachable, within a bound. */
  static void assertWorksOrUnavailable(CompletableFuture<?> f) throws Exception {
    try {
      f.get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(LayoutStoreUnavailableException.class);
    }
  }

  /** The watch delivered versions in increasing order, each with the layout committed at it. */
  void assertWatchSawOnlyCommittedLayouts(List<Versioned<Layout>> seen) {
    for (int i = 0; i < seen.size(); i++) {
      Versioned<Layout> s = seen.get(i);
      if (i > 0) {
        assertThat(s.version()).isGreaterThan(seen.get(i - 1).version());
      }
      assertThat(s.value()).as("version %d", s.version()).isEqualTo(committed.get(s.version()));
    }
  }
}
