package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.Segment;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.NotServingException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.awaitility.Awaitility;

/**
 * The check every fault test ends with: each replica of each chain holds the same entries. Every
 * slot is decided first (as any reader would decide it); then each log chain of each segment is
 * read from each of its serving replicas over the segment's addresses it owns, and each given
 * stream from each serving replica of its chain (a rebuilding replica serves no reads; its copy is
 * checked once it is promoted). Commit bits may differ (earlier replicas learn them later);
 * content, holes included, may not. The global log keeps only its last seconds (streams keep the
 * history): the log is compared above the highest trim mark its replicas hold once they are read.
 */
final class ReplicaAgreement {
  private static final int PAGE = 1024;
  private static final Duration REFUSED_FOR = Duration.ofSeconds(30);

  private ReplicaAgreement() {}

  /** The highest trim mark the log replicas of {@code layout} that answer hold now. */
  private static long logTrimMark(ClusterStreamLog log, Layout layout) {
    long mark = 0;
    for (Endpoint e : layout.logServers()) {
      try {
        mark = Math.max(mark, log.ops().logTail(e).get(10, TimeUnit.SECONDS).getTrimMark());
      } catch (Exception notAnswering) {
        // A replica that does not answer is not compared either.
      }
    }
    return mark;
  }

  /** Checks {@code layout}'s chains through {@code log}, a client of the cluster. */
  static void assertReplicasAgree(ClusterStreamLog log, Layout layout, List<StreamId> streams)
      throws Exception {
    long globalTail = log.tails(List.of()).get(30, TimeUnit.SECONDS).globalTail();
    Map<StreamId, Long> tails = log.tails(streams).get(30, TimeUnit.SECONDS).streamTails();
    for (long a = logTrimMark(log, layout); a <= globalTail; a += PAGE) {
      try {
        log.decidedGlobal(a, Math.min(globalTail, a + PAGE - 1)).get(60, TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException e) {
        if (!(e.getCause() instanceof io.vcorfu.protocol.TrimmedException)) {
          throw e;
        }
        a = logTrimMark(log, layout) - PAGE; // trimmed meanwhile: go on above the mark
      }
    }
    for (StreamId s : streams) {
      long tail = tails.getOrDefault(s, -1L);
      for (long a = 0; a <= tail; a += PAGE) {
        log.decidedStream(s, a, Math.min(tail, a + PAGE - 1)).get(60, TimeUnit.SECONDS);
      }
    }
    for (Segment s : layout.segments()) {
      long end = s.isOpen() ? globalTail : Math.min(globalTail, s.end() - 1);
      for (int i = 0; i < s.log().size(); i++) {
        Map<Endpoint, List<String>> held = new LinkedHashMap<>();
        for (Endpoint replica : layout.serving(s, true, i)) {
          List<String> out = new ArrayList<>();
          for (long a = s.start(); a <= end; a += PAGE) {
            long from = a;
            for (ReadResult r :
                fromReplica(
                    () -> log.ops().logRead(replica, from, Math.min(end, from + PAGE - 1)))) {
              if (r.getAddress() % s.log().size() == i) {
                out.add(r.getAddress() + "=" + content(r));
              }
            }
          }
          held.put(replica, out);
        }
        long cutoff = logTrimMark(log, layout);
        held.replaceAll(
            (replica, out) ->
                out.stream()
                    .filter(r -> Long.parseLong(r.substring(0, r.indexOf('='))) >= cutoff)
                    .toList());
        assertThat(held.values().stream().distinct().count())
            .as("log chain %s of the segment starting at %s: %s", i, s.start(), held)
            .isEqualTo(1);
      }
    }
    for (StreamId stream : streams) {
      long tail = tails.getOrDefault(stream, -1L);
      Map<Endpoint, List<String>> held = new LinkedHashMap<>();
      for (Endpoint replica : layout.servingStream(layout.streamChainIndex(stream))) {
        List<String> out = new ArrayList<>();
        for (long a = 0; a <= tail; a += PAGE) {
          long from = a;
          for (ReadResult r :
              fromReplica(
                  () ->
                      log.ops()
                          .streamRead(replica, stream, from, Math.min(tail, from + PAGE - 1)))) {
            out.add(r.getAddress() + "=" + content(r));
          }
        }
        held.put(replica, out);
      }
      assertThat(held.values().stream().distinct().count())
          .as("the chain of stream %s: %s", stream, held)
          .isEqualTo(1);
    }
  }

  /**
   * One replica's answer to {@code read}. A replica whose layout lease ran out (it could not
   * confirm its layout in time, as on a loaded host) refuses reads until it confirms it again, and
   * serves the same entries then; such a refusal is asked again, for at most {@link #REFUSED_FOR}.
   * Every other error fails the check.
   */
  private static List<ReadResult> fromReplica(Supplier<CompletableFuture<List<ReadResult>>> read) {
    return Awaitility.await("a replica serving reads again")
        .atMost(REFUSED_FOR)
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(50))
        .ignoreExceptionsMatching(
            e -> e instanceof ExecutionException && e.getCause() instanceof NotServingException)
        .until(() -> read.get().get(30, TimeUnit.SECONDS), answer -> true);
  }

  private static String content(ReadResult r) {
    if (r.getStatus() == ReadResult.Status.EMPTY) {
      return "empty";
    }
    LogEntryMsg e = r.getEntry();
    return e.getKind() == EntryKind.HOLE
        ? "hole"
        : e.getGlobalAddress() + "/" + e.getNonce() + "/" + e.getPayload().toStringUtf8();
  }
}
