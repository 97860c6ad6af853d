package io.vcorfu.collections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.client.StreamLog;
import io.vcorfu.collections.MapUpdate.Kind;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.ObjectHistory;
import io.vcorfu.runtime.VCorfuRuntime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link CSMRMap#history}: a key's versions newest first, each with its entry's address, time and
 * change, other keys' updates passed over, a transaction's last change of the key as its version,
 * pages that join up, and versions trimmed away reported as trimmed.
 */
class MapHistoryTest {
  private final Harness harness = new Harness();
  private final String name = "history-" + UUID.randomUUID();

  @AfterEach
  void close() {
    harness.close();
  }

  @Test
  void listsTheKeysVersionsNewestFirstWithTheirChanges() {
    VCorfuRuntime rt = harness.runtime();
    CSMRMap<String, Integer> map = CSMRMap.open(rt, name, 1);
    long before = System.currentTimeMillis();
    map.put("k", 1);
    map.put("other", 9);
    map.remove("k");
    rt.transaction(
        () -> {
          map.put("k", 2);
          map.put("k", 3);
        });
    map.fastUpdateFields("k", Map.of("f", 1));
    map.clear();

    ObjectHistory<KeyVersion<Integer>> h = map.history("k", Long.MAX_VALUE, 10);
    assertThat(h.items())
        .extracting(KeyVersion::kind)
        .containsExactly(Kind.CLEAR, Kind.UPDATE_FIELDS, Kind.PUT, Kind.REMOVE, Kind.PUT);
    assertThat(h.items().get(2).value()).as("the transaction's last put of k").isEqualTo(3);
    assertThat(h.items().get(4).value()).isEqualTo(1);
    assertThat(h.items().get(1).fields()).isEqualTo(Map.of("f", 1));
    assertThat(h.items().get(0).removed()).isTrue();
    assertThat(h.items())
        .extracting(KeyVersion::globalAddress)
        .isSortedAccordingTo((a, b) -> Long.compare(b, a));
    assertThat(h.items())
        .allSatisfy(v -> assertThat(v.timeMillis()).isBetween(before, System.currentTimeMillis()));
    assertThat(h.trimmed()).isFalse();
    assertThat(h.nextBefore()).as("the oldest version was reached").isEqualTo(-1);
    assertThat(map.history("never", Long.MAX_VALUE, 10).items())
        .as("a key never written has only the clear of its bucket")
        .extracting(KeyVersion::kind)
        .containsExactly(Kind.CLEAR);
  }

  @Test
  void pagesJoinUpAndStopAtTheOldest() {
    CSMRMap<String, Integer> map = CSMRMap.open(harness.runtime(), name, 2);
    for (int i = 0; i < 25; i++) {
      map.put("k", i);
      map.put("noise-" + i, i);
    }
    List<Integer> values = new ArrayList<>();
    long before = Long.MAX_VALUE;
    int pages = 0;
    while (before >= 0) {
      ObjectHistory<KeyVersion<Integer>> page = map.history("k", before, 7);
      page.items().forEach(v -> values.add(v.value()));
      before = page.items().isEmpty() ? -1 : page.nextBefore();
      pages++;
      assertThat(pages).isLessThan(10);
    }
    List<Integer> expected = new ArrayList<>();
    for (int i = 24; i >= 0; i--) {
      expected.add(i);
    }
    assertThat(values).isEqualTo(expected);
    assertThatThrownBy(() -> map.history("k", Long.MAX_VALUE, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void versionsTrimmedAwayAreReportedAsTrimmed() throws Exception {
    CSMRMap<String, Integer> map = CSMRMap.open(harness.runtime(), name, 1);
    for (int i = 0; i < 10; i++) {
      map.put("k", i);
    }
    try (StreamLog log = harness.newLog()) {
      log.trimStream(StreamId.of(CSMRMap.bucketStreamName(name, 0)), 6).get(30, TimeUnit.SECONDS);
    }
    // Read by another client: the writer's own cache of what it wrote is not the replicas'.
    CSMRMap<String, Integer> reader = CSMRMap.open(harness.runtime(), name);
    ObjectHistory<KeyVersion<Integer>> h = reader.history("k", Long.MAX_VALUE, 100);
    assertThat(h.items()).extracting(KeyVersion::value).containsExactly(9, 8, 7, 6);
    assertThat(h.trimmed()).as("versions 0 to 5 were trimmed").isTrue();
    ObjectHistory<KeyVersion<Integer>> newest = reader.history("k", Long.MAX_VALUE, 2);
    assertThat(newest.items()).extracting(KeyVersion::value).containsExactly(9, 8);
    assertThat(newest.trimmed()).isFalse();
  }
}
