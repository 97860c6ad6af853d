package io.vcorfu.layout;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The ordered replica visits that write one entry: the write path follows it front to back and
 * commits every visit but the last; repair uses {@link #last()} to decide the entry's fate.
 *
 * <p>The visits are of two kinds. The log visits: every endpoint of the log chain for the entry's
 * global address (role {@link Role#LOG}, carrying all of the entry's streams), head first. The
 * stream visits: for each distinct stream chain the entry touches in increasing chain index, every
 * endpoint of that chain (role {@link Role#STREAM}) with the entry's streams that chain hosts, in
 * the entry's order; a stream replica that belongs to several touched stream chains is visited
 * once, at its first position, with all of its streams. The last stream visit (or, for an entry of
 * no stream, the last log visit) is the deciding one and comes last.
 *
 * <p>Order: the log visits keep their order, the stream visits keep theirs, and the decider comes
 * last; within those rules the two sequences are interleaved so that visits to one endpoint come
 * one after another as often as possible, because the writer sends such a run in one message (one
 * round trip, one durable write on that node). Which interleaving does not matter to safety: every
 * chain is still written head first, and the decider still after every other copy. The plan depends
 * only on the layout, the global address and the entry's stream list (among equally good orders,
 * the one with the log visits earliest), so every client computes the same plan for the same entry.
 */
public record ChainPlan(long globalAddress, List<Visit> visits) {

  /** What a replica does with a visit. */
  public enum Role {
    /** Store the entry by global address. */
    LOG,
    /** Store the entry in the listed streams' materialized streams. */
    STREAM
  }

  /**
   * One replica visit.
   *
   * @param streams for {@link Role#STREAM}, the streams of the entry hosted by this replica; for
   *     {@link Role#LOG}, all of the entry's streams
   */
  public record Visit(Role role, Endpoint endpoint, List<StreamId> streams) {
    public Visit {
      Objects.requireNonNull(role, "role");
      Objects.requireNonNull(endpoint, "endpoint");
      streams = List.copyOf(streams);
    }
  }

  public ChainPlan {
    visits = List.copyOf(visits);
    if (visits.isEmpty()) {
      throw new IllegalArgumentException("a chain plan needs at least one visit");
    }
  }

  /**
   * The plan for an entry at {@code globalAddress} written to {@code streams} (no duplicates; may
   * be empty: then only the log chain is visited).
   */
  public static ChainPlan of(Layout layout, long globalAddress, List<StreamId> streams) {
    Set<StreamId> distinct = new HashSet<>(streams);
    if (distinct.size() != streams.size()) {
      throw new IllegalArgumentException("an entry lists a stream more than once: " + streams);
    }
    List<Visit> logVisits = new ArrayList<>();
    for (Endpoint e : layout.logChain(globalAddress)) {
      logVisits.add(new Visit(Role.LOG, e, streams));
    }
    List<Visit> streamVisitList = new ArrayList<>();
    TreeMap<Integer, List<StreamId>> byChain = new TreeMap<>();
    for (StreamId s : streams) {
      byChain.computeIfAbsent(layout.streamChainIndex(s), k -> new ArrayList<>()).add(s);
    }
    List<List<Endpoint>> chains = layout.currentSegment().stream();
    Map<Endpoint, List<StreamId>> streamVisits = new LinkedHashMap<>();
    for (Map.Entry<Integer, List<StreamId>> chain : byChain.entrySet()) {
      for (Endpoint e : chains.get(chain.getKey())) {
        streamVisits.computeIfAbsent(e, k -> new ArrayList<>()).addAll(chain.getValue());
      }
    }
    for (Map.Entry<Endpoint, List<StreamId>> v : streamVisits.entrySet()) {
      List<StreamId> hosted = new ArrayList<>(v.getValue());
      hosted.sort((a, b) -> Integer.compare(streams.indexOf(a), streams.indexOf(b)));
      streamVisitList.add(new Visit(Role.STREAM, v.getKey(), hosted));
    }
    return new ChainPlan(globalAddress, interleave(logVisits, streamVisitList));
  }

  /**
   * {@code log} and {@code stream} merged, each in its own order, the last of {@code stream} (of
   * {@code log} when {@code stream} is empty) last, with the fewest changes of endpoint between
   * consecutive visits; among equals, the one with the log visits earliest. A dynamic program over
   * how many of each have been placed and which kind was placed last.
   */
  static List<Visit> interleave(List<Visit> log, List<Visit> stream) {
    if (stream.isEmpty()) {
      return log;
    }
    int n = log.size();
    int m = stream.size() - 1; // the decider is placed after the others
    // cost[i][j][k]: fewest endpoint changes placing log[0..i) and stream[0..j) with the last
    // placed from log (k = 0) or stream (k = 1); impossible states hold MAX.
    int[][][] cost = new int[n + 1][m + 1][2];
    for (int[][] a : cost) {
      for (int[] b : a) {
        Arrays.fill(b, Integer.MAX_VALUE);
      }
    }
    for (int i = 0; i <= n; i++) {
      for (int j = 0; j <= m; j++) {
        for (int k = 0; k < 2; k++) {
          cost[i][j][k] = cost(cost, i, j, k, log, stream);
        }
      }
    }
    // The best end state, counting the change to the decider.
    Endpoint decider = stream.get(m).endpoint();
    int best = Integer.MAX_VALUE;
    int bestK = 1;
    for (int k = 1; k >= 0; k--) {
      int c = cost[n][m][k];
      if (c == Integer.MAX_VALUE) {
        continue;
      }
      c += last(log, stream, n, m, k).equals(decider) ? 0 : 1;
      if (c < best) {
        best = c;
        bestK = k;
      }
    }
    // Walk back from it, choosing at each step a cheapest predecessor.
    Visit[] order = new Visit[n + m + 1];
    order[n + m] = stream.get(m);
    int i = n;
    int j = m;
    int k = bestK;
    for (int pos = n + m - 1; pos >= 0; pos--) {
      Visit placed = k == 0 ? log.get(i - 1) : stream.get(j - 1);
      order[pos] = placed;
      if (k == 0) {
        i--;
      } else {
        j--;
      }
      if (pos == 0) {
        break;
      }
      k = previousKind(cost, i, j, placed.endpoint(), log, stream);
    }
    return List.of(order);
  }

  /** The cheapest way to reach state (i, j, k), from the states one placement earlier. */
  private static int cost(
      int[][][] cost, int i, int j, int k, List<Visit> log, List<Visit> stream) {
    if (k == 0 ? i == 0 : j == 0) {
      return Integer.MAX_VALUE; // nothing of that kind placed yet
    }
    int pi = k == 0 ? i - 1 : i;
    int pj = k == 1 ? j - 1 : j;
    Endpoint here = k == 0 ? log.get(i - 1).endpoint() : stream.get(j - 1).endpoint();
    if (pi == 0 && pj == 0) {
      return 0;
    }
    int best = Integer.MAX_VALUE;
    for (int pk = 0; pk < 2; pk++) {
      int c = cost[pi][pj][pk];
      if (c == Integer.MAX_VALUE) {
        continue;
      }
      c += last(log, stream, pi, pj, pk).equals(here) ? 0 : 1;
      best = Math.min(best, c);
    }
    return best;
  }

  /**
   * The kind placed just before the visit to {@code here}, now that (i, j) are placed before it:
   * the cheaper state, the stream on a tie (walking back, so that log visits come as early as they
   * can). -1 when nothing precedes.
   */
  private static int previousKind(
      int[][][] cost, int i, int j, Endpoint here, List<Visit> log, List<Visit> stream) {
    int bestK = -1;
    int best = Integer.MAX_VALUE;
    for (int pk = 1; pk >= 0; pk--) {
      int c = cost[i][j][pk];
      if (c == Integer.MAX_VALUE) {
        continue;
      }
      c += last(log, stream, i, j, pk).equals(here) ? 0 : 1;
      if (c < best) {
        best = c;
        bestK = pk;
      }
    }
    return bestK;
  }

  /** The endpoint of the visit placed last in state (i, j, k). */
  private static Endpoint last(List<Visit> log, List<Visit> stream, int i, int j, int k) {
    return k == 0 ? log.get(i - 1).endpoint() : stream.get(j - 1).endpoint();
  }

  /** The deciding replica: if it holds the entry, the entry is committed. */
  public Visit last() {
    return visits.get(visits.size() - 1);
  }

  /** The visits that need a separate commit after the last one has written. */
  public List<Visit> beforeLast() {
    return visits.subList(0, visits.size() - 1);
  }

  /** True if {@code visit} is the deciding (last) visit of this plan. */
  public boolean isLast(Visit visit) {
    return last().equals(visit);
  }
}
