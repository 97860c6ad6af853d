package io.vcorfu.server.cluster;

import static io.vcorfu.server.cluster.SoakSamples.PLATEAU;
import static io.vcorfu.server.cluster.SoakSamples.SEGMENTS_FLOOR;
import static io.vcorfu.server.cluster.SoakSamples.SEGMENT_BYTES;
import static io.vcorfu.server.cluster.SoakSamples.ZEROED_AHEAD;
import static io.vcorfu.server.cluster.SoakSamples.largest;
import static io.vcorfu.server.cluster.SoakSamples.lastOf;
import static io.vcorfu.server.cluster.SoakSamples.mb;
import static io.vcorfu.server.cluster.SoakSamples.outside;
import static io.vcorfu.server.cluster.SoakSamples.outsideBound;
import static io.vcorfu.server.cluster.SoakSamples.sampleAll;
import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.SnapshotFloor;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.collections.CSMRMap;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.proto.PingResponse;
import io.vcorfu.protocol.proto.StorageSpace;
import io.vcorfu.runtime.Retention;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.server.cluster.SoakSamples.Sample;
import io.vcorfu.server.cluster.SoakSamples.Writes;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bounded storage under a steady overwrite load, on real processes: three {@code vcorfu server}
 * nodes, R = 3, with the server's default log retention (the log keeps its last 3 s) and the
 * runtime's default retention (automatic checkpoints, streams trimmed below them) with a smaller
 * history budget ({@link #SOAK_RUNTIME}). A runtime in this JVM overwrites 200 keys in a CSMR map
 * for a bounded time; a third of the way in, one replica is killed with {@code kill -9}, stays down
 * until the others have trimmed the log past what it holds, and is restarted on its data directory;
 * it rejoins and is rebuilt.
 *
 * <p>Checks: (a) each node's data directory plateaus. With the defaults every object keeps a
 * bounded history (its last updates and a checkpoint) and the log its last seconds, so what a node
 * holds live stops growing however many updates come: the largest sample of the first third (at
 * least three segments, what a node holds once its first segments sealed) bounds what every later
 * one holds live to within twice it, scaled by how much faster the load wrote in the seconds before
 * than at the end of the first third (what a node holds follows the write rate, not the number of
 * updates), once the fault is over. And compaction keeps the files within twice what is live (it
 * leaves segments whose records are dying fast to die up to there) plus an active segment and one a
 * trim has just emptied. During the fault the disk grows: the log is not trimmed while a node
 * rebuilds, and no stream is trimmed while the sequencer's snapshot registrations are incomplete (a
 * lease, 10 s, after it takes up each new layout). That peak is logged; once the registrations are
 * complete again, every node's disk must come back within the bound in a bounded time and stay
 * there to the end. Each node ends below half the bytes of values written (it holds every entry, R
 * = 3), within a minute of the load's end (on a loaded host the last checkpoints, trims and
 * compactions run behind the writes). (b) The last acknowledged value of every key is what a fresh
 * runtime reads at the end. (c) The killed node, once rebuilt, holds storage within the same bound
 * as its own first third.
 *
 * <p>The nodes use 4 MiB segments ({@code --segment-size-mb 4}) and values are 4 KiB rather than 1
 * KiB: a loaded two-core machine runs about 300 to 400 overwrites a second, so with 1 KiB values
 * and the default 16 MiB segments the first third of a run of under a minute would not fill one
 * segment and no plateau could show.
 */
class StorageSoakTest {
  private static final String MAP = "soak";
  private static final int KEYS = 200;
  private static final int VALUE_BYTES = 4096;
  private static final int BUCKETS = 16;
  private static final int WRITERS = 8;

  /**
   * How long the load runs at least; it runs on until the disk, back within the bound, has been
   * watched for {@link #WATCHED_AT_LEAST}, so a slow machine lengthens the run rather than cutting
   * the watch short. The whole test takes about this plus start-up and checks.
   */
  private static final Duration LOAD = Duration.ofSeconds(48);

  /** The writers stop by this long after the load started, whatever happened. */
  private static final Duration LOAD_CAP = Duration.ofSeconds(180);

  /** At most this many writes in all, whatever the machine's speed. */
  private static final long MAX_WRITES = 1_000_000;

  private static final Duration SAMPLE_EVERY = Duration.ofSeconds(2);

  /** The disk is back within the bound at most this long after full strength returns. */
  private static final Duration RETURN_WITHIN = Duration.ofSeconds(45);

  /** The plateau is then watched for at least this long before the load ends. */
  private static final Duration WATCHED_AT_LEAST = Duration.ofSeconds(10);

  /**
   * The runtime's default retention with a history budget of 2 MiB instead of 64: under the default
   * the objects' first checkpoints come after 64 MiB of updates, more than this load writes in its
   * first third, so no plateau could show within it; the rule is the same at any budget.
   */
  private static final RuntimeOptions SOAK_RUNTIME =
      RuntimeOptions.defaults().withRetention(Retention.DEFAULT.withHistoryBudgetBytes(2 << 20));

  @TempDir Path tmp;

  /** What the run saw, in seconds since the load started. */
  static final class Timeline {
    volatile double killedAt = Double.NaN;
    volatile double backAt = Double.NaN;
    volatile double trimsResumedAt = Double.NaN;
    volatile double returnedAt = Double.NaN;

    /** When the sequencer answered that its snapshot registrations were incomplete. */
    final List<Double> registrationsIncomplete = new CopyOnWriteArrayList<>();
  }

  @Test
  void diskPlateausUnderOverwritesAndAKilledReplicaRejoinsWithBoundedStorage() throws Exception {
    long testStarted = System.nanoTime();
    try (ProcessCluster c =
            ProcessCluster.startWithLogTrims(
                tmp, "soak", 3, List.of("--segment-size-mb", String.valueOf(SEGMENT_BYTES >> 20)));
        RpcClient rpc =
            c.transport()
                .newClient(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(2)));
        ClusterStreamLog probe = ClusterStreamLog.connect(c.transport(), c.nodes(), logOptions())) {
      NodeCalls calls = new NodeCalls(rpc);
      Layout first = c.awaitLayout(l -> l.allServers().size() == 3 && l.replication() == 3);
      // The victim is neither the sequencer nor the manager: the fault is one replica's, and the
      // log's trims go on while it is down (a new manager waits out the old one's session).
      Endpoint victim =
          Awaitility.await("a manager elected")
              .atMost(Duration.ofSeconds(30))
              .ignoreExceptions()
              .until(
                  () ->
                      c.nodes().stream()
                          .filter(e -> !e.equals(first.sequencer()))
                          .filter(e -> !ping(calls, e).getManaging())
                          .findFirst(),
                  v ->
                      v.isPresent()
                          && c.nodes().stream().filter(e -> ping(calls, e).getManaging()).count()
                              == 1)
              .orElseThrow();
      System.out.printf(
          "soak: cluster up after %.1f s, nodes %s, sequencer %s, victim %s, runtime %s%n",
          (System.nanoTime() - testStarted) / 1e9,
          c.nodes(),
          first.sequencer(),
          victim,
          SOAK_RUNTIME.retention());

      List<Sample> samples = new CopyOnWriteArrayList<>();
      Timeline timeline = new Timeline();
      Writes writes = new Writes();
      long loadStarted = System.nanoTime();
      ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
      sampler.scheduleWithFixedDelay(
          () -> {
            // A task that throws is never run again: say what went wrong and sample on.
            try {
              writes.progress.add(new double[] {seconds(loadStarted), writes.count.get()});
              sampleAll(c, calls, samples, seconds(loadStarted));
              registrations(probe, timeline, loadStarted);
            } catch (RuntimeException e) {
              System.out.printf("soak: sample at %.1f s failed: %s%n", seconds(loadStarted), e);
            }
          },
          0,
          SAMPLE_EVERY.toMillis(),
          TimeUnit.MILLISECONDS);
      try {
        soak(c, calls, probe, victim, first, samples, timeline, writes, loadStarted);
      } finally {
        sampler.shutdownNow();
        sampler.awaitTermination(10, TimeUnit.SECONDS);
      }
      System.out.printf("soak: test took %.1f s%n", (System.nanoTime() - testStarted) / 1e9);
    }
  }

  private void soak(
      ProcessCluster c,
      NodeCalls calls,
      ClusterStreamLog probe,
      Endpoint victim,
      Layout first,
      List<Sample> samples,
      Timeline timeline,
      Writes writes,
      long loadStarted)
      throws Exception {
    double third = LOAD.toSeconds() / 3.0;
    Map<Endpoint, Long> firstThird = new HashMap<>();
    try (VCorfuRuntime rt = VCorfuRuntime.connect(c.endpointList(), SOAK_RUNTIME, logOptions())) {
      CSMRMap<String, byte[]> map = CSMRMap.open(rt, MAP, BUCKETS);
      AtomicBoolean stop = new AtomicBoolean();
      long deadline = loadStarted + LOAD_CAP.toNanos();
      List<Thread> writers = new ArrayList<>();
      for (int t = 0; t < WRITERS; t++) {
        int thread = t;
        Thread w = new Thread(() -> write(map, thread, writes, stop, deadline), "soak-" + t);
        w.start();
        writers.add(w);
      }
      try {
        // (1) A third of the way in, kill -9 a replica (not the sequencer).
        Awaitility.await("a third of the load")
            .atMost(LOAD)
            .until(() -> seconds(loadStarted) >= third);
        for (Endpoint e : c.nodes()) {
          firstThird.put(e, largest(samples, e, 0, third));
        }
        writes.firstRate = writes.rate(third);
        long tailAtKill = space(calls, first.sequencer()).getLogTail();
        c.processOf(victim).kill9();
        timeline.killedAt = seconds(loadStarted);
        c.awaitLayout(l -> l.removed().contains(victim));
        // (2) It stays down until the others trimmed the log past what it held: it missed trims.
        Awaitility.await("the survivors trim the log past " + tailAtKill)
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(200))
            .ignoreExceptions()
            .until(
                () ->
                    c.nodes().stream()
                        .filter(e -> !e.equals(victim))
                        .allMatch(e -> space(calls, e).getLogTrimMark() > tailAtKill));
        System.out.printf(
            "soak: %s killed at %.1f s (log tail %d), survivors trimmed past it at %.1f s%n",
            victim, timeline.killedAt, tailAtKill, seconds(loadStarted));
        // (3) Restarted on its data, it rejoins and is rebuilt: the cluster at full strength.
        c.restart(victim, false);
        c.awaitLayout(l -> ProcessCluster.fullStrengthWith(l, victim));
        timeline.backAt = seconds(loadStarted);
        System.out.printf("soak: %s back at full strength at %.1f s%n", victim, timeline.backAt);
        // (4) Streams are trimmed again once the sequencer's snapshot registrations are complete
        // (a lease after it last took up a layout); then every node's disk comes back within the
        // bound, early enough to watch it stay there.
        Awaitility.await("the sequencer's snapshot registrations complete again")
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(200))
            .ignoreExceptions()
            .until(() -> probe.registerSnapshots(-1, 1_000).get(2, TimeUnit.SECONDS).complete());
        timeline.trimsResumedAt = seconds(loadStarted);
        try {
          Awaitility.await("every node's disk back within " + PLATEAU + "x its first third")
              .atMost(RETURN_WITHIN)
              .pollInterval(Duration.ofMillis(500))
              .until(
                  () ->
                      outsideBound(c, samples, firstThird, writes, timeline.trimsResumedAt)
                          .isEmpty());
        } catch (ConditionTimeoutException e) {
          throw new AssertionError(
              String.format(
                  "every node's disk back within %.1fx its first third by %.1f s after the"
                      + " registrations completed (%.1f s), not: %s",
                  PLATEAU,
                  RETURN_WITHIN.toSeconds() * 1.0,
                  timeline.trimsResumedAt,
                  outsideBound(c, samples, firstThird, writes, timeline.trimsResumedAt)),
              e);
        }
        timeline.returnedAt = seconds(loadStarted);
        // (5) The load goes on to its nominal length, and at least long enough to watch the disk
        // stay within the bound, while the writers are still running.
        double end = Math.max(LOAD.toSeconds(), timeline.returnedAt + WATCHED_AT_LEAST.toSeconds());
        Awaitility.await("the load watched for " + WATCHED_AT_LEAST + " after the disk came back")
            .atMost(LOAD_CAP)
            .pollInterval(Duration.ofMillis(200))
            .until(
                () -> seconds(loadStarted) >= end || writers.stream().noneMatch(Thread::isAlive));
        assertThat(writers)
            .as("writers still running when the watch ended (cap %s)", LOAD_CAP)
            .allMatch(Thread::isAlive);
      } finally {
        stop.set(true);
        for (Thread w : writers) {
          w.join(60_000);
        }
        double loadSeconds = seconds(loadStarted);
        System.out.printf(
            "soak: %d writes acknowledged in %.1f s (%.0f/s, %.1f MB of values), %d failed%n",
            writes.count.get(),
            loadSeconds,
            writes.count.get() / loadSeconds,
            mb(writes.count.get() * VALUE_BYTES),
            writes.failures.get());
        samples.forEach(s -> System.out.println("soak: " + s));
        System.out.printf(
            "soak: killed at %.1f s, full strength at %.1f s, registrations complete again at"
                + " %.1f s, disk back within bound at %.1f s; sequencer's snapshot registrations"
                + " incomplete at %s s%n",
            timeline.killedAt,
            timeline.backAt,
            timeline.trimsResumedAt,
            timeline.returnedAt,
            timeline.registrationsIncomplete);
      }
      assertThat(writers).noneMatch(Thread::isAlive);
    }
    // (a), the end: once the load stops, every node comes down below half the bytes of values
    // written, or the least a node holds once its first segments sealed if a slow host wrote too
    // little to tell the two apart: at once on an idle host, within the minute the last
    // checkpoints, trims and compactions take on a loaded one (they run behind the writes there).
    long writtenBytes = writes.count.get() * VALUE_BYTES;
    long endBound = Math.max(writtenBytes / 2, SEGMENTS_FLOOR) + ZEROED_AHEAD;
    long stopped = System.nanoTime();
    Awaitility.await("every node's disk below " + mb(endBound) + " MB after the load")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> {
              sampleAll(c, calls, samples, seconds(loadStarted));
              for (Endpoint e : c.nodes()) {
                Sample end = lastOf(samples, e);
                assertThat(end.diskBytes())
                    .as(
                        "%s at the end, against %.1f MB of values written: %s",
                        e, mb(writtenBytes), end)
                    .isLessThan(endBound);
              }
            });
    System.out.printf(
        "soak: every node below the end's bound %.1f s after the load%n", seconds(stopped));
    assertEveryKeyReadsItsLastAcknowledgedWrite(c, writes);

    // (a) and (c): from when the disk came back to the end, every node (the killed one included)
    // stays within the bound.
    for (Endpoint e : c.nodes()) {
      List<Sample> mine = samples.stream().filter(s -> s.node().equals(e)).toList();
      List<Sample> after = mine.stream().filter(s -> s.atSeconds() >= timeline.returnedAt).toList();
      Sample end = mine.get(mine.size() - 1);
      System.out.printf(
          "soak: %s first third at most %.1f MB, peak %.1f MB (at %.1f s), after %.1f s %s MB,"
              + " end %.1f MB, %.1f MB of values written%n",
          e,
          mb(firstThird.get(e)),
          mb(largest(samples, e, 0, Double.MAX_VALUE)),
          mine.stream()
              .max((x, y) -> Long.compare(x.diskBytes(), y.diskBytes()))
              .orElseThrow()
              .atSeconds(),
          timeline.returnedAt,
          after.stream().map(s -> String.format("%.1f", mb(s.diskBytes()))).toList(),
          mb(end.diskBytes()),
          mb(writtenBytes));
      assertThat(after).as("samples of %s once its disk came back", e).hasSizeGreaterThan(3);
      for (Sample s : after) {
        assertThat(outside(s, firstThird.get(e), writes))
            .as("%s once its disk came back: %s", e, s)
            .isNull();
      }
    }
  }

  private static void assertEveryKeyReadsItsLastAcknowledgedWrite(ProcessCluster c, Writes writes) {
    assertThat(writes.acked).as("every key was written").hasSize(KEYS);
    try (VCorfuRuntime fresh =
        VCorfuRuntime.connect(
            c.endpointList(),
            RuntimeOptions.defaults().withRetention(Retention.OFF),
            logOptions())) {
      CSMRMap<String, byte[]> map = CSMRMap.open(fresh, MAP);
      for (int k = 0; k < KEYS; k++) {
        String key = key(k);
        long acked = writes.acked.get(key);
        byte[] read = map.get(key);
        assertThat(read).as("%s (last acknowledged write %d)", key, acked).isNotNull();
        long seq = seqOf(read);
        if (seq != acked) {
          // A write whose acknowledgement was lost may have landed after the last acknowledged one.
          assertThat(writes.failed.getOrDefault(key, List.of()))
              .as("%s reads write %d, not its last acknowledged %d", key, seq, acked)
              .contains(seq);
          assertThat(seq)
              .as("%s reads a write older than one acknowledged", key)
              .isGreaterThan(acked);
        }
        assertThat(Arrays.equals(read, value(key, seq)))
            .as("%s holds the bytes of write %d", key, seq)
            .isTrue();
      }
    }
  }

  private static StreamLogOptions logOptions() {
    return StreamLogOptions.defaults()
        .withRpc(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(2)));
  }

  private static String key(int k) {
    return String.format("key-%03d", k);
  }

  /** The payload of the {@code seq}-th write of {@code key}: its name, then seeded bytes. */
  static byte[] value(String key, long seq) {
    byte[] v = new byte[VALUE_BYTES];
    new Random(key.hashCode() * 31L + seq).nextBytes(v);
    byte[] head = (key + "#" + seq + "#").getBytes(StandardCharsets.UTF_8);
    System.arraycopy(head, 0, v, 0, head.length);
    return v;
  }

  /** The write number a value of {@link #value} names. */
  static long seqOf(byte[] v) {
    String s = new String(v, 0, 32, StandardCharsets.ISO_8859_1);
    return Long.parseLong(s.split("#")[1]);
  }

  private static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }

  /** Overwrites keys {@code thread}, {@code thread + WRITERS}, ... in turn until the deadline. */
  private static void write(
      CSMRMap<String, byte[]> map, int thread, Writes writes, AtomicBoolean stop, long deadline) {
    Map<String, Long> next = new HashMap<>();
    for (int i = 0; !stop.get() && System.nanoTime() < deadline; i++) {
      if (writes.count.get() >= MAX_WRITES) {
        return;
      }
      String key = key(thread + WRITERS * (i % (KEYS / WRITERS)));
      long seq = next.merge(key, 1L, Long::sum);
      try {
        map.fastPut(key, value(key, seq));
        writes.acked.put(key, seq);
        writes.count.incrementAndGet();
      } catch (RuntimeException e) {
        writes.failures.incrementAndGet();
        writes.failed.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(seq);
      }
    }
  }

  private static void registrations(ClusterStreamLog probe, Timeline timeline, long started) {
    try {
      SnapshotFloor floor = probe.registerSnapshots(-1, 1_000).get(2, TimeUnit.SECONDS);
      if (!floor.complete()) {
        timeline.registrationsIncomplete.add(Math.round(seconds(started) * 10) / 10.0);
      }
    } catch (Exception notNow) {
      // during a layout change: the next sample asks again
    }
  }

  /** What {@code e} reports of itself and its storage (fails if it does not answer within 2 s). */
  private static PingResponse ping(NodeCalls calls, Endpoint e) {
    return calls.pingWithSpace(e).orTimeout(2, TimeUnit.SECONDS).join();
  }

  private static StorageSpace space(NodeCalls calls, Endpoint e) {
    return ping(calls, e).getSpace();
  }
}
