package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.GlobalEntry;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.server.ChildJvm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writer processes that write their copies themselves are killed with SIGKILL again and again
 * mid-write, every other one first paused with SIGSTOP until the log was trimmed past its writes in
 * flight and then resumed (three node processes, R = 1: an entry's log copy and its two stream
 * copies go to different nodes, so a writer killed mid-append leaves some of them), while a reader
 * of the global log decides every address as it comes (filling with holes the slots a dead writer
 * left empty) and the log is trimmed as in production, every second, to its last 300 ms. Afterwards
 * every stream is read from a fresh client: no entry a stream holds is at a global address the
 * log's reader was given as a hole, or holds another value than the reader read there (the trim
 * keeps the holes it passes, so a dead writer's stream copy is aborted, not committed); and every
 * acknowledged append is in each of its streams at the address its writer was given.
 */
class DyingWritersProcessTest {
  private static final String HOLE = "(hole)";
  private static final int KILLS = 8;

  @TempDir Path tmp;

  @Test
  void writersKilledMidWriteLeaveNoEntryWhereTheLogsReaderWasGivenAHole() throws Exception {
    try (ProcessCluster c =
        ProcessCluster.startWithLogTrims(
            tmp,
            "dying",
            3,
            List.of("--log-retention-ms", "300"),
            nodes -> List.of("--nodes", ProcessCluster.join(nodes), "--replication", "1"))) {
      c.awaitLayout(l -> l.allServers().size() == 3);
      Endpoint seed = c.nodes().get(0);
      Map<Long, String> given = new ConcurrentHashMap<>();
      AtomicBoolean loading = new AtomicBoolean(true);
      java.util.concurrent.atomic.AtomicLong readUpTo =
          new java.util.concurrent.atomic.AtomicLong();
      List<Process> writers = new ArrayList<>();
      List<Path> acks = new ArrayList<>();
      try (ClusterStreamLog reader =
          ClusterStreamLog.connect(c.transport(), c.nodes(), StreamLogOptions.defaults())) {
        Thread logReader =
            new Thread(() -> readTheLog(reader, given, loading, readUpTo), "log-reader");
        logReader.start();
        try {
          for (int k = 0; k < KILLS + 2; k++) {
            Path file = tmp.resolve("acks-" + k + ".txt");
            acks.add(file);
            List<String> cmd = ChildJvm.command("256m", DyingWriter.class.getName());
            cmd.addAll(List.of(seed.toString(), "w" + k, "8", file.toString()));
            writers.add(
                new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(tmp.resolve("writer-" + k + ".log").toFile())
                    .start());
            if (k >= 1) {
              // Let the writer get going, then kill the one before it mid-write; every other one
              // is first paused (SIGSTOP) for longer than the log keeps its entries, so that its
              // writes in flight resume (SIGCONT) after the log was decided and trimmed past them.
              awaitAcks(file, 200);
              Process victim = writers.get(k - 1);
              if (k % 2 == 0) {
                signal("STOP", victim);
                long before = reader.tails(List.of()).join().globalTail();
                Awaitility.await("the log trimmed past the paused writer's addresses")
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> lowestTrimMark(reader, c.nodes()) > before);
                signal("CONT", victim);
                awaitAcks(acks.get(k - 1), 1); // it wrote something before its pause
              }
              victim.destroyForcibly(); // SIGKILL
              victim.waitFor(30, TimeUnit.SECONDS);
            }
          }
        } finally {
          for (Process p : writers) {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
          }
        }
        long tail = reader.tails(List.of()).join().globalTail();
        Awaitility.await("the log's reader caught up")
            .atMost(Duration.ofSeconds(60))
            .until(() -> readUpTo.get() > tail);
        loading.set(false);
        logReader.join(30_000);
        // The trim passes what the writers left (deciding first what they left undecided).
        long lastHole =
            given.entrySet().stream()
                .filter(e -> e.getValue().equals(HOLE))
                .mapToLong(Map.Entry::getKey)
                .max()
                .orElse(-1);
        // Every log replica is trimmed past the last hole given, or to its own tail + 1 (the trim
        // asks no replica past it) when that is lower.
        for (Endpoint e : c.nodes()) {
          Awaitility.await("the log of " + e + " trimmed past the last hole given")
              .atMost(Duration.ofSeconds(60))
              .until(
                  () -> {
                    io.vcorfu.protocol.proto.LogTailResponse t = reader.ops().logTail(e).join();
                    return t.getTrimMark() > Math.min(lastHole, t.getTail());
                  });
        }
      }

      Map<Long, List<StreamEntry>> held = new HashMap<>();
      try (ClusterStreamLog fresh =
          ClusterStreamLog.connect(c.transport(), c.nodes(), StreamLogOptions.defaults())) {
        for (int i = 0; i < DyingWriter.STREAMS; i++) {
          StreamId s = DyingWriter.stream(i);
          long streamTail = fresh.tails(List.of(s)).join().streamTails().get(s);
          for (long from = 0; from <= streamTail; from += 1000) {
            for (StreamEntry e :
                fresh.readStream(s, from, Math.min(streamTail, from + 999)).join()) {
              if (!e.isHole()) {
                held.computeIfAbsent(e.globalAddress(), g -> new ArrayList<>()).add(e);
              }
            }
          }
        }
      }
      long holes = given.values().stream().filter(HOLE::equals).count();
      long acked = 0;
      for (Path file : acks) {
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
          String[] f = line.split(" ");
          if (f.length < 3 || !f[0].equals("ack")) {
            continue; // a line the kill cut short
          }
          acked++;
          long global = Long.parseLong(f[2]);
          assertThat(held.get(global)).as("acknowledged %s at %d", f[1], global).isNotNull();
          for (StreamEntry e : held.get(global)) {
            assertThat(new String(e.payload(), StandardCharsets.UTF_8)).isEqualTo(f[1]);
          }
          assertThat(held.get(global)).as("the streams of %s", f[1]).hasSize(f.length - 3);
        }
      }
      for (Map.Entry<Long, List<StreamEntry>> e : held.entrySet()) {
        String read = given.get(e.getKey());
        for (StreamEntry s : e.getValue()) {
          String value = new String(s.payload(), StandardCharsets.UTF_8);
          assertThat(read)
              .as(
                  "global address %d, read from the log, then from stream %s",
                  e.getKey(), s.stream())
              .isIn(null, value);
        }
      }
      System.out.printf(
          "DyingWritersProcessTest: %d writers killed mid-write (%d of them paused first): %d"
              + " appends acknowledged, %d global addresses read from the log (%d given as holes),"
              + " %d entries in the streams; log trim marks %s%n",
          KILLS + 1, KILLS / 2, acked, given.size(), holes, held.size(), lastTrimMark(c));
      assertThat(holes).as("slots dead writers left, decided by the log's reader").isPositive();
    }
  }

  private static List<Long> lastTrimMark(ProcessCluster c) {
    try (ClusterStreamLog log =
        ClusterStreamLog.connect(c.transport(), c.nodes(), StreamLogOptions.defaults())) {
      List<Long> marks = new ArrayList<>();
      for (Endpoint e : c.nodes()) {
        marks.add(log.ops().logTail(e).join().getTrimMark());
      }
      return marks;
    }
  }

  /** Reads the global log from 0 as it grows, recording what each address was given as. */
  private static void readTheLog(
      ClusterStreamLog reader,
      Map<Long, String> given,
      AtomicBoolean loading,
      java.util.concurrent.atomic.AtomicLong upTo) {
    long next = 0;
    while (loading.get()) {
      try {
        long from = next;
        long[] seen = {-1};
        Awaitility.await("the log grows past " + from + " or the load ends")
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(5))
            .until(
                () -> {
                  seen[0] = reader.tails(List.of()).join().globalTail();
                  return seen[0] >= from || !loading.get();
                });
        long tail = seen[0];
        if (tail < next) {
          continue;
        }
        long to = Math.min(tail, next + 63);
        for (GlobalEntry g : reader.readGlobalRange(next, to).join()) {
          given.put(
              g.globalAddress(),
              g.isHole() ? HOLE : new String(g.payload(), StandardCharsets.UTF_8));
        }
        next = to + 1;
      } catch (RuntimeException e) {
        if (EpochRpc.unwrap(e) instanceof TrimmedException t) {
          next = Math.max(next + 1, t.trimMark()); // trimmed before it was read: nothing given
        }
      }
      upTo.set(next);
    }
  }

  private static void signal(String name, Process p) throws Exception {
    int rc = new ProcessBuilder("kill", "-" + name, Long.toString(p.pid())).start().waitFor();
    assertThat(rc).as("kill -%s %d", name, p.pid()).isZero();
  }

  private static long lowestTrimMark(ClusterStreamLog log, List<Endpoint> nodes) {
    long lowest = Long.MAX_VALUE;
    for (Endpoint e : nodes) {
      lowest = Math.min(lowest, log.ops().logTail(e).join().getTrimMark());
    }
    return lowest;
  }

  private static void awaitAcks(Path file, int lines) {
    Awaitility.await(
            "a writer got going (its output: "
                + file.resolveSibling(
                    file.getFileName()
                        .toString()
                        .replace("acks-", "writer-")
                        .replace(".txt", ".log"))
                + ")")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> Files.exists(file) && Files.readAllLines(file).size() >= lines);
  }
}
