package io.vcorfu.collections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.ObjectOpenException;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.testing.CountingStreamLog;
import io.vcorfu.runtime.testing.TestStreamLogs;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** CSMRMap beyond the Map contract: layout, placement, one-bucket and all-bucket operations. */
class CSMRMapTest {
  private static final Logger LOG = LoggerFactory.getLogger(CSMRMapTest.class);

  private final Harness harness = new Harness();
  private final String name = "csmr-" + UUID.randomUUID();

  @AfterEach
  void close() {
    harness.close();
  }

  @Test
  void openingWithAnotherBucketCountFailsNamingBothCounts() {
    CSMRMap.open(harness.runtime(), name, 10);
    assertThatThrownBy(() -> CSMRMap.open(harness.runtime(), name, 12))
        .isInstanceOfSatisfying(
            BucketCountMismatchException.class,
            e -> {
              assertThat(e.mapName()).isEqualTo(name);
              assertThat(e.storedBuckets()).isEqualTo(10);
              assertThat(e.requestedBuckets()).isEqualTo(12);
            })
        .hasMessageContaining("created with 10 buckets")
        .hasMessageContaining("opened with 12");
    assertThatThrownBy(() -> CSMRMap.open(harness.runtime(), name + "-x", 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void openingWithoutACountUsesTheStoredOneAndFailsForAMapNeverCreated() {
    CSMRMap<String, Integer> created = CSMRMap.open(harness.runtime(), name, 13);
    created.put("k", 1);
    CSMRMap<String, Integer> adopted = CSMRMap.open(harness.runtime(), name);
    assertThat(adopted.bucketCount()).isEqualTo(13);
    assertThat(adopted.get("k")).isEqualTo(1);
    assertThatThrownBy(() -> CSMRMap.open(harness.runtime(), name + "-never"))
        .isInstanceOf(ObjectOpenException.class)
        .hasMessageContaining("has not been created");
  }

  @Test
  void concurrentCreatorsAllAgreeOnTheFirstCountInTheLog() throws Exception {
    VCorfuRuntime a = harness.runtime();
    VCorfuRuntime b = harness.runtime();
    // b has not read the layout when a creates the map; b's creation comes second in the log.
    CSMRMap.open(a, name, 4);
    assertThatThrownBy(() -> CSMRMap.open(b, name, 5))
        .isInstanceOf(BucketCountMismatchException.class);
    assertThat(CSMRMap.open(b, name, 4).bucketCount()).isEqualTo(4);
  }

  @Test
  void everyClientPlacesAKeyInTheSameSingleBucket() {
    CSMRMap<String, Integer> map = CSMRMap.open(harness.runtime(), name, 8);
    CSMRMap<String, Integer> other = CSMRMap.open(harness.runtime(), name);
    for (int i = 0; i < 40; i++) {
      map.put("key" + i, i);
    }
    map.fastPut("fast", 1);
    VCorfuRuntime inspector = harness.runtime();
    for (String key : List.of("key0", "key17", "key39", "fast")) {
      int bucket = map.bucketOf(key);
      assertThat(other.bucketOf(key)).isEqualTo(bucket);
      for (int b = 0; b < 8; b++) {
        SMRMap<String, Integer> part = SMRMap.open(inspector, CSMRMap.bucketStreamName(name, b));
        assertThat(part.containsKey(key)).as("bucket %d holds %s", b, key).isEqualTo(b == bucket);
      }
    }
  }

  @Test
  void aFieldUpdateChangesTheRecordInItsKeysBucketOnly() {
    CSMRMap<String, Map<String, Integer>> map = CSMRMap.open(harness.runtime(), name, 4);
    map.put("r", Map.of("a", 1));
    CSMRMap<String, Map<String, Integer>> other = CSMRMap.open(harness.runtime(), name);
    other.fastUpdateFields("r", Map.of("b", 2));
    other.fastUpdateFields("missing", Map.of("b", 2));
    assertThat(map.get("r")).isEqualTo(Map.of("a", 1, "b", 2));
    assertThat(map).as("no record created").hasSize(1);
    VCorfuRuntime inspector = harness.runtime();
    for (int b = 0; b < 4; b++) {
      SMRMap<String, Map<String, Integer>> part =
          SMRMap.open(inspector, CSMRMap.bucketStreamName(name, b));
      assertThat(part.containsKey("r")).as("bucket %d", b).isEqualTo(b == map.bucketOf("r"));
    }
  }

  /**
   * A field update replaces a record by a copy: the old record's map stays alive in the versions
   * the view keeps for snapshots, and each is charged against the runtime's bound for old versions,
   * not just the few bytes of the changed field.
   */
  @Test
  void aFieldUpdateChargesTheRecordItReplacedToTheBoundOnOldVersions() {
    VCorfuRuntime rt = harness.runtime();
    CSMRMap<String, Map<String, String>> map = CSMRMap.open(rt, name, 1);
    Map<String, String> record = new HashMap<>();
    for (int f = 0; f < 10; f++) {
      record.put("field" + f, "v");
    }
    map.put("r", record);
    assertThat(map.get("r")).hasSize(10);
    long before = rt.oldVersionBytes();
    int updates = 40;
    for (int i = 0; i < updates; i++) {
      map.fastUpdateFields("r", Map.of("field" + (i % 10), "u" + i));
    }
    assertThat(map.get("r")).containsEntry("field9", "u39").hasSize(10);
    long perRecord = SMRMap.RECORD_BYTES + 10 * SMRMap.RECORD_FIELD_BYTES;
    assertThat(rt.oldVersionBytes() - before)
        .as("bytes charged for %d versions that each keep a 10-field record alive", updates)
        .isGreaterThanOrEqualTo(updates * perRecord);
  }

  @Test
  void aNewClientServesGetAndPutByReadingOnlyTheKeysBucket() {
    CSMRMap<String, Integer> writer = CSMRMap.open(harness.runtime(), name, 10);
    for (int i = 0; i < 100; i++) {
      writer.put("k" + i, i);
    }
    CountingStreamLog counting = new CountingStreamLog(harness.newLog());
    try (VCorfuRuntime fresh = VCorfuRuntime.using(counting)) {
      CSMRMap<String, Integer> map = CSMRMap.open(fresh, name);
      assertThat(map.get("k42")).isEqualTo(42);
      assertThat(map.put("k42", 420)).isEqualTo(42);
      Set<StreamId> allowed =
          Set.of(
              // Once per client: whether the map's name is listed already.
              io.vcorfu.client.NameDirectory.STREAM,
              StreamId.of(name + "/layout"),
              StreamId.of(CSMRMap.bucketStreamName(name, map.bucketOf("k42"))));
      assertThat(counting.lowestReadFromByStream.keySet())
          .as("streams read")
          .isSubsetOf(allowed)
          .contains(StreamId.of(CSMRMap.bucketStreamName(name, map.bucketOf("k42"))));
    }
  }

  @ParameterizedTest
  @ValueSource(longs = {3L, 20261122L})
  void keysSpreadEvenlyOverTheBuckets(long seed) {
    LOG.info("seed {}", seed);
    Random random = new Random(seed);
    int buckets = 16;
    int keys = 32_000;
    CSMRMap<Object, Integer> map = CSMRMap.open(harness.runtime(), name, buckets);
    int[] sequential = new int[buckets];
    int[] randomStrings = new int[buckets];
    for (int i = 0; i < keys; i++) {
      sequential[map.bucketOf(i)]++;
      randomStrings[map.bucketOf("user" + random.nextInt(Integer.MAX_VALUE))]++;
    }
    // Chi-square with 15 degrees of freedom: the 99.99th percentile is about 44.3.
    assertThat(chiSquare(sequential, keys)).as("consecutive integers").isLessThan(44.3);
    assertThat(chiSquare(randomStrings, keys)).as("random strings").isLessThan(44.3);
  }

  private static double chiSquare(int[] counts, int total) {
    double expected = (double) total / counts.length;
    double sum = 0;
    for (int c : counts) {
      sum += (c - expected) * (c - expected) / expected;
    }
    return sum;
  }

  @Test
  void wholeMapOperationsSeeAndChangeEveryBucketAtomically() {
    VCorfuRuntime rt = harness.runtime();
    CSMRMap<String, Integer> map = CSMRMap.open(rt, name, 5);
    Map<String, Integer> batch = new HashMap<>();
    for (int i = 0; i < 50; i++) {
      batch.put("k" + i, i);
    }
    map.putAll(batch);
    CSMRMap<String, Integer> other = CSMRMap.open(harness.runtime(), name);
    Map<String, Integer> frozen;
    rt.TXBegin();
    try {
      frozen = map.snapshot();
      other.clear();
      assertThat(map.size()).as("the transaction's snapshot").isEqualTo(50);
      assertThat(map.containsValue(49)).isTrue();
    } finally {
      rt.TXAbort();
    }
    assertThat(frozen).isEqualTo(batch);
    assertThat(map.size()).isZero();
    assertThat(map.isEmpty()).isTrue();
    for (int b = 0; b < 5; b++) {
      assertThat(SMRMap.open(rt, CSMRMap.bucketStreamName(name, b))).isEmpty();
    }
  }

  @Test
  void remoteBucketViewsServeTheSameMap() {
    assumeThat(System.getProperty(TestStreamLogs.BACKEND_PROPERTY))
        .as("remote views need real nodes (the server module's run)")
        .isNotNull();
    CSMRMap<String, Integer> local = CSMRMap.open(harness.runtime(), name, 6);
    for (int i = 0; i < 30; i++) {
      local.put("k" + i, i);
    }
    CSMRMap<String, Integer> remote =
        CSMRMap.open(harness.runtime(), name, CSMRMap.BucketViews.REMOTE);
    assertThat(remote.get("k7")).isEqualTo(7);
    assertThat(remote.size()).isEqualTo(30);
    remote.put("k30", 30);
    remote.clear();
    assertThat(local.size()).isZero();
  }
}
