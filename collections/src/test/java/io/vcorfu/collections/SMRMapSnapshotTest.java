package io.vcorfu.collections;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.runtime.VCorfuRuntime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Snapshot (asOf) views of an SMRMap hold exactly the map as of every address. */
class SMRMapSnapshotTest {
  private static final Logger LOG = LoggerFactory.getLogger(SMRMapSnapshotTest.class);
  @RegisterExtension final Harness harness = new Harness();

  private VCorfuRuntime runtime() {
    return harness.defaultRuntime();
  }

  static Stream<Long> seeds() {
    long base = System.nanoTime();
    return LongStream.range(0, 2).mapToObj(i -> base + 15_485_863L * i);
  }

  private static long tail(VCorfuRuntime rt) {
    rt.TXBegin();
    return rt.TXEnd();
  }

  @SuppressWarnings("unchecked")
  private static SMRMap<String, Integer> asOf(VCorfuRuntime rt, String name, long address) {
    return rt.objects().builder(name, SMRMap.class).asOf(address).open();
  }

  @ParameterizedTest(name = "seed={0}")
  @MethodSource("seeds")
  void asOfViewsHoldTheExactMapAtEveryAddress(long seed) {
    LOG.info("SMRMapSnapshotTest seed={}", seed);
    Random random = new Random(seed);
    String name = "snapshots-" + seed;
    VCorfuRuntime rt = runtime();
    SMRMap<String, Integer> map = SMRMap.open(rt, name);
    Map<String, Integer> model = new HashMap<>();
    List<Long> addresses = new ArrayList<>();
    List<Map<String, Integer>> expected = new ArrayList<>();
    addresses.add(tail(rt));
    expected.add(Map.of());
    for (int op = 0; op < 150; op++) {
      String k = "k" + random.nextInt(25);
      int v = random.nextInt(1000);
      int dice = random.nextInt(20);
      if (dice < 8) {
        map.put(k, v);
        model.put(k, v);
      } else if (dice < 12) {
        map.fastPut(k, v);
        model.put(k, v);
      } else if (dice < 17) {
        map.remove(k);
        model.remove(k);
      } else if (dice < 19) {
        Map<String, Integer> batch = Map.of(k, v, k + "x", v + 1);
        map.putAll(batch);
        model.putAll(batch);
      } else {
        map.clear();
        model.clear();
      }
      addresses.add(tail(rt));
      expected.add(new HashMap<>(model));
    }
    assertThat(map).isEqualTo(model);

    VCorfuRuntime other = runtime();
    for (int i = 0; i < addresses.size(); i++) {
      long at = addresses.get(i);
      assertThat(asOf(rt, name, at))
          .as("seed %d: from the local view's versions, as of %d", seed, at)
          .isEqualTo(expected.get(i));
      if (i % 10 == 0) {
        assertThat(asOf(other, name, at))
            .as("seed %d: played from the log, as of %d", seed, at)
            .isEqualTo(expected.get(i));
      }
    }
  }
}
