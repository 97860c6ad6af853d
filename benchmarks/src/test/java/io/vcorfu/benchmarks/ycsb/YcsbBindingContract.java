package io.vcorfu.benchmarks.ycsb;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/**
 * The record semantics every YCSB binding must have, checked through the {@code site.ycsb.DB} API
 * against a real server. Each test uses its own table, so tests do not see each other's records.
 */
abstract class YcsbBindingContract {
  private static final AtomicInteger TABLES = new AtomicInteger();
  private final List<DB> opened = new ArrayList<>();
  private final String table = "t" + TABLES.incrementAndGet() + "-" + System.nanoTime();

  /** Properties pointing a new binding instance at the test's server. */
  abstract Properties serverProperties();

  abstract DB newBinding();

  DB open() throws Exception {
    return open(serverProperties());
  }

  DB open(Properties properties) throws Exception {
    DB db = newBinding();
    db.setProperties(properties);
    db.init();
    opened.add(db);
    return db;
  }

  String table() {
    return table;
  }

  @AfterEach
  void closeBindings() throws Exception {
    for (DB db : opened) {
      db.cleanup();
    }
  }

  static Map<String, ByteIterator> fields(String... namesAndValues) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      m.put(namesAndValues[i], namesAndValues[i + 1]);
    }
    return StringByteIterator.getByteIteratorMap(m);
  }

  static Map<String, String> strings(Map<String, ByteIterator> row) {
    Map<String, String> out = new HashMap<>();
    row.forEach((k, v) -> out.put(k, new String(v.toArray(), StandardCharsets.UTF_8)));
    return out;
  }

  @Test
  void insertedRecordReadsBackWithAllFields() throws Exception {
    DB db = open();
    assertThat(db.insert(table, "user1", fields("field0", "a", "field1", "b")))
        .isEqualTo(Status.OK);
    Map<String, ByteIterator> row = new HashMap<>();
    assertThat(db.read(table, "user1", null, row)).isEqualTo(Status.OK);
    assertThat(strings(row)).isEqualTo(Map.of("field0", "a", "field1", "b"));
  }

  @Test
  void readWithFieldSetReturnsOnlyThoseFields() throws Exception {
    DB db = open();
    db.insert(table, "user1", fields("field0", "a", "field1", "b", "field2", "c"));
    Map<String, ByteIterator> row = new HashMap<>();
    assertThat(db.read(table, "user1", Set.of("field1", "field2"), row)).isEqualTo(Status.OK);
    assertThat(strings(row)).isEqualTo(Map.of("field1", "b", "field2", "c"));
  }

  @Test
  void readOfMissingRecordIsNotFound() throws Exception {
    DB db = open();
    assertThat(db.read(table, "nobody", null, new HashMap<>())).isEqualTo(Status.NOT_FOUND);
  }

  @Test
  void updateChangesGivenFieldsAndKeepsTheOthers() throws Exception {
    DB db = open();
    db.insert(table, "user1", fields("field0", "a", "field1", "b"));
    assertThat(db.update(table, "user1", fields("field1", "B", "field2", "C")))
        .isEqualTo(Status.OK);
    Map<String, ByteIterator> row = new HashMap<>();
    db.read(table, "user1", null, row);
    assertThat(strings(row)).isEqualTo(Map.of("field0", "a", "field1", "B", "field2", "C"));
  }

  @Test
  void scanReturnsRecordsInKeyOrderFromTheStartKeyUpToTheCount() throws Exception {
    DB db = open();
    for (String key : List.of("user5", "user1", "user3", "user2", "user4")) {
      db.insert(table, key, fields("field0", "v-" + key));
    }
    Vector<HashMap<String, ByteIterator>> rows = new Vector<>();
    assertThat(db.scan(table, "user2", 3, null, rows)).isEqualTo(Status.OK);
    assertThat(rows)
        .extracting(r -> strings(r).get("field0"))
        .containsExactly("v-user2", "v-user3", "v-user4");
  }

  @Test
  void scanPastTheLastKeyIsEmptyAndDoesNotReachOtherTables() throws Exception {
    DB db = open();
    db.insert(table, "user1", fields("field0", "x"));
    db.insert(table + "z", "user9", fields("field0", "other table"));
    Vector<HashMap<String, ByteIterator>> rows = new Vector<>();
    assertThat(db.scan(table, "user2", 10, null, rows)).isEqualTo(Status.OK);
    assertThat(rows).isEmpty();
  }

  @Test
  void scanWithFieldSetReturnsOnlyThoseFields() throws Exception {
    DB db = open();
    db.insert(table, "user1", fields("field0", "a", "field1", "b"));
    Vector<HashMap<String, ByteIterator>> rows = new Vector<>();
    db.scan(table, "user1", 5, Set.of("field1"), rows);
    assertThat(rows).hasSize(1);
    assertThat(strings(rows.get(0))).isEqualTo(Map.of("field1", "b"));
  }

  @Test
  void deleteRemovesTheRecordFromReadsAndScans() throws Exception {
    DB db = open();
    db.insert(table, "user1", fields("field0", "a"));
    db.insert(table, "user2", fields("field0", "b"));
    assertThat(db.delete(table, "user1")).isEqualTo(Status.OK);
    assertThat(db.read(table, "user1", null, new HashMap<>())).isEqualTo(Status.NOT_FOUND);
    Vector<HashMap<String, ByteIterator>> rows = new Vector<>();
    db.scan(table, "user0", 10, null, rows);
    assertThat(rows).extracting(r -> strings(r).get("field0")).containsExactly("b");
  }

  @Test
  void deleteOfMissingRecordIsNotFound() throws Exception {
    DB db = open();
    assertThat(db.delete(table, "nobody")).isEqualTo(Status.NOT_FOUND);
  }

  @Test
  void valuesAreKeptByteForByte() throws Exception {
    DB db = open();
    byte[] value = new byte[256];
    for (int i = 0; i < value.length; i++) {
      value[i] = (byte) i;
    }
    db.insert(table, "user1", Map.of("field0", new site.ycsb.ByteArrayByteIterator(value)));
    Map<String, ByteIterator> row = new HashMap<>();
    db.read(table, "user1", null, row);
    assertThat(row.get("field0").toArray()).isEqualTo(value);
  }

  @Test
  void aSecondInstanceSeesTheFirstInstancesWrites() throws Exception {
    DB writer = open();
    DB reader = open();
    writer.insert(table, "user1", fields("field0", "shared"));
    Map<String, ByteIterator> row = new HashMap<>();
    assertThat(reader.read(table, "user1", null, row)).isEqualTo(Status.OK);
    assertThat(strings(row)).isEqualTo(Map.of("field0", "shared"));
  }
}
