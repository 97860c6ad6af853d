package io.vcorfu.runtime.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.StreamLog;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.Retention;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.example.Counter;
import io.vcorfu.runtime.testing.CountingStreamLog;
import io.vcorfu.runtime.testing.TestRuntimes;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A snapshot of any version opens from the newest readable checkpoint at or below it, found by
 * bisecting the checkpoint stream: over random histories of updates, checkpoints, unreadable
 * entries in the checkpoint stream and a trimmed prefix of it, every version reads back, plays the
 * object's stream from exactly that checkpoint's position, and reads the checkpoint stream a number
 * of times logarithmic in its length (times the longest run of unreadable entries stepped over),
 * not once per newer checkpoint.
 */
class CheckpointSearchTest {
  private static final Logger LOG = LoggerFactory.getLogger(CheckpointSearchTest.class);
  private static final int UPDATES = 120;

  @RegisterExtension final TestRuntimes runtimes = new TestRuntimes();

  /** {@code -Dvcorfu.seed=S} runs the history of seed S again (the test's name shows it). */
  static Stream<Long> seeds() {
    long base = Long.getLong("vcorfu.seed", System.nanoTime());
    return LongStream.range(0, 4).mapToObj(i -> base + i * 7919);
  }

  /** One entry of the checkpoint stream: the value it reflects, or -1 when it is unreadable. */
  private record CheckpointEntry(long value) {}

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void aSnapshotOpensFromTheNewestCheckpointAtOrBelowItsVersion(long seed) {
    LOG.info("CheckpointSearchTest seed {}", seed);
    Random random = new Random(seed);
    String name = "search-" + seed;
    StreamId stream = StreamId.of(name);
    StreamId cp = Checkpoints.streamOf(stream);
    VCorfuRuntime writer = runtimes.runtime(RuntimeOptions.defaults().withRetention(Retention.OFF));
    StreamLog log = runtimes.newLog();
    Counter counter = writer.objects().open(name, Counter.class);
    int every = 1 + random.nextInt(3);
    List<Long> versions = new ArrayList<>(); // versions.get(i): the version of value i + 1
    List<CheckpointEntry> entries = new ArrayList<>();
    for (int i = 1; i <= UPDATES; i++) {
      counter.add(1);
      assertThat(counter.get()).isEqualTo(i);
      versions.add(log.tails(List.of()).join().globalTail());
      if (random.nextInt(every) == 0) {
        assertThat(writer.checkpoint(counter)).hasValue(versions.get(i - 1));
        entries.add(new CheckpointEntry(i));
      }
      if (random.nextInt(12) == 0) {
        log.append(List.of(cp), new byte[] {(byte) random.nextInt(256)}).join();
        entries.add(new CheckpointEntry(-1));
      }
    }
    int trimmed = random.nextBoolean() ? random.nextInt(entries.size() + 1) : 0;
    if (trimmed > 0) {
      log.trimStream(cp, trimmed).join();
    }
    int longestUnreadable = 0;
    for (int i = 0, run = 0; i < entries.size(); i++) {
      run = entries.get(i).value() < 0 ? run + 1 : 0;
      longestUnreadable = Math.max(longestUnreadable, run);
    }
    int probes = 64 - Long.numberOfLeadingZeros(entries.size()) + 1;
    int bound = probes * (longestUnreadable + 1);

    CountingStreamLog counting = new CountingStreamLog(runtimes.newLog());
    VCorfuRuntime reader =
        runtimes.runtime(counting, RuntimeOptions.defaults().withRetention(Retention.OFF));
    for (int v = 0; v <= UPDATES; v++) {
      long asOf = v == 0 ? versions.get(0) - 1 : versions.get(v - 1);
      long base = 0; // the value of the newest readable checkpoint at or below v, 0 for none
      for (int pos = trimmed; pos < entries.size(); pos++) {
        long value = entries.get(pos).value();
        if (value >= 0 && value <= v) {
          base = value;
        }
      }
      counting.readsByStream.clear();
      counting.lowestReadFromByStream.clear();
      Counter snapshot = reader.objects().builder(name, Counter.class).asOf(asOf).open();
      assertThat(snapshot.get()).as("value as of version %d", v).isEqualTo(v);
      assertThat(counting.lowestReadFromByStream.getOrDefault(stream, base))
          .as("the snapshot of value %d played from the checkpoint of value %d", v, base)
          .isEqualTo(base);
      assertThat(counting.readsByStream.getOrDefault(cp, 0))
          .as(
              "reads of a checkpoint stream of %d entries (longest unreadable run %d) for value %d",
              entries.size(), longestUnreadable, v)
          .isLessThanOrEqualTo(bound);
      reader.objects().release(snapshot);
    }
  }
}
