package io.vcorfu.benchmarks.ycsb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.server.LocalNode;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Vector;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/** {@link VcorfuYcsbClient} against a vcorfu node this class starts on loopback. */
class VcorfuYcsbClientTest extends YcsbBindingContract {
  @RegisterExtension static final LocalNode NODE = new LocalNode();

  @Override
  Properties serverProperties() {
    Properties p = new Properties();
    p.setProperty(VcorfuYcsbClient.ENDPOINT_PROPERTY, NODE.endpoint().toString());
    p.setProperty(VcorfuYcsbClient.BUCKETS_PROPERTY, "8");
    return p;
  }

  @Override
  DB newBinding() {
    return new VcorfuYcsbClient();
  }

  @ParameterizedTest
  @ValueSource(strings = {"fields", "transaction"})
  void fieldAndTransactionalUpdatesNeverLoseAConcurrentFieldUpdate(String mode) throws Exception {
    Properties p = serverProperties();
    p.setProperty(VcorfuYcsbClient.UPDATE_PROPERTY, mode);
    DB first = open(p);
    first.insert(table(), "k", fields("a", "0", "b", "0"));
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<?>> writers =
          List.of(pool.submit(() -> updateAll(p, "a")), pool.submit(() -> updateAll(p, "b")));
      for (Future<?> f : writers) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    Map<String, ByteIterator> row = new HashMap<>();
    assertThat(first.read(table(), "k", null, row)).isEqualTo(Status.OK);
    assertThat(row.get("a").toString()).isEqualTo("49");
    assertThat(row.get("b").toString()).isEqualTo("49");
  }

  private Void updateAll(Properties p, String field) throws Exception {
    DB db = open(p);
    for (int i = 0; i < 50; i++) {
      assertThat(db.update(table(), "k", fields(field, Integer.toString(i)))).isEqualTo(Status.OK);
    }
    return null;
  }

  @Test
  void aFieldUpdateOfAMissingRecordCreatesNothing() throws Exception {
    DB db = open();
    assertThat(db.update(table(), "nope", fields("a", "1"))).isEqualTo(Status.OK);
    assertThat(db.read(table(), "nope", null, new HashMap<>())).isEqualTo(Status.NOT_FOUND);
    Vector<HashMap<String, ByteIterator>> rows = new Vector<>();
    assertThat(db.scan(table(), "", 10, null, rows)).isEqualTo(Status.OK);
    assertThat(rows).as("not in the scan index either").isEmpty();
  }

  @Test
  void aReadThenWriteUpdateOfAMissingRecordIsNotFound() throws Exception {
    Properties p = serverProperties();
    p.setProperty(VcorfuYcsbClient.UPDATE_PROPERTY, "fastput");
    assertThat(open(p).update(table(), "nope", fields("a", "1"))).isEqualTo(Status.NOT_FOUND);
  }

  @Test
  void unknownUpdateModeIsRefusedAtInit() {
    assertRefusedAtInit(
        VcorfuYcsbClient.UPDATE_PROPERTY, "sometimes", "fields, fastput or transaction");
  }

  @Test
  void aNegativeHistoryBudgetIsRefusedAtInit() {
    assertRefusedAtInit(
        VcorfuYcsbClient.BUDGET_PROPERTY,
        "-1",
        "vcorfu.history-budget-bytes must be 0 (no budget) or a number");
  }

  @Test
  void connectionsOutsideTheirRangeAreRefusedAtInit() {
    assertRefusedAtInit(
        VcorfuYcsbClient.CONNECTIONS_PROPERTY, "0", "vcorfu.connections must be 1 to 64, not 0");
  }

  @Test
  void threadsOnSeveralConnectionsPerNodeEachReadTheirOwnUpdates() throws Exception {
    Properties p = serverProperties();
    p.setProperty(VcorfuYcsbClient.CONNECTIONS_PROPERTY, "3");
    int threads = 6;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<String>> reads = new java.util.ArrayList<>();
      for (int t = 0; t < threads; t++) {
        String key = "k" + t;
        DB db = open(p); // one binding per thread, as YCSB makes them; one runtime shared
        reads.add(
            pool.submit(
                () -> {
                  db.insert(table(), key, fields("a", "0"));
                  for (int i = 1; i <= 20; i++) {
                    assertThat(db.update(table(), key, fields("a", Integer.toString(i))))
                        .isEqualTo(Status.OK);
                  }
                  Map<String, ByteIterator> out = new HashMap<>();
                  assertThat(db.read(table(), key, null, out)).isEqualTo(Status.OK);
                  return out.get("a").toString();
                }));
      }
      for (Future<String> r : reads) {
        assertThat(r.get(60, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo("20");
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private void assertRefusedAtInit(String property, String value, String message) {
    VcorfuYcsbClient db = new VcorfuYcsbClient();
    Properties p = serverProperties();
    p.setProperty(property, value);
    db.setProperties(p);
    assertThatThrownBy(db::init).isInstanceOf(DBException.class).hasMessageContaining(message);
  }
}
