package io.vcorfu.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.client.GlobalEntry;
import io.vcorfu.client.StreamLog;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.example.Counter;
import io.vcorfu.runtime.example.DoublingCounter;
import io.vcorfu.runtime.example.Inventory;
import io.vcorfu.runtime.example.User;
import io.vcorfu.runtime.serialization.UnsupportedTypeException;
import io.vcorfu.runtime.smr.SmrRecord;
import io.vcorfu.runtime.testing.CountingStreamLog;
import io.vcorfu.runtime.testing.TestRuntimes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class ObjectRuntimeTest {
  @RegisterExtension final TestRuntimes runtimes = new TestRuntimes();

  private VCorfuRuntime runtime() {
    return runtimes.runtime();
  }

  @Test
  void figure5UserLogsInAndOutThroughTheLog() {
    VCorfuRuntime rt = runtime();
    User user = rt.objects().open("user-1", User.class);
    user.register("alice", "secret");
    Instant t1 = Instant.parse("2026-01-01T10:00:00Z");

    assertThat(user.login("wrong", t1)).isFalse();
    assertThat(user.login("secret", t1)).isTrue();
    user.logout(t1.plusSeconds(60));

    User again = runtime().objects().open("user-1", User.class);
    assertThat(again.login("secret", t1.plusSeconds(120))).isTrue();
    assertThat(again.getName()).isEqualTo("alice");
    assertThat(again.getLastLogout()).isEqualTo(t1.plusSeconds(60));
    assertThat(again.getLastLogin()).isEqualTo(t1.plusSeconds(120));
  }

  @Test
  void mutatorEntriesCarryStableSignaturesAndTheNamedStream() {
    VCorfuRuntime rt = runtime();
    User user = rt.objects().open("user-2", User.class);
    user.register("bob", "pw");
    user.login("pw", Instant.EPOCH);

    StreamLog reader = runtimes.newLog();
    // The object's entries; the directory's record of its name comes before them.
    List<GlobalEntry> entries =
        reader.readGlobalRange(0, 2).join().stream()
            .filter(e -> !e.streamAddresses().containsKey(io.vcorfu.client.NameDirectory.STREAM))
            .toList();
    List<SmrRecord.Update> first = SmrRecord.decode(entries.get(0).payload());
    List<SmrRecord.Update> second = SmrRecord.decode(entries.get(1).payload());
    assertThat(first)
        .singleElement()
        .satisfies(
            u -> {
              assertThat(u.stream()).isEqualTo(StreamId.of("user-2"));
              assertThat(u.signature()).isEqualTo("register(java.lang.String,java.lang.String)");
            });
    assertThat(second.get(0).signature()).isEqualTo("login(java.lang.String,java.time.Instant)");
    assertThat(entries.get(0).streamAddresses()).containsOnlyKeys(StreamId.of("user-2"));
    reader.close();
  }

  @Test
  void sameNameOpensTheSameObjectAndTwoRuntimesSeeEachOthersWrites() {
    VCorfuRuntime a = runtime();
    VCorfuRuntime b = runtime();
    Counter ca = a.objects().open("counter", Counter.class);
    assertThat(a.objects().open("counter", Counter.class)).isSameAs(ca);
    Counter cb = b.objects().open("counter", Counter.class);

    ca.add(5);
    assertThat(cb.get()).isEqualTo(5);
    cb.add(7);
    assertThat(ca.get()).isEqualTo(12);
    assertThat(ca.upcalls()).isEqualTo(2);
  }

  @Test
  void accessorOnAnUnchangedObjectCostsOneTailCheckAndNoRead() {
    CountingStreamLog log = new CountingStreamLog(runtimes.newLog());
    VCorfuRuntime rt = VCorfuRuntime.using(log);
    runtimes.register(rt);
    Counter c = rt.objects().open("quiet", Counter.class);
    c.add(1);
    assertThat(c.get()).isEqualTo(1);

    int tails = log.tails.get();
    int reads = log.streamReads.get();
    assertThat(c.get()).isEqualTo(1);
    assertThat(log.tails.get()).isEqualTo(tails + 1);
    assertThat(log.streamReads.get()).isEqualTo(reads);
  }

  @Test
  void mutatorAccessorReturnsTheValueAtItsOwnPositionAndUpcallsRunOncePerAddress()
      throws Exception {
    VCorfuRuntime a = runtime();
    VCorfuRuntime b = runtime();
    Counter ca = a.objects().open("shared-counter", Counter.class);
    Counter cb = b.objects().open("shared-counter", Counter.class);
    int threads = 4;
    int perThread = 200;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<List<Long>>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        Counter c = t % 2 == 0 ? ca : cb;
        results.add(
            pool.submit(
                () -> {
                  List<Long> seen = new ArrayList<>();
                  for (int i = 0; i < perThread; i++) {
                    seen.add(c.addAndGet(1));
                    c.get();
                  }
                  return seen;
                }));
      }
      Set<Long> all = new HashSet<>();
      for (Future<List<Long>> f : results) {
        List<Long> seen = f.get(60, TimeUnit.SECONDS);
        assertThat(seen).isSorted();
        all.addAll(seen);
      }
      // Every increment saw a distinct value: the state exactly at its own address.
      assertThat(all).hasSize(threads * perThread);
      assertThat(all).allMatch(v -> v >= 1 && v <= threads * perThread);
    } finally {
      pool.shutdownNow();
    }
    assertThat(ca.get()).isEqualTo(threads * perThread);
    assertThat(ca.upcalls()).isEqualTo(threads * perThread);
    assertThat(cb.upcalls()).isEqualTo(threads * perThread);
  }

  @Test
  void unserializableArgumentIsRejectedAtTheCallSiteWithNothingAppended() {
    VCorfuRuntime rt = runtime();
    Inventory inv = rt.objects().open("inventory", Inventory.class);
    StreamLog probe = runtimes.newLog();
    List<Inventory.Item> items = new ArrayList<>();
    items.add(new Inventory.Item("apple", 3));
    inv.putAll(items);
    long tail = probe.tails(List.of()).join().globalTail();

    List<Object> bad = new ArrayList<>();
    bad.add(new Object());
    @SuppressWarnings("unchecked")
    List<Inventory.Item> badItems = (List<Inventory.Item>) (List<?>) bad;
    assertThatThrownBy(() -> inv.putAll(badItems))
        .isInstanceOf(UnsupportedTypeException.class)
        .hasMessageContaining("java.lang.Object");
    assertThat(probe.tails(List.of()).join().globalTail()).isEqualTo(tail);
    assertThat(inv.get("apple")).isEqualTo(3);
    probe.close();
  }

  @Test
  void closedRuntimeFailsWithATypedErrorAndClosesItsLog() {
    CountingStreamLog log = new CountingStreamLog(runtimes.newLog());
    VCorfuRuntime rt = VCorfuRuntime.using(log);
    Counter c = rt.objects().open("closing", Counter.class);
    rt.close();
    rt.close();

    assertThat(log.closes.get()).isEqualTo(1);
    assertThatThrownBy(() -> c.add(1)).isInstanceOf(RuntimeClosedException.class);
    assertThatThrownBy(c::get).isInstanceOf(RuntimeClosedException.class);
    assertThatThrownBy(rt::objects).isInstanceOf(RuntimeClosedException.class);
    assertThatThrownBy(rt::TXBegin).isInstanceOf(RuntimeClosedException.class);
  }

  @Test
  void inheritedAnnotatedMethodsAreInterceptedAndUnannotatedOverridesAreNot() {
    VCorfuRuntime a = runtime();
    DoublingCounter c = a.objects().open("doubling", DoublingCounter.class);
    c.add(4);
    DoublingCounter other = runtime().objects().open("doubling", DoublingCounter.class);
    assertThat(other.doubled()).isEqualTo(8);
    assertThat(other.upcalls()).isEqualTo(-1);
    other.add(1);
    // upcalls() no longer syncs: runtime a's local view has applied nothing yet (mutators only
    // append).
    assertThat(c.upcalls()).isEqualTo(0);
    assertThat(c.get()).isEqualTo(5);
    assertThat(c.upcalls()).isEqualTo(-2);
  }

  @Test
  void objectsKnowTheirRuntimeAndStream() {
    VCorfuRuntime rt = runtime();
    Counter c = rt.objects().open("who-am-i", Counter.class);
    assertThat(VCorfuRuntime.runtimeOf(c)).isSameAs(rt);
    assertThat(VCorfuRuntime.streamOf(c)).isEqualTo(StreamId.of("who-am-i"));
    assertThatThrownBy(() -> VCorfuRuntime.streamOf(new Counter()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not an object opened");
  }

  @Test
  void anObjectTakesItsRetentionOnlyFromTheRuntimeThatOpenedIt() {
    VCorfuRuntime rt = runtime();
    Counter c = rt.objects().open("retained", Counter.class);
    rt.retain(c, Retention.KEEP_ALL);
    VCorfuRuntime other = runtime();
    assertThatThrownBy(() -> other.retain(c, Retention.KEEP_ALL))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("opened by another runtime");
  }
}
