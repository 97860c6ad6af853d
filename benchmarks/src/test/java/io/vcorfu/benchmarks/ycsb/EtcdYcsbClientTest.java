package io.vcorfu.benchmarks.ycsb;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.Status;

/** {@link EtcdYcsbClient} against an etcd this class starts (skipped if none is installed). */
class EtcdYcsbClientTest extends YcsbBindingContract {
  @TempDir static Path dir;
  private static PeerServer server;

  @BeforeAll
  static void startEtcd() throws Exception {
    PeerServer.assumeInstalled(PeerServer.ETCD);
    server = PeerServer.etcd(dir);
  }

  @AfterAll
  static void stopEtcd() {
    if (server != null) {
      server.close();
    }
  }

  @Override
  Properties serverProperties() {
    Properties p = new Properties();
    p.setProperty(EtcdYcsbClient.ENDPOINTS_PROPERTY, "http://" + server.endpoint());
    return p;
  }

  @Override
  DB newBinding() {
    return new EtcdYcsbClient();
  }

  @Test
  void updateOfMissingRecordIsNotFoundAndCreatesNothing() throws Exception {
    DB db = open();
    assertThat(db.update(table(), "nobody", fields("field0", "x"))).isEqualTo(Status.NOT_FOUND);
    assertThat(db.read(table(), "nobody", null, new HashMap<>())).isEqualTo(Status.NOT_FOUND);
  }

  @Test
  void concurrentUpdatesOfDifferentFieldsAreAllKept() throws Exception {
    DB a = open();
    DB b = open();
    a.insert(table(), "user1", fields("field0", "-", "field1", "-"));
    int rounds = 20;
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<?> fa = pool.submit(() -> updateRounds(a, "field0", rounds));
      Future<?> fb = pool.submit(() -> updateRounds(b, "field1", rounds));
      fa.get(60, TimeUnit.SECONDS);
      fb.get(60, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }
    Map<String, ByteIterator> row = new HashMap<>();
    a.read(table(), "user1", null, row);
    assertThat(strings(row))
        .isEqualTo(Map.of("field0", "field0-" + (rounds - 1), "field1", "field1-" + (rounds - 1)));
  }

  @Test
  void updatesOfOneHotKeyByManyThreadsAllSucceed() throws Exception {
    // Twelve threads on one record: an update loses the compare-and-set race many times in a row
    // (a fixed cap of 16 attempts failed this test), and is retried until it wins, within the
    // request timeout.
    int threads = 12;
    int rounds = 10;
    DB first = open();
    first.insert(table(), "hot", fields("field0", "-"));
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> updaters = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        DB db = t == 0 ? first : open();
        String field = "field" + t;
        updaters.add(pool.submit(() -> updateRounds(db, "hot", field, rounds)));
      }
      for (Future<?> f : updaters) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    Map<String, ByteIterator> row = new HashMap<>();
    first.read(table(), "hot", null, row);
    Map<String, String> values = strings(row);
    for (int t = 0; t < threads; t++) {
      assertThat(values).containsEntry("field" + t, "field" + t + "-" + (rounds - 1));
    }
  }

  private Void updateRounds(DB db, String key, String field, int rounds) {
    for (int i = 0; i < rounds; i++) {
      assertThat(db.update(table(), key, fields(field, field + "-" + i))).isEqualTo(Status.OK);
    }
    return null;
  }

  private Void updateRounds(DB db, String field, int rounds) {
    return updateRounds(db, "user1", field, rounds);
  }
}
