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

  private void assertRefusedAtInit(String property, String value, String message) {
    VcorfuYcsbClient db = new VcorfuYcsbClient();
    Properties p = serverProperties();
    p.setProperty(property, value);
    db.setProperties(p);
    assertThatThrownBy(db::init).isInstanceOf(DBException.class).hasMessageContaining(message);
  }
}
