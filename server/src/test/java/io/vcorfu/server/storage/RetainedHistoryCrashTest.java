package io.vcorfu.server.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.runtime.Retention;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.annotations.Accessor;
import io.vcorfu.runtime.annotations.Mutator;
import io.vcorfu.server.ServerProcess;
import io.vcorfu.server.cli.CliRun;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletionException;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * After any interleaving of writes, automatic checkpoints and trims, compactions and {@code kill
 * -9} of a real node process (restarted on its data directory), every retained version of every
 * object reads back exactly as it was written, nothing below a stream's trim mark is readable (a
 * snapshot as of such a version fails with {@link TrimmedException}, never with another version's
 * state), and a snapshot that reads at all reads the state of its version. After each step the
 * check reads the retained versions, those within a few of the trim mark and a spread sample of the
 * rest; after the last step, every version.
 */
class RetainedHistoryCrashTest {
  private static final Logger LOG = LoggerFactory.getLogger(RetainedHistoryCrashTest.class);
  private static final int OBJECTS = 3;

  /**
   * 8 KB values, half as many as with 4 KB ones for the same bytes: the bytes decide how many
   * segments seal (what a compaction has to work on) and when automatic checkpoints fall due, while
   * the checks cost per version.
   */
  private static final int VALUE_BYTES = 8_000;

  /** About how many versions of each object's history a check reads besides the required ones. */
  private static final int SAMPLES = 12;

  @TempDir Path tmp;

  /** A register of bytes: the object these tests write. */
  public static class Blob {
    byte[] value = new byte[0];

    @Mutator
    public void set(byte[] v) {
      value = v;
    }

    @Accessor
    public byte[] get() {
      return value;
    }
  }

  /** One acknowledged update: its object, its number, and a global address it is visible at. */
  private record Update(int object, int number, long version) {}

  /**
   * One new seed per run (each run explores another history); {@code -Dvcorfu.seeds=N} for N, and
   * {@code -Dvcorfu.seed=S} to run the history of seed S again (the test's name shows it).
   */
  static Stream<Long> seeds() {
    long base = Long.getLong("vcorfu.seed", System.nanoTime());
    return LongStream.range(0, Long.getLong("vcorfu.seeds", 1)).mapToObj(i -> base + i * 7919);
  }

  private static byte[] value(long seed, int object, int number) {
    byte[] v = new byte[VALUE_BYTES];
    new Random(seed * 31 + object * 1_000_003L + number).nextBytes(v);
    ByteBuffer.wrap(v).putInt(number);
    return v;
  }

  private static String name(int object) {
    return "retained-" + object;
  }

  private static long trimMark(StreamLog log, int object) {
    Throwable t = catchThrowable(() -> log.readStream(StreamId.of(name(object)), 0, 0).join());
    return t instanceof CompletionException && t.getCause() instanceof TrimmedException e
        ? e.trimMark()
        : 0;
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void everyRetainedVersionReadsBackAndNothingBelowTheTrimDoes(long seed) throws Exception {
    LOG.info("RetainedHistoryCrashTest seed {}", seed);
    Random random = new Random(seed);
    int retain = 5 + random.nextInt(20);
    Path dir = tmp.resolve("node");
    int port = ServerProcess.freePort();
    List<String> args =
        List.of(
            "server",
            "--port",
            Integer.toString(port),
            "--data-dir",
            dir.toString(),
            "--segment-size-mb",
            "1");
    ServerProcess server = ServerProcess.startCli(port, args).awaitReady();
    String at = "127.0.0.1:" + port;
    RuntimeOptions writing =
        RuntimeOptions.defaults()
            .withRetention(
                Retention.DEFAULT
                    .withCheckpointMinBytes(32 << 10)
                    .withHistoryBudgetBytes(0)
                    .withRetainVersions(retain));
    List<Update> updates = new ArrayList<>();
    int[] written = new int[OBJECTS];
    int kills = 0;
    int compactions = 0;
    try (VCorfuRuntime writer = VCorfuRuntime.connect(at, writing);
        StreamLog tails =
            ClusterStreamLog.connect(Endpoint.parse(at), StreamLogOptions.defaults())) {
      List<Blob> blobs = new ArrayList<>();
      for (int o = 0; o < OBJECTS; o++) {
        blobs.add(writer.objects().open(name(o), Blob.class));
      }
      // Every kind of step at least once, in an order the seed picks; writes first.
      List<Character> steps = new ArrayList<>(List.of('w', 'w', 'w', 'c', 'c', 'p', 'k', 'k'));
      java.util.Collections.shuffle(steps, random);
      steps.add(0, 'w');
      for (int step = 0; step < steps.size(); step++) {
        char what = steps.get(step);
        if (what == 'w') {
          int o = random.nextInt(OBJECTS);
          // 0.4 to 1.6 MB a step: the bytes of 100 to 400 values of 4 KB (see VALUE_BYTES).
          int n = 50 + random.nextInt(150);
          for (int i = 0; i < n; i++) {
            update(seed, o, blobs, written, updates, tails);
          }
        } else if (what == 'c') {
          // Past the window that protects snapshots not registered yet, so the pass may trim.
          Thread.sleep(3_200);
          writer.checkpointNow();
        } else if (what == 'p') {
          CliRun c = CliRun.of("cluster", "compact", "--endpoint", at, "--below", "0.9");
          assertThat(c.code()).as(c.err()).isZero();
          LOG.info("compaction after step {}: {}", step, c.out().strip());
          compactions++;
        } else {
          server.kill9();
          server = ServerProcess.startCli(port, args).awaitReady();
          kills++;
        }
        verify(seed, at, updates, written, retain, step, false);
      }
      // Whatever the order did (a pass finds no trim while the restarted sequencer's snapshot
      // registrations are incomplete, for a lease after each kill): more writes and passes until
      // an object is trimmed, bounded in count and time, and the check once more.
      Awaitility.await("an object trimmed within 40 s")
          .atMost(Duration.ofSeconds(40))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                for (int i = 0; i < 15; i++) {
                  update(seed, 0, blobs, written, updates, tails);
                }
                writer.checkpointNow();
                return maxTrimMark(tails) > 0;
              });
      assertThat(maxTrimMark(tails))
          .as("some object was trimmed: the rule was put to the test")
          .isPositive();
      verify(seed, at, updates, written, retain, steps.size(), true);
    } finally {
      server.close();
    }
    LOG.info(
        "seed {}: {} updates, retain {}, {} kills, {} compactions",
        seed,
        updates.size(),
        retain,
        kills,
        compactions);
  }

  /** Writes the next value of object {@code o}, reads it, and records the update. */
  private static void update(
      long seed, int o, List<Blob> blobs, int[] written, List<Update> updates, StreamLog tails) {
    int number = ++written[o];
    blobs.get(o).set(value(seed, o, number));
    blobs.get(o).get();
    updates.add(new Update(o, number, tails.tails(List.of()).join().globalTail()));
  }

  private static long maxTrimMark(StreamLog log) {
    long trimmed = 0;
    for (int o = 0; o < OBJECTS; o++) {
      trimmed = Math.max(trimmed, trimMark(log, o));
    }
    return trimmed;
  }

  /**
   * Checks every object's recorded versions against what a fresh reader sees now: every version
   * when {@code whole}, else the retained ones, those near the trim mark and a spread sample.
   */
  private static void verify(
      long seed,
      String at,
      List<Update> updates,
      int[] written,
      int retain,
      int step,
      boolean whole) {
    try (VCorfuRuntime reader =
            VCorfuRuntime.connect(at, RuntimeOptions.defaults().withRetention(Retention.OFF));
        StreamLog log = ClusterStreamLog.connect(Endpoint.parse(at), StreamLogOptions.defaults())) {
      for (int o = 0; o < OBJECTS; o++) {
        if (written[o] > 0) {
          assertThat(reader.objects().open(name(o), Blob.class).get())
              .as("object %d's latest state after step %d", o, step)
              .isEqualTo(value(seed, o, written[o]));
        }
      }
      for (int o = 0; o < OBJECTS; o++) {
        final int object = o;
        List<Update> mine = updates.stream().filter(u -> u.object() == object).toList();
        long mark = trimMark(log, o);
        int spread = Math.max(1, mine.size() / SAMPLES);
        for (int i = 0; i < mine.size(); i++) {
          Update u = mine.get(i);
          // Stream positions are the update numbers less one (each object has one writer), and a
          // trim mark is the stream position of the checkpoint kept, which reflects the update
          // just below the mark: the versions before that update's are gone.
          boolean belowTrim = u.number() < mark;
          boolean retained = mine.size() - i <= retain;
          // Every retained version and every version within a few of the trim mark (where an
          // off-by-one would show); elsewhere, above the mark or below it, about a dozen spread
          // over the history are enough (each snapshot replays its object's history).
          boolean nearMark = Math.abs(u.number() - mark) <= 3;
          if (!whole && !retained && !nearMark && i % spread != 0) {
            continue;
          }
          Blob snapshot = reader.objects().builder(name(o), Blob.class).asOf(u.version()).open();
          Throwable t = catchThrowable(snapshot::get);
          if (t == null) {
            assertThat(belowTrim)
                .as("update %d of object %d, below trim mark %d, read back", u.number(), o, mark)
                .isFalse();
            assertThat(Arrays.equals(snapshot.get(), value(seed, o, u.number())))
                .as("object %d as of update %d (after step %d)", o, u.number(), step)
                .isTrue();
          } else {
            assertThat(t).isInstanceOf(TrimmedException.class);
            assertThat(retained)
                .as("one of the last %d updates of object %d trimmed (update %d)", retain, o, i)
                .isFalse();
          }
        }
      }
    }
  }
}
