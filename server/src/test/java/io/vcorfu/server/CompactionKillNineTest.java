package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.logunit.StorageOptions;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.protocol.proto.StorageSpace;
import io.vcorfu.server.cluster.NodeCalls;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compaction survives {@code kill -9} at any moment, on a real {@code vcorfu server} process with
 * its defaults (16 MiB segments, compaction below half live, the log kept for 3 s) but compaction
 * copying at 4 MiB/s ({@code --compaction-rate-mb 4}), so that the four kills land while compaction
 * runs however slowly a loaded machine restarts the node between them (at 16 MiB/s, with the
 * machine busy, compaction could finish before the last kill). The node is filled with two
 * interleaved streams, a quarter of the bytes in the kept stream B and the rest in stream A; A is
 * trimmed away and the log trims itself, so every sealed segment is about a quarter live and
 * compaction copies B's records. The process is killed while compaction runs, at a different moment
 * each time (as it starts a segment, after its first batch, right after a segment was deleted,
 * several batches in), and restarted on the same directory.
 *
 * <p>Checks, once compaction is done: every entry of B reads back with the bytes it was written
 * with, at its global address; nothing of A, nor of the log below its trim mark, is readable (reads
 * answer trimmed); the segment files shrank to about B's bytes; and the segment files on disk are
 * exactly those the node reports (their number and bytes), every index file beside its segment.
 */
class CompactionKillNineTest {
  private static final StreamId A = StreamId.of("compaction-kill-a");
  private static final StreamId B = StreamId.of("compaction-kill-b");

  /**
   * Entries of 12 KiB: large enough to fill segments quickly, small enough that a page of 1,024 of
   * them (what a trim reads to settle the slots below its mark) fits in one 16 MiB response.
   */
  private static final int ENTRY_BYTES = 12 * 1024;

  /** Seven segments of entries: six sealed ones for compaction to copy from. */
  private static final int ENTRIES = (int) (7 * StorageOptions.DEFAULT_SEGMENT_SIZE / ENTRY_BYTES);

  private static final int IN_FLIGHT = 16;
  private static final long SEED = 0x5eed_c0ffeeL;
  private static final Pattern SEGMENT = Pattern.compile("segment-(\\d+)\\.log");

  private static final StreamLogOptions OPTIONS =
      StreamLogOptions.defaults()
          .withFailoverTimeout(Duration.ofSeconds(5))
          .withRpc(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(5)));

  /** One moment to kill at, as a condition on what this run's compaction reports. */
  record KillAt(String name, Predicate<StorageSpace> when) {}

  private static final List<KillAt> KILLS =
      List.of(
          new KillAt("as soon as a segment is seen compacting", s -> s.getCompacting() >= 0),
          new KillAt(
              "after the run's first batch was copied",
              s -> s.getCompacting() >= 0 && s.getCompactionCopiedBytes() >= 1 << 20),
          new KillAt("right after a segment was deleted", s -> s.getSegmentsCompacted() >= 1),
          new KillAt(
              "three batches in",
              s -> s.getCompacting() >= 0 && s.getCompactionCopiedBytes() >= 3 << 20));

  @TempDir Path tmp;

  /** The payload of the {@code i}-th entry appended: derived from the seed and its number. */
  static byte[] payload(int i) {
    byte[] p = new byte[ENTRY_BYTES];
    new Random(SEED + i).nextBytes(p);
    p[0] = (byte) i;
    p[1] = (byte) (i >>> 8);
    return p;
  }

  @Test
  void compactionKilledAtSeveralMomentsLosesNothingRetainedAndReclaimsTheSpace() throws Exception {
    long started = System.nanoTime();
    int port = ServerProcess.freePort();
    Path data = tmp.resolve("node");
    Path segments = data.resolve("replicas");
    List<String> args = List.of("--data-dir", data.toString(), "--compaction-rate-mb", "4");
    Map<Long, Integer> kept = new TreeMap<>(); // B's stream address -> entry number
    Map<Long, Long> keptGlobal = new TreeMap<>(); // B's stream address -> global address
    List<Long> trimmedGlobals = new ArrayList<>();
    try (NettyTransport transport = new NettyTransport();
        RpcClient rpc =
            transport.newClient(
                ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(2)))) {
      NodeCalls calls = new NodeCalls(rpc);
      ServerProcess server = ServerProcess.startWithLogTrims(port, args).awaitReady();
      Endpoint node = server.endpoint();
      try {
        // Fill: every fourth entry in B, the others in A.
        long lastGlobal;
        try (ClusterStreamLog log = ClusterStreamLog.connect(transport, node, OPTIONS)) {
          List<CompletableFuture<AppendResult>> window = new ArrayList<>();
          List<AppendResult> results = new ArrayList<>();
          for (int i = 0; i < ENTRIES; i++) {
            window.add(log.append(List.of(i % 4 == 3 ? B : A), payload(i)));
            if (window.size() == IN_FLIGHT || i == ENTRIES - 1) {
              window.forEach(f -> results.add(f.join()));
              window.clear();
            }
          }
          for (int i = 0; i < ENTRIES; i++) {
            AppendResult r = results.get(i);
            if (i % 4 == 3) {
              kept.put(r.streamAddresses().get(B), i);
              keptGlobal.put(r.streamAddresses().get(B), r.globalAddress());
            } else {
              trimmedGlobals.add(r.globalAddress());
            }
          }
          lastGlobal = results.stream().mapToLong(AppendResult::globalAddress).max().orElseThrow();
          log.trimStream(A, ENTRIES - kept.size()).join();
        }
        StorageSpace filled = space(calls, node);
        System.out.printf(
            "compaction-kill: %d entries of %d KiB written in %.1f s: %s%n",
            ENTRIES, ENTRY_BYTES / 1024, seconds(started), describe(filled));
        // The node trims its log itself once the entries are 3 s old (within about 8 s); then
        // compaction can run. Kill -9 while it runs, at a different moment each time, and restart
        // on the same directory.
        long keptBytes = (long) kept.size() * ENTRY_BYTES;
        Predicate<StorageSpace> compacted =
            s -> s.getCompacting() < 0 && s.getFileBytes() <= keptBytes + keptBytes / 2;
        int killedWhileCompacting = 0;
        for (KillAt k : KILLS) {
          StorageSpace seen = awaitMoment(calls, node, k.when(), compacted, Duration.ofSeconds(30));
          if (seen == null) {
            System.out.printf(
                "compaction-kill: compaction was over before '%s' (%s)%n",
                k.name(), describe(space(calls, node)));
            break;
          }
          server.kill9();
          boolean compacting = seen.getCompacting() >= 0;
          killedWhileCompacting += compacting ? 1 : 0;
          System.out.printf(
              "compaction-kill: killed %s at %.1f s, compaction in progress %b: %s; on disk %s%n",
              k.name(), seconds(started), compacting, describe(seen), segmentFiles(segments));
          server = ServerProcess.startWithLogTrims(port, args).awaitReady();
        }
        assertThat(killedWhileCompacting)
            .as("kills that landed while compaction was copying")
            .isGreaterThanOrEqualTo(3);

        // The node's log trims cover every entry written (a pass may have stopped short, at the
        // entries old enough then), and compaction finishes: the space comes back, down to about
        // B's bytes.
        StorageSpace done =
            Awaitility.await("the log trimmed past every entry written, and compaction done")
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200))
                .until(
                    () -> space(calls, node),
                    s -> s.getLogTrimMark() > lastGlobal && compacted.test(s));
        System.out.printf(
            "compaction-kill: done at %.1f s: %s (B holds %.1f MB, %.1f MB of segment files"
                + " before)%n",
            seconds(started), describe(done), keptBytes / 1e6, filled.getFileBytes() / 1e6);
        assertThat(done.getFileBytes())
            .as("segment files after compaction, against %d before", filled.getFileBytes())
            .isLessThan(filled.getFileBytes() / 2);

        // No orphan: the segment files on disk are those the node reports.
        Map<Integer, Long> files = segmentFiles(segments);
        StorageSpace now = space(calls, node);
        assertThat(files).as("segment files on disk").hasSize(now.getSegments());
        assertThat(files.values().stream().mapToLong(Long::longValue).sum())
            .as("bytes of the segment files on disk, against the node's report %s", describe(now))
            .isEqualTo(now.getFileBytes());
        try (Stream<Path> all = Files.list(segments)) {
          for (Path p : all.toList()) {
            String name = p.getFileName().toString();
            if (!name.endsWith(".log")) {
              Matcher m = Pattern.compile("segment-(\\d+)\\..*").matcher(name);
              assertThat(m.matches()).as("a file of the store: %s", name).isTrue();
              assertThat(files)
                  .as("%s lies beside its segment", name)
                  .containsKey(Integer.parseInt(m.group(1)));
            }
          }
        }

        // Every retained entry reads back as written; nothing trimmed is readable. A fresh client:
        // nothing comes from a write cache.
        try (ClusterStreamLog log = ClusterStreamLog.connect(transport, node, OPTIONS)) {
          long from = kept.keySet().iterator().next();
          assertThat(from).isZero();
          long tail = from + kept.size() - 1;
          for (long start = from; start <= tail; start += 64) {
            List<StreamEntry> read = log.readStream(B, start, Math.min(tail, start + 63)).join();
            assertThat(read).hasSize((int) (Math.min(tail, start + 63) - start + 1));
            for (StreamEntry e : read) {
              assertThat(e.isHole()).as("B/%d", e.streamAddress()).isFalse();
              assertThat(e.globalAddress())
                  .as("B/%d", e.streamAddress())
                  .isEqualTo(keptGlobal.get(e.streamAddress()));
              assertThat(Arrays.equals(e.payload(), payload(kept.get(e.streamAddress()))))
                  .as("B/%d holds the bytes it was written with", e.streamAddress())
                  .isTrue();
            }
          }
          long lastOfA = ENTRIES - kept.size() - 1;
          for (long a : List.of(0L, lastOfA)) {
            assertThatThrownBy(() -> log.readStream(A, a, a).join())
                .as("A/%d, below A's trim mark", a)
                .isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(TrimmedException.class);
          }
          for (long g :
              List.of(trimmedGlobals.get(0), trimmedGlobals.get(trimmedGlobals.size() / 2))) {
            assertThatThrownBy(() -> log.readGlobal(g).join())
                .as("global address %d, below the log's trim mark", g)
                .isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(TrimmedException.class);
          }
          assertThatThrownBy(() -> log.readGlobal(keptGlobal.get(0L)).join())
              .as("B's first entry through the log, below its trim mark")
              .isInstanceOf(CompletionException.class)
              .hasCauseInstanceOf(TrimmedException.class);
        }
        System.out.printf("compaction-kill: test took %.1f s%n", seconds(started));
      } finally {
        server.close();
      }
    }
  }

  /**
   * Polls {@code node} (every few milliseconds) until what it reports satisfies {@code when} and
   * returns that report; returns null once it reports {@code done} first (nothing left to compact).
   * Fails after {@code within}.
   */
  private static StorageSpace awaitMoment(
      NodeCalls calls,
      Endpoint node,
      Predicate<StorageSpace> when,
      Predicate<StorageSpace> done,
      Duration within) {
    StorageSpace s =
        Awaitility.await("the moment or the end of compaction")
            .atMost(within)
            .pollInterval(Duration.ofMillis(5))
            .ignoreExceptionsInstanceOf(CompletionException.class) // just restarted, recovering
            .until(() -> space(calls, node), x -> when.test(x) || done.test(x));
    return when.test(s) ? s : null;
  }

  private static StorageSpace space(NodeCalls calls, Endpoint node) {
    return calls.pingWithSpace(node).orTimeout(2, TimeUnit.SECONDS).join().getSpace();
  }

  /** The segment files in {@code dir}, by number, with their sizes. */
  private static Map<Integer, Long> segmentFiles(Path dir) throws IOException {
    Map<Integer, Long> out = new TreeMap<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path p : files.toList()) {
        Matcher m = SEGMENT.matcher(p.getFileName().toString());
        if (m.matches()) {
          out.put(Integer.parseInt(m.group(1)), Files.size(p));
        }
      }
    }
    return out;
  }

  private static String describe(StorageSpace s) {
    return String.format(
        "files %.1f MB, live %.1f MB, %d segments, %d compacted (%.1f MB copied, %.1f MB"
            + " reclaimed), compacting %d, log trim %d",
        s.getFileBytes() / 1e6,
        s.getLiveBytes() / 1e6,
        s.getSegments(),
        s.getSegmentsCompacted(),
        s.getCompactionCopiedBytes() / 1e6,
        s.getCompactionReclaimedBytes() / 1e6,
        s.getCompacting(),
        s.getLogTrimMark());
  }

  private static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }
}
