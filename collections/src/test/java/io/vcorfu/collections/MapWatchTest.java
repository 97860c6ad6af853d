package io.vcorfu.collections;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.collections.MapUpdate.Change;
import io.vcorfu.collections.MapUpdate.Kind;
import io.vcorfu.runtime.VCorfuRuntime;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link CSMRMap#watch}: each committed entry that changed the map delivered once, in log order,
 * with its changes in the order they were made (a transaction over several buckets as one update);
 * an aborted transaction delivers nothing; demand is kept (one requested, one delivered); a watch
 * from an address resumes exactly after what a first one saw.
 */
class MapWatchTest {
  private final Harness harness = new Harness();
  private final String name = "watched-" + UUID.randomUUID();

  @AfterEach
  void close() {
    harness.close();
  }

  /** Keeps what it is given; asks for {@code initial} at first and one more per call of more(). */
  static final class Kept<T> implements Flow.Subscriber<T> {
    final List<T> items = new CopyOnWriteArrayList<>();
    final AtomicReference<Throwable> error = new AtomicReference<>();
    final long initial;
    volatile Flow.Subscription subscription;

    Kept(long initial) {
      this.initial = initial;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription = s;
      s.request(initial);
    }

    @Override
    public void onNext(T item) {
      items.add(item);
    }

    @Override
    public void onError(Throwable t) {
      error.set(t);
    }

    @Override
    public void onComplete() {
      error.set(new AssertionError("completed"));
    }

    void awaitSize(int n) {
      Awaitility.await(n + " items")
          .atMost(Duration.ofSeconds(30))
          .until(() -> error.get() != null || items.size() >= n);
      assertThat(error.get()).isNull();
    }
  }

  @Test
  void deliversEachCommittedChangeOnceInLogOrderATransactionAsOneUpdate() {
    VCorfuRuntime rt = harness.runtime();
    CSMRMap<String, Integer> map = CSMRMap.open(rt, name, 4);
    Kept<MapUpdate<String, Integer>> kept = new Kept<>(Long.MAX_VALUE);
    map.watch(0).subscribe(kept);
    map.put("a", 1);
    map.remove("a");
    rt.transaction(
        () -> {
          for (int k = 0; k < 8; k++) {
            map.put("t" + k, k);
          }
        });
    rt.TXBegin();
    map.put("aborted", 1);
    rt.TXAbort();
    map.put("z", 26);
    kept.awaitSize(4);
    try {
      List<MapUpdate<String, Integer>> u = kept.items;
      assertThat(u.get(0).changes()).containsExactly(new Change<>(Kind.PUT, "a", 1, null));
      assertThat(u.get(1).changes()).containsExactly(new Change<>(Kind.REMOVE, "a", null, null));
      assertThat(u.get(2).changes())
          .as("the transaction's puts, over several buckets, as one update in order")
          .extracting(Change::key)
          .containsExactly("t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7");
      assertThat(u.get(3).changes()).containsExactly(new Change<>(Kind.PUT, "z", 26, null));
      assertThat(u).extracting(MapUpdate::globalAddress).isSorted().doesNotHaveDuplicates();
      assertThat(u).hasSize(4);
    } finally {
      kept.subscription.cancel();
    }
  }

  @Test
  void aKeyFilterDeliversOnlyItsKeysChangesAndClears() {
    VCorfuRuntime rt = harness.runtime();
    CSMRMap<String, Integer> map = CSMRMap.open(rt, name, 3);
    Kept<MapUpdate<String, Integer>> users = new Kept<>(Long.MAX_VALUE);
    map.watch(0, k -> k.startsWith("user/")).subscribe(users);
    map.put("user/alice", 1);
    map.put("order/1", 7);
    rt.transaction(
        () -> {
          map.put("order/2", 8);
          map.put("user/bob", 2);
        });
    map.clear();
    map.put("user/carol", 3);
    users.awaitSize(4);
    try {
      assertThat(users.items.get(0).changes())
          .containsExactly(new Change<>(Kind.PUT, "user/alice", 1, null));
      assertThat(users.items.get(1).changes())
          .as("the transaction's change of another key is left out")
          .containsExactly(new Change<>(Kind.PUT, "user/bob", 2, null));
      assertThat(users.items.get(2).changes()).extracting(Change::kind).containsOnly(Kind.CLEAR);
      assertThat(users.items.get(3).changes())
          .containsExactly(new Change<>(Kind.PUT, "user/carol", 3, null));
      Awaitility.await().during(Duration.ofMillis(200)).until(() -> users.items.size() == 4);
    } finally {
      users.subscription.cancel();
    }
  }

  @Test
  void aWatchFromChangesTrimmedAwayFailsNamingTheTrimRatherThanSkipThem() throws Exception {
    CSMRMap<String, Integer> map = CSMRMap.open(harness.runtime(), name, 1);
    for (int i = 0; i < 6; i++) {
      map.put("k", i);
    }
    try (io.vcorfu.client.StreamLog log = harness.newLog()) {
      log.trimStream(io.vcorfu.protocol.StreamId.of(CSMRMap.bucketStreamName(name, 0)), 3)
          .get(30, java.util.concurrent.TimeUnit.SECONDS);
    }
    // Another client: the writer's cache of its own writes is not the replicas'.
    CSMRMap<String, Integer> reader = CSMRMap.open(harness.runtime(), name);
    Kept<MapUpdate<String, Integer>> fromZero = new Kept<>(Long.MAX_VALUE);
    reader.watch(0).subscribe(fromZero);
    Awaitility.await("the watch's error")
        .atMost(Duration.ofSeconds(30))
        .until(() -> fromZero.error.get() != null);
    assertThat(fromZero.error.get()).isInstanceOf(io.vcorfu.protocol.TrimmedException.class);
    assertThat(fromZero.items).isEmpty();

    Kept<MapUpdate<String, Integer>> kept = new Kept<>(Long.MAX_VALUE);
    long third = reader.history("k", Long.MAX_VALUE, 3).items().get(2).globalAddress();
    reader.watch(third).subscribe(kept);
    kept.awaitSize(3);
    assertThat(kept.items)
        .as("from a version kept, every later change")
        .extracting(u -> u.changes().get(0).value())
        .containsExactly(3, 4, 5);
    kept.subscription.cancel();
  }

  @Test
  void deliversNoMoreThanRequestedAndResumesAfterTheLastSeen() {
    VCorfuRuntime rt = harness.runtime();
    CSMRMap<String, Integer> map = CSMRMap.open(rt, name, 2);
    for (int i = 0; i < 10; i++) {
      map.put("k" + i, i);
    }
    map.fastUpdateFields("k0", Map.of("f", 1));
    Kept<MapUpdate<String, Integer>> one = new Kept<>(3);
    map.watch(0).subscribe(one);
    one.awaitSize(3);
    // Ten more changes are there; it asked for three.
    Awaitility.await().during(Duration.ofMillis(300)).until(() -> one.items.size() == 3);
    one.subscription.cancel();

    long resume = one.items.get(2).globalAddress() + 1;
    Kept<MapUpdate<String, Integer>> rest = new Kept<>(Long.MAX_VALUE);
    map.watch(resume).subscribe(rest);
    rest.awaitSize(8);
    try {
      assertThat(rest.items.get(0).changes().get(0).key()).isEqualTo("k3");
      assertThat(rest.items.get(7).changes())
          .containsExactly(new Change<>(Kind.UPDATE_FIELDS, "k0", null, Map.of("f", 1)));
      Awaitility.await().during(Duration.ofMillis(200)).until(() -> rest.items.size() == 8);
    } finally {
      rest.subscription.cancel();
    }
  }
}
