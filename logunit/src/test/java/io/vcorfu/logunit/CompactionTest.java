package io.vcorfu.logunit;

import static io.vcorfu.logunit.Fixtures.get;
import static io.vcorfu.logunit.Fixtures.slot;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.ReadResult.Status;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compaction: segments whose live bytes fell low are written again and deleted; every key keeps
 * exactly what it held, across restarts and across a crash at any step of a compaction; what lies
 * below a trim mark stays unreadable.
 *
 * <p>The cases run concurrently: each has a store directory of its own and spends much of its time
 * waiting on the disk.
 */
@Execution(ExecutionMode.CONCURRENT)
class CompactionTest {
  private static final Logger LOG = LoggerFactory.getLogger(CompactionTest.class);
  private static final StreamId[] STREAMS = {
    StreamId.of("compact-a"), StreamId.of("compact-b"), StreamId.of("compact-c")
  };

  @TempDir Path root;
  private Path dir;

  @org.junit.jupiter.api.BeforeEach
  void storeDirectory() {
    dir = root.resolve("store");
  }

  private StorageOptions.Builder options(Path where) {
    return StorageOptions.builder()
        .mode(StorageMode.DURABLE)
        .directory(where)
        .segmentSize(64 << 10)
        .compactBelow(0) // on demand only: the test decides when
        .compactionBytesPerSecond(0);
  }

  private static LogEntryMsg entry(long global, Random random, StreamId stream, long address) {
    byte[] value = new byte[200 + random.nextInt(800)];
    random.nextBytes(value);
    return LogEntryMsg.newBuilder()
        .setGlobalAddress(global)
        .setKind(EntryKind.DATA)
        .setPayload(ByteString.copyFrom(value))
        .setEpoch(2)
        .setNonce(random.nextLong() | 1)
        .addSlots(slot(stream, address))
        .build();
  }

  private static void write(ReplicaStore store, LogEntryMsg e) {
    List<ReplicaStore.Step> steps =
        List.of(
            new ReplicaStore.Step(true, List.of(), false),
            new ReplicaStore.Step(false, StreamReplica.Slot.of(e.getSlotsList()), true));
    assertThat(get(store.chainWrite(e, steps, true)).failure()).isNull();
  }

  /** What the store must hold: every entry written, and the trim marks. */
  private static final class Model {
    final TreeMap<Long, LogEntryMsg> log = new TreeMap<>();
    final Map<StreamId, TreeMap<Long, LogEntryMsg>> streams = new HashMap<>();
    final Map<StreamId, Long> streamTrim = new HashMap<>();
    long logTrim;
    long next;
    final Map<StreamId, Long> nextIn = new HashMap<>();

    LogEntryMsg append(Random random, StreamId s) {
      long a = nextIn.merge(s, 1L, Long::sum) - 1;
      LogEntryMsg e = entry(next++, random, s, a);
      log.put(e.getGlobalAddress(), e);
      streams.computeIfAbsent(s, x -> new TreeMap<>()).put(a, e);
      return e;
    }

    void check(ReplicaStore store) {
      for (long from = 0; from < next; from += 4096) {
        List<ReadResult> page = get(store.logReplica().read(from, Math.min(next, from + 4096) - 1));
        for (ReadResult r : page) {
          long a = r.getAddress();
          if (a < logTrim) {
            assertThat(r.getStatus()).as("log %d", a).isEqualTo(Status.TRIMMED);
          } else {
            assertThat(r.getStatus()).as("log %d", a).isEqualTo(Status.COMMITTED);
            assertThat(r.getEntry()).as("log %d", a).isEqualTo(log.get(a));
          }
        }
      }
      for (Map.Entry<StreamId, TreeMap<Long, LogEntryMsg>> s : streams.entrySet()) {
        long trim = streamTrim.getOrDefault(s.getKey(), 0L);
        long end = s.getValue().lastKey() + 1;
        for (long from = 0; from < end; from += 4096) {
          for (ReadResult r :
              get(store.streamReplica().read(s.getKey(), from, Math.min(end, from + 4096) - 1))) {
            long a = r.getAddress();
            if (a < trim) {
              assertThat(r.getStatus()).as("%s %d", s.getKey(), a).isEqualTo(Status.TRIMMED);
            } else {
              assertThat(r.getEntry()).as("%s %d", s.getKey(), a).isEqualTo(s.getValue().get(a));
            }
          }
        }
      }
    }
  }

  private long segmentBytes(Path where) throws IOException {
    try (Stream<Path> files = Files.list(where)) {
      return files
          .filter(p -> p.getFileName().toString().endsWith(".log"))
          .mapToLong(p -> p.toFile().length())
          .sum();
    }
  }

  @Test
  void compactionReclaimsTheSpaceOfTrimmedStreamsAndKeepsEveryLiveRecord() throws Exception {
    Random random = new Random(11);
    Model m = new Model();
    try (ReplicaStore store = ReplicaStore.open(options(dir).build())) {
      for (int i = 0; i < 1_500; i++) {
        write(store, m.append(random, STREAMS[i % 2]));
      }
      // One stream of two interleaved ones goes, and so does the log: half of every segment.
      long before = segmentBytes(dir);
      get(store.streamReplica().trim(STREAMS[0], m.nextIn.get(STREAMS[0])));
      m.streamTrim.put(STREAMS[0], m.nextIn.get(STREAMS[0]));
      get(store.logReplica().trim(m.next));
      m.logTrim = m.next;
      // The trims' records went into the active segment (into bytes its writer zeroed ahead).
      assertThat(segmentBytes(dir))
          .as("nothing frees a whole segment")
          .isGreaterThanOrEqualTo(before);
      SpaceReport space = store.space();
      assertThat(space.liveBytes()).isLessThan(space.fileBytes() / 2);

      int reclaimed = store.compact(0.9);

      assertThat(reclaimed).isPositive();
      assertThat(segmentBytes(dir)).isLessThan(before * 6 / 10);
      assertThat(store.space().segmentsCompacted()).isEqualTo(reclaimed);
      m.check(store);
    }
    try (ReplicaStore store = ReplicaStore.open(options(dir).build())) {
      m.check(store);
    }
  }

  @Test
  void segmentsJustAboveHalfLiveAreCompactedOnceTheFilesHoldTooMuchDeadSpace() throws Exception {
    Random random = new Random(13);
    Model m = new Model();
    StreamId[] five = new StreamId[5];
    for (int i = 0; i < five.length; i++) {
      five[i] = StreamId.of("crowded-" + i);
    }
    try (ReplicaStore store = ReplicaStore.open(options(dir).build())) {
      for (int i = 0; i < 2_000; i++) {
        write(store, m.append(random, five[i % five.length]));
      }
      // Two streams of five go, and the log: every sealed segment keeps about three fifths live.
      for (StreamId s : List.of(five[0], five[1])) {
        get(store.streamReplica().trim(s, m.nextIn.get(s)));
        m.streamTrim.put(s, m.nextIn.get(s));
      }
      get(store.logReplica().trim(m.next));
      m.logTrim = m.next;
      long before = segmentBytes(dir);

      int reclaimed = store.compact(0.5);

      assertThat(reclaimed).as("segments about 60% live, files 1.67x live").isPositive();
      assertThat(segmentBytes(dir)).isLessThan(before * 8 / 10);
      m.check(store);
    }
  }

  @Test
  void anIdleStoreSettlesItsFilesNearWhatIsLive() throws Exception {
    Random random = new Random(17);
    Model m = new Model();
    StreamId[] five = new StreamId[5];
    for (int i = 0; i < five.length; i++) {
      // By id alone: the test's proportions of live and dead bytes leave out names' bytes.
      StreamId named = StreamId.of("settle-" + i);
      five[i] = new StreamId(named.msb(), named.lsb());
    }
    try (ReplicaStore store =
        ReplicaStore.open(options(dir).compactBelow(0.5).compactionBytesPerSecond(0).build())) {
      for (int i = 0; i < 2_000; i++) {
        write(store, m.append(random, five[i % five.length]));
      }
      // One stream of five goes, and the log: every segment keeps about four fifths of its
      // entries (their payloads and digests: about three quarters of its bytes) live.
      get(store.streamReplica().trim(five[0], m.nextIn.get(five[0])));
      m.streamTrim.put(five[0], m.nextIn.get(five[0]));
      get(store.logReplica().trim(m.next));
      m.logTrim = m.next;
      assertThat(store.compact(0.5)).as("no segment is below two thirds live").isZero();
      SpaceReport busy = store.space();
      assertThat(busy.fileBytes()).isGreaterThan(busy.liveBytes() * 5 / 4);

      Awaitility.await("the idle store compacts up to four fifths live")
          .atMost(Duration.ofSeconds(30))
          .until(
              store::space,
              s ->
                  s.segmentsCompacted() > 0
                      && s.fileBytes() < s.liveBytes() * 11 / 10 + (64 << 10));
      m.check(store);
    }
    try (ReplicaStore store = ReplicaStore.open(options(dir).build())) {
      m.check(store);
    }
  }

  @Test
  void aCrashAtEveryStepOfACompactionLosesNothingAndLeavesNoOrphan() throws Exception {
    Random random = new Random(12);
    Model m = new Model();
    List<Path> crashes = new ArrayList<>();
    CompactionObserver snapshot =
        (segment, step) -> {
          Path copy = root.resolve("crash-" + crashes.size());
          copyDirectory(dir, copy);
          crashes.add(copy);
        };
    try (ReplicaStore store =
        ReplicaStore.open(
            options(dir).segmentSize(256 << 10).compactionObserver(snapshot).build())) {
      for (int i = 0; i < 4_000; i++) { // about ten segments
        write(store, m.append(random, STREAMS[i % 3]));
      }
      get(store.streamReplica().trim(STREAMS[1], m.nextIn.get(STREAMS[1])));
      m.streamTrim.put(STREAMS[1], m.nextIn.get(STREAMS[1]));
      get(store.logReplica().trim(m.next));
      m.logTrim = m.next;
      assertThat(store.compact(0.9)).isPositive();
      m.check(store);
    }
    assertThat(crashes).hasSizeGreaterThan(20);
    for (Path crashed : crashes) {
      try (ReplicaStore store = ReplicaStore.open(options(crashed).build())) {
        m.check(store);
      }
      try (ReplicaStore store = ReplicaStore.open(options(crashed).build())) {
        assertThat(store.recoveryStats().segmentsDeleted()).as("no orphan left").isZero();
        store.compact(0.9);
        m.check(store);
      }
    }
  }

  /**
   * Random interleavings of writes to three streams, stream and log trims, compactions and
   * restarts; after each step every key reads back what the model says. The seed is logged. Each
   * fsync policy in turn: under all but group commit the test's thread writes its own records while
   * the writer's thread rolls segments and deletes the compacted ones.
   */
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9})
  void randomInterleavingsOfWritesTrimsCompactionsAndRestartsKeepEveryRetainedRecord(long seed)
      throws Exception {
    long s = seed * 0x9E3779B97F4A7C15L ^ System.nanoTime();
    FsyncPolicy policy = FsyncPolicy.values()[(int) (seed % FsyncPolicy.values().length)];
    LOG.info("compaction interleavings: seed {}, fsync policy {}", s, policy);
    Random random = new Random(s);
    Model m = new Model();
    StorageOptions options =
        options(dir).fsyncPolicy(policy).fsyncInterval(java.time.Duration.ofMillis(5)).build();
    ReplicaStore store = ReplicaStore.open(options);
    try {
      for (int step = 0; step < 60; step++) {
        int op = random.nextInt(10);
        if (op < 5) {
          for (int i = random.nextInt(80); i > 0; i--) {
            write(store, m.append(random, STREAMS[random.nextInt(STREAMS.length)]));
          }
        } else if (op == 5 && !m.nextIn.isEmpty()) {
          List<StreamId> written = new ArrayList<>(m.nextIn.keySet());
          StreamId t = written.get(random.nextInt(written.size()));
          long next = m.nextIn.getOrDefault(t, 0L);
          long mark =
              Math.max(m.streamTrim.getOrDefault(t, 0L), (long) (next * random.nextDouble()));
          get(store.streamReplica().trim(t, mark));
          m.streamTrim.put(t, mark);
        } else if (op == 6) {
          long mark = Math.max(m.logTrim, (long) (m.next * random.nextDouble()));
          get(store.logReplica().trim(mark));
          m.logTrim = mark;
        } else if (op < 9) {
          store.compact(random.nextDouble() * 0.95);
        } else {
          store.close();
          store = ReplicaStore.open(options);
        }
        m.check(store);
      }
    } finally {
      store.close();
    }
  }

  /**
   * Copies the store as a crash would leave it, while its writer keeps going: segments in id order,
   * the newest last (a segment written meanwhile is copied as it is by then, one deleted meanwhile
   * as it was before), so the copy never holds a newer record without the older ones the store
   * still needed when it wrote it. Files that appear while it copies are copied in another round,
   * and with them, again, the newest segment of the round before: the writer sealed it before it
   * started the new one, so a record it was writing into it when it was first copied is whole now
   * (a crash leaves a torn record only at the end of the newest segment, never of a sealed one).
   */
  private static void copyDirectory(Path from, Path to) {
    try {
      Files.createDirectories(to);
      java.util.Set<String> copied = new java.util.HashSet<>();
      String newestLog = null;
      for (int round = 0; round < 100; round++) {
        List<Path> files;
        try (Stream<Path> listed = Files.list(from)) {
          files = new ArrayList<>(listed.filter(f -> !copied.contains(name(f))).toList());
        }
        if (files.isEmpty()) {
          return;
        }
        if (newestLog != null) {
          String base = newestLog.substring(0, newestLog.lastIndexOf('.') + 1);
          try (Stream<Path> listed = Files.list(from)) {
            listed.filter(f -> name(f).startsWith(base)).forEach(files::add);
          }
        }
        files.sort(java.util.Comparator.comparing(CompactionTest::name));
        for (Path f : files) {
          copied.add(name(f));
          if (name(f).endsWith(".log") && (newestLog == null || name(f).compareTo(newestLog) > 0)) {
            newestLog = name(f);
          }
          try {
            Files.copy(f, to.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
          } catch (java.nio.file.NoSuchFileException deletedMeanwhile) {
            // Deleted once nothing in it was needed: the crash came after that.
          }
        }
      }
      throw new IllegalStateException("the store kept adding files while it was copied");
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static String name(Path f) {
    return f.getFileName().toString();
  }
}
