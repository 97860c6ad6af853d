package io.vcorfu.server.cluster;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.PingResponse;
import io.vcorfu.protocol.proto.StorageSpace;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * The samples {@link StorageSoakTest} takes of each node's storage (its data on disk and what it
 * reports) and the bound it holds them to, with what that bound is computed from: the writers'
 * record and its write rates. The rules: what a node holds live scales with the write rate from its
 * first third's largest sample; its files with what it holds live, as compaction keeps them.
 */
final class SoakSamples {
  private SoakSamples() {}

  /**
   * What a node holds live, once the fault is over, is at most this many times its first third's
   * largest disk sample.
   */
  static final double PLATEAU = 2.0;

  /**
   * A node's segment files take at most this many times what they hold live, as background
   * compaction keeps them: it leaves dying segments (their live bytes falling fast) to die while
   * the files take at most twice what is live, and compacts the emptiest of them past that.
   */
  static final double DYING_ALLOWANCE = 2.0;

  /** One sample of one node: its data on disk and, when it answered, what it reported. */
  record Sample(double atSeconds, Endpoint node, long diskBytes, long epoch, StorageSpace space) {
    @Override
    public String toString() {
      String reported =
          space == null
              ? "no answer"
              : String.format(
                  "epoch %d, files %.1f MB, live %.1f MB, %d segments, log trim %d tail %d, %d/%d"
                      + " streams trimmed, %d compacted (%.1f MB copied, %.1f MB reclaimed),"
                      + " compacting %d, copying %b",
                  epoch,
                  mb(space.getFileBytes()),
                  mb(space.getLiveBytes()),
                  space.getSegments(),
                  space.getLogTrimMark(),
                  space.getLogTail(),
                  space.getTrimmedStreams(),
                  space.getStreams(),
                  space.getSegmentsCompacted(),
                  mb(space.getCompactionCopiedBytes()),
                  mb(space.getCompactionReclaimedBytes()),
                  space.getCompacting(),
                  space.getCopying());
      return String.format(
          "t=%5.1fs %s disk %.1f MB [%s]", atSeconds, node, mb(diskBytes), reported);
    }
  }

  /** The writers' record: per key, the last acknowledged write and any unacknowledged attempts. */
  static final class Writes {
    final Map<String, Long> acked = new ConcurrentHashMap<>();
    final Map<String, List<Long>> failed = new ConcurrentHashMap<>();
    final AtomicLong count = new AtomicLong();
    final AtomicLong failures = new AtomicLong();

    /** (seconds since the load started, writes acknowledged by then), at every sample. */
    final List<double[]> progress = new CopyOnWriteArrayList<>();

    /** The write rate at the end of the first third, once known. */
    volatile double firstRate;

    /**
     * The fastest {@link #rate} at any progress point of the {@link #DISK_MEMORY_SECONDS} before
     * {@code at}: the rate whose writes a node sampled at {@code at} may still hold.
     */
    double recentRate(double at) {
      double fastest = rate(at);
      for (double[] p : progress) {
        if (p[0] <= at && p[0] >= at - DISK_MEMORY_SECONDS) {
          fastest = Math.max(fastest, rate(p[0]));
        }
      }
      return fastest;
    }

    /**
     * Acknowledged writes per second over the {@link #RATE_WINDOW_SECONDS} seconds before {@code
     * at} (0 before any progress).
     */
    double rate(double at) {
      double[] end = null;
      for (double[] p : progress) {
        if (p[0] <= at) {
          end = p;
        }
      }
      if (end == null) {
        return 0;
      }
      for (double[] p : progress) {
        if (p[0] >= end[0] - RATE_WINDOW_SECONDS) {
          return end[0] > p[0] ? (end[1] - p[1]) / (end[0] - p[0]) : 0;
        }
      }
      return 0;
    }
  }

  /** The window write rates are measured over: the log's retention and a compaction's lag. */
  static final double RATE_WINDOW_SECONDS = 6;

  /**
   * How far back a sample's disk reflects the writes: the log keeps its last seconds and a sealed
   * segment waits for a compaction, so a node sampled just after the load slowed (another process
   * took the processors) still holds what the faster seconds before wrote.
   */
  static final double DISK_MEMORY_SECONDS = 12;

  /** The nodes' segment size ({@code --segment-size-mb 4}). */
  static final long SEGMENT_BYTES = 4L << 20;

  /**
   * The least a node holds once its first segments have sealed, whatever the rate: the active
   * segment, a sealed one not yet half dead, and one being compacted. A first third that never
   * reached it (a slow, cold start on a loaded machine) measured the ramp, not the plateau, and is
   * raised to it.
   */
  static final long SEGMENTS_FLOOR = 3 * SEGMENT_BYTES;

  /**
   * Files beyond {@link #DYING_ALLOWANCE} times live that a sample may catch: the active segment
   * with the zeroes ahead of its records, and a segment a trim has just emptied past the allowance
   * before compaction's next pass.
   */
  static final long COMPACTION_SLACK = 2 * SEGMENT_BYTES + (1L << 20);

  /**
   * The zeroes a node keeps ahead of the records in its active segment (the storage writer's
   * preallocation, up to 1 MiB): on disk, but no entry's. A slow run writes little, so the end's
   * bound of half the values written leaves them out.
   */
  static final long ZEROED_AHEAD = 1L << 20;

  /**
   * The bound on a node's disk at a moment written at {@code rate} writes a second: {@link
   * #PLATEAU} times the first third's largest sample, scaled up by how much faster than at the end
   * of the first third ({@code firstRate}) the load runs then. What a node holds follows the write
   * rate (the log keeps its last seconds, sealed segments wait for compaction), not the number of
   * updates; a cold client writes much slower at first than warm, and the more so on a loaded
   * machine, so an unscaled bound would measure the ramp, not the plateau.
   */
  static long bound(long firstThird, double firstRate, double rate) {
    double scale = firstRate > 0 ? Math.max(1.0, rate / firstRate) : 1.0;
    return (long) (PLATEAU * Math.max(firstThird, SEGMENTS_FLOOR) * scale);
  }

  /**
   * Why {@code s} is outside the plateau, or null when it is within it. Two rules, each the bound
   * of one mechanism: what the node holds live (the objects' bounded histories and the log's last
   * seconds, released by trims) stays within {@link #bound} of the first third's largest sample;
   * and its segment files take at most {@link #DYING_ALLOWANCE} times that live (compaction spares
   * dying segments only up to there, and compacts past it) plus {@link #COMPACTION_SLACK}. A sample
   * without the node's answer is held to both at once on its disk alone.
   */
  static String outside(Sample s, long firstThird, Writes writes) {
    double rate = writes.recentRate(s.atSeconds());
    long bound = bound(firstThird, writes.firstRate, rate);
    String context =
        String.format(
            "(first third %.1f MB, %.0f writes/s then, %.0f/s in the last %.0f s)",
            mb(firstThird), writes.firstRate, rate, DISK_MEMORY_SECONDS);
    if (s.space() == null) {
      long most = (long) (DYING_ALLOWANCE * bound) + COMPACTION_SLACK;
      return s.diskBytes() > most
          ? String.format("disk above %.1f MB %s", mb(most), context)
          : null;
    }
    long live = s.space().getLiveBytes();
    if (live > bound) {
      return String.format("live above %.1f MB %s", mb(bound), context);
    }
    long files = (long) (DYING_ALLOWANCE * live) + COMPACTION_SLACK;
    if (s.space().getFileBytes() > files) {
      return String.format(
          "files above %.1fx live plus %.1f MB", DYING_ALLOWANCE, mb(COMPACTION_SLACK));
    }
    return null;
  }

  static long largest(List<Sample> samples, Endpoint e, double from, double to) {
    return samples.stream()
        .filter(s -> s.node().equals(e) && s.atSeconds() >= from && s.atSeconds() <= to)
        .mapToLong(Sample::diskBytes)
        .max()
        .orElseThrow();
  }

  static double mb(long bytes) {
    return bytes / 1e6;
  }

  /** The latest sample of {@code node}. */
  static Sample lastOf(List<Sample> samples, Endpoint node) {
    for (int i = samples.size() - 1; i >= 0; i--) {
      if (samples.get(i).node().equals(node)) {
        return samples.get(i);
      }
    }
    throw new IllegalStateException("no sample of " + node);
  }

  /** (b) A fresh runtime reads every key as its last acknowledged write left it. */

  /**
   * The nodes whose latest sample taken after {@code since} is missing or beyond the bound, each
   * with that sample and the bound it broke (empty once every node is within).
   */
  static List<String> outsideBound(
      ProcessCluster c,
      List<Sample> samples,
      Map<Endpoint, Long> firstThird,
      Writes writes,
      double since) {
    List<String> outside = new ArrayList<>();
    for (Endpoint e : c.nodes()) {
      Sample last = null;
      for (Sample s : samples) {
        if (s.node().equals(e) && s.atSeconds() > since) {
          last = s;
        }
      }
      if (last == null) {
        outside.add(e + ": no sample yet");
        continue;
      }
      String why = outside(last, firstThird.get(e), writes);
      if (why != null) {
        outside.add(e + " " + why + ": " + last);
      }
    }
    return outside;
  }

  /** Bytes of the files under {@code dir} (segment and index files), files vanishing meanwhile. */
  static long diskBytes(Path dir) {
    if (!Files.exists(dir)) {
      return 0;
    }
    long total = 0;
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.toList()) {
        try {
          if (Files.isRegularFile(f)) {
            total += Files.size(f);
          }
        } catch (NoSuchFileException gone) {
          // deleted by compaction while walking
        }
      }
    } catch (NoSuchFileException gone) {
      // a directory went away while walking: count what was seen
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (UncheckedIOException e) {
      if (!(e.getCause() instanceof NoSuchFileException)) {
        throw e;
      }
    }
    return total;
  }

  static void sampleAll(ProcessCluster c, NodeCalls calls, List<Sample> samples, double at) {
    for (Endpoint e : c.nodes()) {
      PingResponse ping = null;
      if (c.processOf(e).isAlive()) {
        try {
          ping = calls.pingWithSpace(e).orTimeout(2, TimeUnit.SECONDS).join();
        } catch (RuntimeException notNow) {
          // restarting, or too busy to answer within the timeout: the disk is still sampled
        }
      }
      samples.add(
          new Sample(
              at,
              e,
              diskBytes(c.dataDir(e).resolve("replicas")),
              ping == null ? -1 : ping.getEpoch(),
              ping == null ? null : ping.getSpace()));
    }
  }

  /**
   * Asks the sequencer whether its snapshot registrations are complete (registering nothing): while
   * they are not, no runtime trims a stream. Recorded to explain the disk's growth during the
   * fault.
   */
}
